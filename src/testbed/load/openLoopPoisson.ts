import type { Histogram } from 'hdr-histogram-js';
import { seededRandom } from '../../model/random.js';
import { createLatencyHistogram, MICROSECONDS_PER_SECOND } from '../../sim/latencyHistogram.js';
import { type LatencySummary, summarizeLatency } from './latencySummary.js';
import { type PoissonCheck, poissonCheck } from './poissonCheck.js';
import { poissonSendTimes } from './poissonSendTimes.js';

/** Options of {@link openLoopPoisson}. */
export interface OpenLoopOptions {
  /** Requests per second, ≥ 0. */
  readonly rate: number;
  /** How long the stream runs, seconds (> 0). */
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
   * The measurement window, seconds from the start: answers that arrive in [fromS, toS) are
   * counted (outcomes and latency). Counting by the time of the answer, in steady state, measures
   * the same fractions as counting by send time, without waiting for the slowest requests to end.
   * Default: the whole run, [0, ∞).
   */
  readonly window?: { readonly fromS: number; readonly toS: number };
  /**
   * The window is cut into this many equal batches (by the time of the answer), each counted
   * apart, for batch-means confidence intervals; default 1. Needs a finite window.
   */
  readonly batches?: number;
  /** After the last send, wait at most this long (ms) for answers still out; default 0. */
  readonly settleMs?: number;
  /** A send that starts more than this many ms after its intended time is late; default 1. */
  readonly lateThresholdMs?: number;
  /** Stops sending; the report covers what was sent. */
  readonly signal?: AbortSignal;
  /** Called with the elapsed fraction of the run (0..1) about every 250 ms. */
  readonly onProgress?: (fraction: number) => void;
  /** Monotonic clock, ms; default `performance.now`. */
  readonly now?: () => number;
}

/** What the window saw. */
export interface OpenLoopWindow {
  readonly fromS: number;
  readonly toS: number;
  /** Requests whose intended send time falls in the window. */
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
  /** Answers that arrived in the window: succeeded + failed + errors. */
  readonly finished: number;
  readonly succeeded: number;
  /** Answered, but not a success (503 after the retries). */
  readonly failed: number;
  /** `send` threw (connection refused, reset, …). */
  readonly errors: number;
  /** Per batch of the window (see `batches`): answers, and successes among them. */
  readonly batchFinished: readonly number[];
  readonly batchSucceeded: readonly number[];
  /** Latency of the successful requests, from the intended send time to the answer. */
  readonly latency: LatencySummary;
  /** The same, as an HdrHistogram in microseconds (to merge streams). */
  readonly histogram: Histogram;
}

