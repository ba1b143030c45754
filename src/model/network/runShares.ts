import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/**
 * What a finite run started in the healthy state sees of a bistable service (docs/model.md,
 * "What a run of a given length sees"): the service switches between its two states as a
 * two-state Markov process, leaving the healthy state at rate a = 1/τ_healthy and the storm at
 * b = 1/τ_storm (the orbit law's escape times). Started healthy at 0, the probability of being in
 * the storm at t is a/(a + b) (1 − e^(−(a+b)t)); averaged over the window [from, to] the share
 * of time in the storm is
 *   a/(a + b) · (1 − (e^(−(a+b)·from) − e^(−(a+b)·to)) / ((a + b)(to − from))).
 * A measured figure that is a time average (a rejection share at a fixed request rate) is then
 * the healthy state's figure and the storm's weighted by these shares.
 */

/** Each state's share of the time of a run's window. */
export interface RunShares {
  readonly healthy: number;
  readonly storm: number;
}

/**
 * The shares of the window [`from`, `to`] seconds a run spends in each state, started in the
 * healthy state at 0 (see the file's doc). An infinite escape time is a state never left; a
 * zero one a state left at once.
 * @throws RangeError for negative or NaN escape times, or a window that is not 0 ≤ from < to.
 * @example
 * ```ts
 * // A healthy state that lasts 100 s on average beside a storm that is never left, watched
 * // from 30 s to 300 s: the storm holds about 0.74 of the window.
 * runShares(100, Infinity, 30, 300).storm; // ≈ 0.7441
 * ```
 */
export function runShares(
  healthyEscape: number,
  stormEscape: number,
  from: number,
  to: number,
): RunShares {
  for (const [name, value] of [
    ['healthy', healthyEscape],
    ['storm', stormEscape],
  ] as const) {
    if (!(value >= 0))
      throw new InvalidArgumentError(`the ${name} escape time should be ≥ 0 s, got ${value}`);
  }
  if (!(from >= 0 && to > from && Number.isFinite(to))) {
    throw new InvalidArgumentError(
      `the window should be 0 ≤ from < to < ∞ seconds, got [${from}, ${to}]`,
    );
  }
  const a = 1 / healthyEscape;
  const b = 1 / stormEscape;
  if (a === 0) return { healthy: 1, storm: 0 };
  if (!Number.isFinite(a)) {
    // Left at once: in the storm from the start unless the storm is left at once too (then
    // the run flips without end and holds each half the time).
    const storm = Number.isFinite(b) ? 1 : 0.5;
    return { healthy: 1 - storm, storm };
  }
  const rate = a + b;
  const limit = a / rate;
  // (e^(−r·from) − e^(−r·to)) / (r (to − from)), the mean of e^(−r t) over the window, written
  // with expm1 so it stays exact when r (to − from) is small.
  const span = rate * (to - from);
  const meanDecay = span > 0 ? (Math.exp(-rate * from) * -Math.expm1(-span)) / span : 1;
  const storm = Math.min(Math.max(limit * (1 - meanDecay), 0), 1);
  return { healthy: 1 - storm, storm };
}
