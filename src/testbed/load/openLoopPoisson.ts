import type { Histogram } from 'hdr-histogram-js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { seededRandom } from '../../model/random.js';
import { type LatencySummary, summarizeLatency } from './latencySummary.js';
import { type PoissonCheck, poissonCheck } from './poissonCheck.js';
import { poissonSendTimes } from './poissonSendTimes.js';
import {
  REQUEST_OUTCOME,
  type RequestLog,
  tallyByAnswerTime,
  tallyBySendTime,
  type WindowCounts,
} from './windowTally.js';

/** Options of {@link openLoopPoisson}. */
export interface OpenLoopOptions {
  /** Requests per second, ≥ 0. */
  readonly rate: number;
  /** How long the stream runs before its drain, seconds (> 0). */
  readonly durationS: number;
  /** Seed of the gaps (any safe integer). */
  readonly seed: number;
  /** Substream of the seed (`seededRandom`), so several classes drawn from one seed differ; 0. */
  readonly stream?: number;
  /**
   * Sends request number `index`; resolves true when it succeeded, false when it failed (a 503
   * after the retries); a throw counts as an error. It is called at the request's intended time
   * whatever earlier requests are doing: the generator never waits for an answer.
   */
  readonly send: (index: number) => Promise<boolean>;
  /**
   * The measurement window, seconds from the start, inside [0, durationS]: the requests whose
   * **intended send time** falls in [fromS, toS) are the ones measured, each followed to its end
   * (see `graceS`). Default: the whole run, [0, durationS).
   */
  readonly window?: { readonly fromS: number; readonly toS: number };
  /**
   * The window is cut into this many equal batches (by send time), each counted apart, for
   * batch-means confidence intervals; default 1.
   */
  readonly batches?: number;
  /**
   * The drain: after `durationS` the stream **keeps sending** on its schedule — so the system
   * stays in the steady state the window's requests met — until every request sent in the window
   * has ended (or `endDrain` says so), for at most this many seconds; then the report is made at
   * once, and a request of the window still pending is counted `unfinished`. Requests sent during
   * the drain are not measured. Default 0: no drain.
   */
  readonly graceS?: number;
  /**
   * Ends the drain early when aborted: for several streams loading one system, the caller ends
   * all their drains together once every stream's window has ended ({@link onWindowEnded}), so
   * none stops loading the system while another's requests are still out. Without it, the drain
   * ends when this stream's own window has ended.
   */
  readonly endDrain?: AbortSignal;
  /** Called once, when the window has closed and every request sent in it has ended. */
  readonly onWindowEnded?: () => void;
  /** A send that starts more than this many ms after its intended time is late; default 1. */
  readonly lateThresholdMs?: number;
  /** Stops sending; the report covers what was sent. */
  readonly signal?: AbortSignal;
  /** Called with the elapsed fraction of the run before the drain (0..1) about every 250 ms. */
  readonly onProgress?: (fraction: number) => void;
  /** Monotonic clock, ms; default `performance.now`. */
  readonly now?: () => number;
}

/**
 * What the window measured: its sends, and the requests sent in it followed to their end (the
 * send-time count, {@link tallyBySendTime}), with the count by answer time beside it.
 */