/** The report of one open-loop stream. */
export interface OpenLoopReport {
  /** Requested rate, requests per second. */
  readonly rate: number;
  readonly durationS: number;
  /** Sends drawn for the run. */
  readonly intended: number;
  /** Sends made (all of them unless aborted). */
  readonly sent: number;
  /** sent / durationS. */
  readonly achievedRate: number;
  /** Sends that started more than `lateThresholdMs` after their intended time. */
  readonly late: number;
  readonly lateThresholdMs: number;
  /** Largest and mean delay of a send behind its intended time, ms. */
  readonly maxLatenessMs: number;
  readonly meanLatenessMs: number;
  /** The drawn gaps' check (what was meant). */
  readonly drawn: PoissonCheck;
  /** The achieved gaps' check (when the sends really started): the stream the system saw. */
  readonly achieved: PoissonCheck;
  readonly window: OpenLoopWindow;
  /** Sends still without an answer when the report was made. */
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
 * Resolves once the run's duration has passed and every answer is in (or `settleMs` has passed).
 * @example
 * ```ts
 * const report = await openLoopPoisson({
 *   rate: 50, durationS: 30, seed: 7, window: { fromS: 5, toS: 30 },
 *   send: async () => (await request(url, { headers: { 'x-priority': 'high' } })).statusCode === 200,
 * });
 * report.achieved.verdict; // 'CV 0.992 (±0.050): Poisson'
 * ```
 */
export function openLoopPoisson(options: Readonly<OpenLoopOptions>): Promise<OpenLoopReport> {
  const { rate, durationS, seed, send, signal, onProgress } = options;
  if (!(Number.isFinite(durationS) && durationS > 0)) {
    throw new RangeError(`durationS should be a positive number, got ${durationS}`);
  }
  const window = options.window ?? { fromS: 0, toS: Number.POSITIVE_INFINITY };
  if (!(window.fromS >= 0 && window.toS > window.fromS)) {
    throw new RangeError(
      `window should satisfy 0 ≤ fromS < toS, got [${window.fromS}, ${window.toS})`,
    );
  }
  const lateThresholdMs = options.lateThresholdMs ?? 1;
  const batches = Number.isFinite(window.toS) ? (options.batches ?? 1) : 1;
  if (!(Number.isInteger(batches) && batches >= 1)) {
    throw new RangeError(`batches should be an integer ≥ 1, got ${options.batches}`);
  }
  const batchFinished = new Array<number>(batches).fill(0);
  const batchSucceeded = new Array<number>(batches).fill(0);
  const settleMs = options.settleMs ?? 0;
  const now = options.now ?? (() => performance.now());
  const durationMs = durationS * 1000;
  const fromMs = window.fromS * 1000;
  const toMs = window.toS * 1000;
  const times = poissonSendTimes(rate, durationMs, seededRandom(seed, options.stream ?? 0));
  const actual = new Float64Array(times.length);
  const histogram = createLatencyHistogram();
  // The sends meant for the window are a contiguous run of indices.
  let windowFirst = 0;
  while (windowFirst < times.length && (times[windowFirst] as number) < fromMs) windowFirst++;
  let windowEnd = windowFirst;
  while (windowEnd < times.length && (times[windowEnd] as number) < toMs) windowEnd++;
  const windowIntended = windowEnd - windowFirst;
  let windowLate = 0;
  let windowLatenessSum = 0;
  let windowMaxLateness = 0;

  let next = 0;
  let inFlight = 0;
  let late = 0;
  let latenessSum = 0;
  let maxLateness = 0;
  let succeeded = 0;
  let failed = 0;
  let errors = 0;
  let timer: NodeJS.Timeout | undefined;
  let aborted = false;
  let lastProgress = -Infinity;
  const start = now();

  return new Promise<OpenLoopReport>((resolve) => {
    let sendingDone = false;
    let settleTimer: NodeJS.Timeout | undefined;
    let resolved = false;

    const report = (): OpenLoopReport => {
      const sentTimes = actual.subarray(0, next);
      const windowSent = Math.max(0, Math.min(next, windowEnd) - windowFirst);
      return {
        rate,
        durationS,
        intended: times.length,
        sent: next,
        achievedRate: next / durationS,
        late,
        lateThresholdMs,
        maxLatenessMs: maxLateness,
        meanLatenessMs: next > 0 ? latenessSum / next : Number.NaN,
        drawn: poissonCheck(times),
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
          finished: succeeded + failed + errors,
          succeeded,
          failed,
          errors,
          batchFinished: [...batchFinished],
          batchSucceeded: [...batchSucceeded],
          latency: summarizeLatency(histogram),
          histogram,
        },
        inFlight,
        aborted,
      };
    };
    const finish = () => {
      if (resolved) return;
      resolved = true;
      if (timer !== undefined) clearTimeout(timer);
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      signal?.removeEventListener('abort', onAbort);
      resolve(report());
    };
    const maybeFinish = () => {
      if (sendingDone && inFlight === 0) finish();
    };
    const onAbort = () => {
      aborted = true;
      finish();
    };

    const settle = (index: number, outcome: 'ok' | 'failed' | 'error') => {
      inFlight--;
      const elapsed = now() - start;
      if (!resolved && elapsed >= fromMs && elapsed < toMs) {
        const batch =
          batches === 1 ? 0 : Math.floor(((elapsed - fromMs) / (toMs - fromMs)) * batches);
        batchFinished[batch]++;
        if (outcome === 'ok') {
          batchSucceeded[batch]++;
          succeeded++;
          const latencyUs = Math.max(
            0,
            Math.round((elapsed - (times[index] as number)) * (MICROSECONDS_PER_SECOND / 1000)),
          );
          histogram.recordValue(latencyUs);
        } else if (outcome === 'failed') failed++;
        else errors++;
      }
      if (sendingDone) maybeFinish();
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
      }
      inFlight++;
      let answer: Promise<boolean>;
      try {
        answer = send(index);
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(
        (ok) => settle(index, ok ? 'ok' : 'failed'),
        () => settle(index, 'error'),
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
      if (onProgress && elapsed - lastProgress >= 250) {
        lastProgress = elapsed;
        onProgress(Math.min(1, elapsed / durationMs));
      }
      const wakeAt = next < times.length ? (times[next] as number) : durationMs;
      if (next >= times.length && elapsed >= durationMs) {
        sendingDone = true;
        onProgress?.(1);
        if (inFlight === 0) finish();
        else if (settleMs <= 0) finish();
        else settleTimer = setTimeout(finish, settleMs);
        return;
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
    tick();
  });
}
