import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/**
 * Keeps the times a budget is told in order: a `nowMs` earlier than one already seen is taken as
 * the latest seen, and a non-finite one is a RangeError naming it.
 *
 * Why: one budget is shared by many calls, and their executors may read the clock at slightly
 * different moments (or a wall clock may step back). Letting time run backwards would reopen
 * expired window slices and make a budget's answer depend on the order of concurrent callbacks.
 */
export function monotonicTime(): (nowMs: number) => number {
  let latestMs = Number.NEGATIVE_INFINITY;
  return (nowMs) => {
    if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
      throw new InvalidArgumentError(
        `nowMs should be a finite number of milliseconds, got ${String(nowMs)}`,
      );
    }
    if (nowMs > latestMs) latestMs = nowMs;
    return latestMs;
  };
}