export interface OpenLoopWindow {
  readonly fromS: number;
  readonly toS: number;
  /** Requests whose intended send time falls in the window: the measured population. */
  readonly intended: number;
  /** Of those, sent so far; late (started more than `lateThresholdMs` after intended). */
  readonly sent: number;
  readonly late: number;
  /** Mean and largest lateness of those sends, ms. */
  readonly meanLatenessMs: number;
  readonly maxLatenessMs: number;
  /**
   * The gap check of the achieved send times in the window: the stream the system saw once
   * warm-up transients (first connections, JIT compilation) were over.
   */
  readonly achieved: PoissonCheck;
  /** Of the window's requests, those that ended (during the window or the drain). */
  readonly finished: number;
  readonly succeeded: number;
  /** Answered, but not a success (503 after the retries). */
  readonly failed: number;
  /** `send` threw (connection refused, reset, …). */
  readonly errors: number;
  /** Of the window's requests, still pending when the drain ended (should be 0). */
  readonly unfinished: number;
  /** Per batch of the window (by send time): requests that ended, and successes among them. */
  readonly batchFinished: readonly number[];
  readonly batchSucceeded: readonly number[];
  /** Latency of the window's successful requests, from the intended send time to the answer. */
  readonly latency: LatencySummary;
  /** The same, as an HdrHistogram in microseconds (to merge streams). */
  readonly histogram: Histogram;
  /**
   * The requests **answered** in the window, whenever sent (batches by answer time): the count
   * used before, kept to show its bias beside the send-time one ({@link tallyByAnswerTime}).
   */
  readonly answeredInWindow: WindowCounts;
}

/** The report of one open-loop stream. */
export interface OpenLoopReport {
  /** Requested rate, requests per second. */
  readonly rate: number;
  readonly durationS: number;
  /** How long the drain lasted, seconds (0 without one). */
  readonly drainS: number;
  /** Sends drawn for the run and its longest drain. */
  readonly intended: number;
  /** Sends made, the drain's included. */
  readonly sent: number;
  /** sent / (durationS + drainS). */
  readonly achievedRate: number;
  /** Sends that started more than `lateThresholdMs` after their intended time. */
  readonly late: number;
  readonly lateThresholdMs: number;
  /** Largest and mean delay of a send behind its intended time, ms. */
  readonly maxLatenessMs: number;
  readonly meanLatenessMs: number;
  /** The drawn gaps' check over the run before the drain (what was meant). */
  readonly drawn: PoissonCheck;
  /** The achieved gaps' check (when the sends really started): the stream the system saw. */
  readonly achieved: PoissonCheck;
  readonly window: OpenLoopWindow;
  /** Sends still without an answer when the report was made (the window's and the drain's). */
  readonly inFlight: number;
  readonly aborted: boolean;
}

/**
 * An open-loop Poisson load generator: the send times are drawn in advance (seeded exponential
 * gaps, {@link poissonSendTimes}) and a timer loop starts every request at its intended time,
 * catching up at once when the event loop was late, and never waiting for earlier requests to
 * answer — so overload cannot slow the offered load down, the mistake of closed-loop generators
 * ("coordinated omission"). Latency is measured from the **intended** send time, so a late send's
 * wait counts, and recorded in an HdrHistogram; late sends are counted; the achieved gaps are
 * checked against the exponential law (their coefficient of variation should be ≈ 1).
 *
 * The measured requests are those whose intended send time falls in the window, each followed to
 * its end: after `durationS` the stream keeps sending for a drain of at most `graceS` while the
 * window's last requests finish. Resolves when the drain ends (at once without one).
 * @example
 * ```ts
 * const report = await openLoopPoisson({
 *   rate: 50, durationS: 30, seed: 7, window: { fromS: 5, toS: 30 }, graceS: 20,
 *   send: async () => (await request(url, { headers: { 'x-priority': 'high' } })).statusCode === 200,
 * });
 * report.achieved.verdict; // 'CV 0.992 (±0.050): Poisson'
 * report.window.failed / report.window.finished; // rejection of the requests sent in [5, 30) s
 * ```
 */
