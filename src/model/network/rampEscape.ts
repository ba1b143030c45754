import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/** A state's escape rate at one load: 0 where it cannot leave, ∞ where it does not exist. */
export interface EscapeRatePoint {
  /** The load (any unit the ramp uses, e.g. requests/s). */
  readonly load: number;
  /** 1 / (mean time to leave the state), per second. */
  readonly rate: number;
}

/** Where a state is left on a ramp of the load (see {@link rampEscape}). */
export interface RampEscape {
  /** The mean load at which it is left, over the runs that leave it during the ramp. */
  readonly meanLoad: number;
  /** The load by which half the runs have left it (NaN when fewer than half do). */
  readonly medianLoad: number;
  /** The probability that it is left before the ramp ends. */
  readonly left: number;
}

/** Time steps of the ramp's integration. */
const STEPS = 4000;

/**
 * A state held while the load moves linearly from `from` to `to` over `seconds`, left at the
 * escape rate r(load) of `points` (as a Markov process: survival exp(−∫ r dt)): the load at which
 * it is left, on average and at the median. Between two points the rate is interpolated
 * log-linearly where both are positive and finite; where one is 0 or ∞ the nearer point's
 * value holds. `points` must be sorted by load; outside them the end points' rates hold.
 * @throws RangeError for no points, unsorted loads, a negative rate, or `seconds` ≤ 0.
 * @example
 * ```ts
 * // A healthy state that lasts for good up to 60/s and does not exist beyond: left at 60/s.
 * rampEscape([{ load: 10, rate: 0 }, { load: 59.99, rate: 0 }, { load: 60, rate: Infinity }],
 *   10, 80, 600).medianLoad; // ≈ 60
 * ```
 */
export function rampEscape(
  points: readonly EscapeRatePoint[],
  from: number,
  to: number,
  seconds: number,
): RampEscape {
  if (points.length === 0) throw new InvalidArgumentError('rampEscape needs at least one point');
  if (!(seconds > 0)) throw new InvalidArgumentError(`the ramp should last > 0 s, got ${seconds}`);
  for (let i = 0; i < points.length; i++) {
    const point = points[i] as EscapeRatePoint;
    if (!(point.rate >= 0))
      throw new InvalidArgumentError(`escape rates should be ≥ 0, got ${point.rate}`);
    if (i > 0 && !((points[i - 1] as EscapeRatePoint).load < point.load))
      throw new InvalidArgumentError('the points should be sorted by load, each load once');
  }
  const rateAt = (load: number): number => {
    const first = points[0] as EscapeRatePoint;
    const last = points[points.length - 1] as EscapeRatePoint;
    if (load <= first.load) return first.rate;
    if (load >= last.load) return last.rate;
    let i = 1;
    while ((points[i] as EscapeRatePoint).load < load) i++;
    const a = points[i - 1] as EscapeRatePoint;
    const b = points[i] as EscapeRatePoint;
    const x = (load - a.load) / (b.load - a.load);
    if (a.rate > 0 && b.rate > 0 && Number.isFinite(a.rate) && Number.isFinite(b.rate))
      return Math.exp((1 - x) * Math.log(a.rate) + x * Math.log(b.rate));
    return x < 0.5 ? a.rate : b.rate;
  };
  const dt = seconds / STEPS;
  let survival = 1;
  let weighted = 0;
  let medianLoad = Number.NaN;
  for (let k = 0; k < STEPS; k++) {
    // The load at the step's middle, the rate held over the step (exact for a constant rate).
    const load = from + ((to - from) * (k + 0.5)) / STEPS;
    const r = rateAt(load);
    const next = Number.isFinite(r) ? survival * Math.exp(-r * dt) : 0;
    const leaving = survival - next;
    if (leaving > 0) {
      weighted += leaving * load;
      if (Number.isNaN(medianLoad) && next <= 0.5) {
        // Within the step: where survival crosses ½ (at its start for an infinite rate).
        const share = Number.isFinite(r) && r > 0 ? Math.log(survival / 0.5) / (r * dt) : 0;
        medianLoad = from + ((to - from) * (k + Math.min(Math.max(share, 0), 1))) / STEPS;
      }
    }
    survival = next;
    if (survival === 0) break;
  }
  const left = 1 - survival;
  return { meanLoad: left > 0 ? weighted / left : Number.NaN, medianLoad, left };
}
