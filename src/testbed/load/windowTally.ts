import type { Histogram } from 'hdr-histogram-js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { createLatencyHistogram, MICROSECONDS_PER_SECOND } from '../../stats/latencyHistogram.js';

/** How a request of an open-loop stream ended, as kept in a {@link RequestLog}. */
export const REQUEST_OUTCOME = Object.freeze({
  /** No answer yet (still being sent, waiting or retrying). */
  pending: 0,
  /** Answered with a success. */
  succeeded: 1,
  /** Answered, but not a success (a 503 after the retries). */
  failed: 2,
  /** The send threw (connection refused, reset, …). */
  error: 3,
});

/** Every request of one stream: when it was meant to be sent, when and how it ended. */
export interface RequestLog {
  /** Intended send times, ms from the start of the stream, ascending. */
  readonly intendedMs: Float64Array;
  /** When each request's final answer arrived, ms from the start (unread while pending). */
  readonly answeredMs: Float64Array;
  /** Each request's {@link REQUEST_OUTCOME}. */
  readonly outcome: Uint8Array;
}

/** A window of the stream, ms from its start: [fromMs, toMs). */
export interface TallyWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/** What a population of requests came to. */
export interface WindowCounts {
  /** Requests that ended: succeeded + failed + errors. */
  readonly finished: number;
  readonly succeeded: number;
  /** Answered, not a success. */
  readonly failed: number;
  /** The send threw. */
  readonly errors: number;
  /**
   * Per batch of the window (equal slices of it): requests that ended, and successes among them.
   * A request's batch is that of its send time ({@link tallyBySendTime}) or its answer time
   * ({@link tallyByAnswerTime}).
   */
  readonly batchFinished: readonly number[];
  readonly batchSucceeded: readonly number[];
}

/** The requests sent in a window, each followed to its end. */
export interface SendTimeTally extends WindowCounts {
  /** Requests whose intended send time falls in the window: the population. */
  readonly requests: number;
  /**
   * Of those, still pending when the tally was made (after the drain): neither a success nor a
   * failure, so left out of `finished`; a measurement should have none.
   */
  readonly unfinished: number;
  /** Latency of the successes, intended send time to answer, microseconds (HdrHistogram). */
  readonly histogram: Histogram;
}

/**
 * The requests of a stream whose **intended send time** falls in `window`, each counted by how it
 * ended, whenever its answer came (the caller keeps the load on after the window, for a drain,
 * until they have ended): the population whose fractions are the steady-state probabilities of
 * the model, with no request left out for being slow. A request still pending is `unfinished`.
 * Batches are by send time. Pure: reads the log, returns new values.
 * @param batches - equal slices of the window, ≥ 1.
 * @example
 * ```ts
 * const tally = tallyBySendTime(log, { fromMs: 6000, toMs: 46_000 }, 8);
 * tally.failed / tally.finished; // the end-to-end rejection
 * ```
 */
export function tallyBySendTime(
  log: RequestLog,
  window: TallyWindow,
  batches: number,
): SendTimeTally {
  checkTally(window, batches);
  const { intendedMs, answeredMs, outcome } = log;
  const counts = newCounts(batches);
  const histogram = createLatencyHistogram();
  let requests = 0;
  let unfinished = 0;
  for (let i = 0; i < intendedMs.length; i++) {
    const sentAt = intendedMs[i] as number;
    if (sentAt < window.fromMs) continue;
    if (sentAt >= window.toMs) break; // ascending: nothing later is in the window
    requests++;
    const ended = outcome[i] as number;
    if (ended === REQUEST_OUTCOME.pending) {
      unfinished++;
      continue;
    }
    const batch = batchOf(sentAt, window, batches);
    counts.add(ended, batch);
    if (ended === REQUEST_OUTCOME.succeeded) {
      histogram.recordValue(latencyUs(sentAt, answeredMs[i] as number));
    }
  }
  return { ...counts.result(), requests, unfinished, histogram };
}

/**
 * The requests of a stream whose **answer** arrived in `window`, whenever they were sent: the
 * count the testbed used before the send-time one. It takes in requests sent before the window
 * and leaves out those still pending at its end, so it measures the same fractions as
 * {@link tallyBySendTime} only when the two edges balance (steady state on both sides, a
 * warm-up much longer than the slowest request). Batches are by answer time. Pure.
 */
export function tallyByAnswerTime(
  log: RequestLog,
  window: TallyWindow,
  batches: number,
): WindowCounts {
  checkTally(window, batches);
  const { answeredMs, outcome } = log;
  const counts = newCounts(batches);
  for (let i = 0; i < outcome.length; i++) {
    const ended = outcome[i] as number;
    if (ended === REQUEST_OUTCOME.pending) continue;
    const answeredAt = answeredMs[i] as number;
    if (answeredAt < window.fromMs || answeredAt >= window.toMs) continue;
    counts.add(ended, batchOf(answeredAt, window, batches));
  }
  return counts.result();
}

function checkTally(window: TallyWindow, batches: number): void {
  if (!(window.fromMs >= 0 && window.toMs > window.fromMs)) {
    throw new InvalidArgumentError(
      `window should satisfy 0 ≤ fromMs < toMs, got [${window.fromMs}, ${window.toMs})`,
    );
  }
  if (!(Number.isInteger(batches) && batches >= 1)) {
    throw new InvalidArgumentError(`batches should be an integer ≥ 1, got ${batches}`);
  }
  if (batches > 1 && !Number.isFinite(window.toMs)) {
    throw new InvalidArgumentError('batches > 1 need a finite window');
  }
}

function batchOf(timeMs: number, window: TallyWindow, batches: number): number {
  if (batches === 1) return 0;
  const slice = Math.floor(((timeMs - window.fromMs) / (window.toMs - window.fromMs)) * batches);
  // Rounding can put a time just below toMs into slice `batches`.
  return Math.min(batches - 1, slice);
}

function latencyUs(sentAtMs: number, answeredAtMs: number): number {
  return Math.max(0, Math.round((answeredAtMs - sentAtMs) * (MICROSECONDS_PER_SECOND / 1000)));
}

function newCounts(batches: number) {
  const batchFinished = new Array<number>(batches).fill(0);
  const batchSucceeded = new Array<number>(batches).fill(0);
  let succeeded = 0;
  let failed = 0;
  let errors = 0;
  return {
    add(outcome: number, batch: number) {
      batchFinished[batch]++;
      if (outcome === REQUEST_OUTCOME.succeeded) {
        succeeded++;
        batchSucceeded[batch]++;
      } else if (outcome === REQUEST_OUTCOME.failed) failed++;
      else errors++;
    },
    result: (): WindowCounts => ({
      finished: succeeded + failed + errors,
      succeeded,
      failed,
      errors,
      batchFinished,
      batchSucceeded,
    }),
  };
}
