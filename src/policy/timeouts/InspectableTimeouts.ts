import type { TimeoutStrategy } from './TimeoutStrategy.js';

/**
 * A {@link TimeoutStrategy} that shows what it would do, for reports and the simulator's traces.
 * Both methods only read: calling them never changes what the strategy answers next.
 */
export interface InspectableTimeouts<State> extends TimeoutStrategy {
  /**
   * The per-try timeouts (ms) a request beginning now would get, attempt 0 first, up to the
   * element that repeats: `next(i)` is `sequence()[min(i, length − 1)]`.
   */
  sequence(): readonly number[];
  /** A snapshot of the strategy's learnt state (a fresh object each call). */
  state(): State;
}

/** The longest {@link InspectableTimeouts.sequence} a geometric strategy reports. */
export const MAX_REPORTED_ELEMENTS = 64;

/**
 * The sequence of a strategy whose `next(attempt)` is non-decreasing and eventually constant:
 * elements until one equals the one before it (which then repeats), at most
 * {@link MAX_REPORTED_ELEMENTS}.
 */
export function geometricSequence(timeoutOf: (attempt: number) => number): number[] {
  const sequence = [timeoutOf(0)];
  for (let attempt = 1; attempt < MAX_REPORTED_ELEMENTS; attempt++) {
    const timeoutMs = timeoutOf(attempt);
    if (timeoutMs === sequence[sequence.length - 1]) break;
    sequence.push(timeoutMs);
  }
  return sequence;
}
