import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/**
 * The soak's open-loop pacing (scripts/soak.ts): arrivals at a fixed rate, evenly spaced, whatever
 * the answers do — overload must not slow the load down, or 10× would quietly become less. Pure:
 * the executor passes the elapsed time.
 */

/**
 * How many arrivals of a load at `ratePerSecond` are due after `elapsedMs`, given `issued` so far:
 * `⌊rate · t⌋ − issued`, at most `maxBurst` (after a stalled event loop the load catches up a burst at
 * a time, not all at once), never negative.
 * @param ratePerSecond requests per second, ≥ 0.
 * @param elapsedMs time since the load started, ms.
 * @param issued arrivals issued so far (sent, or skipped at the in-flight bound).
 * @param maxBurst the most arrivals one call may return, ≥ 1.
 * @throws RangeError for a negative or non-finite rate, or a bad burst bound.
 * @example
 * ```ts
 * arrivalsDue(400, 25, 8, 100); // 2: ⌊400 · 0.025⌋ = 10 due, 8 issued
 * ```
 */
export function arrivalsDue(
  ratePerSecond: number,
  elapsedMs: number,
  issued: number,
  maxBurst: number,
): number {
  if (!(ratePerSecond >= 0 && Number.isFinite(ratePerSecond))) {
    throw new InvalidArgumentError(
      `ratePerSecond should be a finite number ≥ 0, got ${ratePerSecond}`,
    );
  }
  if (!(Number.isInteger(maxBurst) && maxBurst >= 1)) {
    throw new InvalidArgumentError(`maxBurst should be an integer ≥ 1, got ${maxBurst}`);
  }
  const due = Math.floor((ratePerSecond * Math.max(0, elapsedMs)) / 1000) - issued;
  return Math.min(maxBurst, Math.max(0, due));
}

/**
 * The arrivals of one tick in a random order (Fisher–Yates, a new array): the kinds come due
 * together at a tick, and in a fixed order the first kind would always take the admission place
 * that came free since the last tick, so a rare kind (a faulty path) would never be admitted.
 * @param random uniforms in [0, 1) (the soak passes a seeded source).
 * @example
 * ```ts
 * shuffled(['a', 'b', 'c'], seededRandom(13)); // a permutation, the same one for the same seed
 * ```
 */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const swap = out[i] as T;
    out[i] = out[j] as T;
    out[j] = swap;
  }
  return out;
}
