import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { AttemptCost, LatencyDistribution } from './LatencyDistribution.js';
import { linearCost } from './linearCost.js';
import { singleTimeout } from './singleTimeout.js';

/** The best single timeout repeated until success, and its expected latency (s). */
export interface SingleTimeoutOptimum {
  readonly timeout: number;
  readonly E: number;
}

/** Golden-section search stops when its bracket is this small relative to its upper end. */
const RELATIVE_TOLERANCE = 1e-9;
const INV_PHI = (Math.sqrt(5) - 1) / 2;
/**
 * Most golden-section steps: each shrinks the bracket by 1/φ, so 200 take it below 1e-41 of its
 * width, far past the tolerance for any normal number. It ends the search where the tolerance
 * cannot be met: for subnormal timeouts (`5e-324`) 1e-9 × b underflows to 0 while b − a stays at
 * one unit in the last place, and the loop would never end.
 */
const MAX_REFINEMENTS = 200;

/**
 * The timeout t that minimises E(t) = a(t) / (1 − b(t)) when repeated until an attempt completes:
 * E on `points` geometrically spaced timeouts over [minObserved, max(maxObserved, upper)], then
 * golden-section refinement between the best point's neighbours, to 1e-9 relative (at most 200
 * steps). A minimum narrower than the grid spacing can be missed.
 * @param cost - g(t); default {@link linearCost}().
 * @param points - grid points, default 128.
 * @example
 * ```ts
 * bestSingleTimeout(lognormalLatency({ median: 0.1, sigma: 1 })).timeout;
 * ```
 */
export function bestSingleTimeout(
  distribution: LatencyDistribution,
  cost: AttemptCost = linearCost(),
  options: Readonly<{ points?: number; upper?: number }> = {},
): SingleTimeoutOptimum {
  const points = options.points ?? 128;
  if (!(Number.isInteger(points) && points >= 3)) {
    throw new InvalidArgumentError(`points should be an integer ≥ 3, got ${points}`);
  }
  const low = distribution.minObserved;
  const high = Math.max(distribution.maxObserved, options.upper ?? 0);
  if (!(low > 0 && high >= low && Number.isFinite(high))) {
    throw new InvalidArgumentError(
      `the timeout range should be positive and finite, got [${low}, ${high}]`,
    );
  }
  const E = (t: number): number => singleTimeout(distribution, t, cost).E;
  const grid = geometricPoints(low, high, points);
  let best = 0;
  let bestE = Number.POSITIVE_INFINITY;
  for (let k = 0; k < points; k++) {
    const value = E(grid[k] as number);
    if (value < bestE) {
      bestE = value;
      best = k;
    }
  }
  if (!Number.isFinite(bestE)) {
    throw new InvalidArgumentError(`no timeout in [${low}, ${high}] s lets an attempt complete`);
  }
  let a = grid[Math.max(0, best - 1)] as number;
  let b = grid[Math.min(points - 1, best + 1)] as number;
  let c = b - INV_PHI * (b - a);
  let d = a + INV_PHI * (b - a);
  let Ec = E(c);
  let Ed = E(d);
  for (let step = 0; step < MAX_REFINEMENTS && b - a > RELATIVE_TOLERANCE * b; step++) {
    if (Ec < Ed) {
      b = d;
      d = c;
      Ed = Ec;
      c = b - INV_PHI * (b - a);
      Ec = E(c);
    } else {
      a = c;
      c = d;
      Ec = Ed;
      d = a + INV_PHI * (b - a);
      Ed = E(d);
    }
  }
  const refined = (a + b) / 2;
  const refinedE = E(refined);
  return refinedE <= bestE
    ? { timeout: refined, E: refinedE }
    : { timeout: grid[best] as number, E: bestE };
}

/** `count` points from `low` to `high` with a constant ratio (both ends included). */
export function geometricPoints(low: number, high: number, count: number): Float64Array {
  const points = new Float64Array(count);
  // log(high) − log(low), not log(high / low): the quotient overflows to Infinity for a range
  // wider than about 1e308 (5e-324 to 0.1 s), and every point would be NaN.
  const ratio = (Math.log(high) - Math.log(low)) / (count - 1);
  for (let k = 0; k < count; k++) points[k] = low * Math.exp(ratio * k);
  points[count - 1] = high;
  return points;
}
