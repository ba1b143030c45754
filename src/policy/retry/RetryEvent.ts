import type { AttemptOutcome } from './AttemptOutcome.js';
import type { GiveUpReason } from './RetryPolicy.js';

/** An event of a call: a retry, a give-up, a success, or a failed attempt. */
export interface RetryEvent {
  readonly className: string;
  /**
   * Attempts made so far, including the one this event is about (a give-up on a deadline spent
   * before an attempt counts only those sent: 0 for a call whose deadline was spent on arrival).
   */
  readonly attempts: number;
  readonly outcome: AttemptOutcome;
  /** The retry's delay (a `retry` event), ms. */
  readonly delayMs?: number;
  /** Why the call stopped (a `giveUp` event). */
  readonly reason?: GiveUpReason;
  /** What an attempt threw, if it threw. */
  readonly error?: unknown;
}

/** The four events of a call, in the order a failed attempt raises them: failure, then retry or giveUp. */
export type RetryEventKind = 'failure' | 'retry' | 'giveUp' | 'success';

/**
 * Where a {@link CallTracker} sends its events. `wants` is asked before an event is built, so a
 * call nobody listens to builds none.
 */
export interface RetryEventSink {
  wants(kind: RetryEventKind): boolean;
  emit(kind: RetryEventKind, event: RetryEvent): void;
}