export function openLoopPoisson(options: Readonly<OpenLoopOptions>): Promise<OpenLoopReport> {
  const { rate, durationS, seed, send, signal, onProgress, endDrain, onWindowEnded } = options;
  if (!(Number.isFinite(durationS) && durationS > 0)) {
    throw new InvalidArgumentError(`durationS should be a positive number, got ${durationS}`);
  }
  const window = options.window ?? { fromS: 0, toS: durationS };
  if (!(window.fromS >= 0 && window.toS > window.fromS && window.toS <= durationS)) {
    throw new InvalidArgumentError(
      `window should satisfy 0 ≤ fromS < toS ≤ durationS (${durationS}), got [${window.fromS}, ${window.toS})`,
    );
  }
  const graceS = options.graceS ?? 0;
  if (!(Number.isFinite(graceS) && graceS >= 0)) {
    throw new InvalidArgumentError(`graceS should be a number ≥ 0, got ${options.graceS}`);
  }
  const lateThresholdMs = options.lateThresholdMs ?? 1;
  const batches = options.batches ?? 1;
  if (!(Number.isInteger(batches) && batches >= 1)) {
    throw new InvalidArgumentError(`batches should be an integer ≥ 1, got ${options.batches}`);
  }
  const now = options.now ?? (() => performance.now());
  const durationMs = durationS * 1000;
  const graceMs = graceS * 1000;
  const fromMs = window.fromS * 1000;
  const toMs = window.toS * 1000;
  // Drawn for the longest drain too; the prefix is the same stream whatever the grace.
  const times = poissonSendTimes(
    rate,
    durationMs + graceMs,
    seededRandom(seed, options.stream ?? 0),
  );
  const actual = new Float64Array(times.length);
  const log: RequestLog = {
    intendedMs: times,
    answeredMs: new Float64Array(times.length),
    outcome: new Uint8Array(times.length),
  };
  let runEnd = 0;
  while (runEnd < times.length && (times[runEnd] as number) < durationMs) runEnd++;
  // The sends meant for the window are a contiguous run of indices.
  let windowFirst = 0;
  while (windowFirst < times.length && (times[windowFirst] as number) < fromMs) windowFirst++;
  let windowEnd = windowFirst;
  while (windowEnd < times.length && (times[windowEnd] as number) < toMs) windowEnd++;
  const windowIntended = windowEnd - windowFirst;
  let windowLate = 0;
  let windowLatenessSum = 0;
  let windowMaxLateness = 0;
  /** Requests of the window sent and not yet ended. */
  let windowPending = 0;
  let windowEnded = false;
  /** The caller's `endDrain` fired (maybe before the run's end: the drain is then empty). */
  let drainCalledOff = false;

  let next = 0;
  let inFlight = 0;
  let late = 0;
  let latenessSum = 0;
  let maxLateness = 0;
  let timer: NodeJS.Timeout | undefined;
  let aborted = false;
  let endedAt = Number.NaN;
  let lastProgress = -Infinity;
  const start = now();

  return new Promise<OpenLoopReport>((resolve) => {
    let resolved = false;

    const report = (): OpenLoopReport => {
      const sentTimes = actual.subarray(0, next);
      const windowSent = Math.max(0, Math.min(next, windowEnd) - windowFirst);
      const tallyWindow = { fromMs, toMs };
      const bySend = tallyBySendTime(log, tallyWindow, batches);
      const { histogram, requests: _requests, ...counts } = bySend;
      const drainS = Number.isFinite(endedAt) ? Math.max(0, endedAt - durationMs) / 1000 : 0;
      return {
        rate,
        durationS,
        drainS,
        intended: times.length,
        sent: next,
        achievedRate: next / (durationS + drainS),
        late,
        lateThresholdMs,
        maxLatenessMs: maxLateness,
        meanLatenessMs: next > 0 ? latenessSum / next : Number.NaN,
        drawn: poissonCheck(times.subarray(0, runEnd)),
        achieved: poissonCheck(sentTimes),
        window: {
          fromS: window.fromS,
          toS: window.toS,
          intended: windowIntended,
          sent: windowSent,
          late: windowLate,
          meanLatenessMs: windowSent > 0 ? windowLatenessSum / windowSent : Number.NaN,
          maxLatenessMs: windowMaxLateness,
          achieved: poissonCheck(actual.subarray(windowFirst, windowFirst + windowSent)),
          ...counts,
          latency: summarizeLatency(histogram),
          histogram,
          answeredInWindow: tallyByAnswerTime(log, tallyWindow, batches),
        },
        inFlight,
        aborted,
      };
    };
    const finish = () => {
      if (resolved) return;
      resolved = true;
      endedAt = now() - start;
      if (!aborted && lastProgress < durationMs) {
        lastProgress = durationMs;
        onProgress?.(1);
      }
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      endDrain?.removeEventListener('abort', onEndDrain);
      resolve(report());
    };
    const onAbort = () => {
      aborted = true;
      finish();
    };
    /** Whether the drain (if the run has reached it) is over. */
    const drainOver = (elapsed: number) =>
      graceMs === 0 ||
      elapsed >= durationMs + graceMs ||
      (endDrain === undefined ? windowEnded : drainCalledOff);
    const onEndDrain = () => {
      drainCalledOff = true;
      if (now() - start >= durationMs) finish();
    };
    const checkWindowEnded = (elapsed: number) => {
      if (windowEnded || elapsed < toMs || windowPending > 0 || next < windowEnd) return;
      windowEnded = true;
      onWindowEnded?.();
      if (!resolved && elapsed >= durationMs && drainOver(elapsed)) finish();
    };

    const settle = (index: number, outcome: number) => {
      if (resolved) return;
      inFlight--;
      log.outcome[index] = outcome;
      log.answeredMs[index] = now() - start;
      if (index >= windowFirst && index < windowEnd) {
        windowPending--;
        checkWindowEnded(now() - start);
      }
    };

    const fire = (index: number, elapsed: number) => {
      actual[index] = elapsed;
      const lateness = elapsed - (times[index] as number);
      latenessSum += lateness;
      if (lateness > maxLateness) maxLateness = lateness;
      if (lateness > lateThresholdMs) late++;
      if (index >= windowFirst && index < windowEnd) {
        windowLatenessSum += lateness;
        if (lateness > windowMaxLateness) windowMaxLateness = lateness;
        if (lateness > lateThresholdMs) windowLate++;
        windowPending++;
      }
      inFlight++;
      let answer: Promise<boolean>;
      try {
        answer = send(index);
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(
        (ok) => settle(index, ok ? REQUEST_OUTCOME.succeeded : REQUEST_OUTCOME.failed),
        () => settle(index, REQUEST_OUTCOME.error),
      );
    };

    const tick = () => {
      timer = undefined;
      if (resolved) return;
      let elapsed = now() - start;
      // Catch up: everything whose time has come goes now, in order, without waiting.
      while (next < times.length && (times[next] as number) <= elapsed) {
        fire(next, elapsed);
        next++;
        elapsed = now() - start;
      }
      // The drain's length is not known in advance: the run's end is 1.
      if (onProgress && lastProgress < durationMs) {
        if (elapsed >= durationMs) {
          lastProgress = durationMs;
          onProgress(1);
        } else if (elapsed - lastProgress >= 250) {
          lastProgress = elapsed;
          onProgress(elapsed / durationMs);
        }
      }
      checkWindowEnded(elapsed);
      if (resolved) return;
      if (elapsed >= durationMs && drainOver(elapsed)) {
        finish();
        return;
      }
      // Wake for the next send, and for the window's end and the run's and the grace's, which
      // may come before it.
      let wakeAt = next < times.length ? (times[next] as number) : durationMs + graceMs;
      for (const edge of [toMs, durationMs, durationMs + graceMs]) {
        if (elapsed < edge) wakeAt = Math.min(wakeAt, edge);
      }
      // Node's timers have whole-millisecond resolution (a shorter delay is 1 ms): sleep whole
      // milliseconds, and the loop above sends on the first tick at or after the intended time.
      timer = setTimeout(tick, Math.max(1, Math.ceil(wakeAt - elapsed)));
    };

    if (signal?.aborted) {
      aborted = true;
      finish();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    if (endDrain?.aborted) drainCalledOff = true;
    else endDrain?.addEventListener('abort', onEndDrain, { once: true });
    tick();
  });
}
