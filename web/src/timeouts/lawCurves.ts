import { bisector } from 'd3';
import { type AttemptCost, type LatencyDistribution, singleTimeout } from 'difftry/model';

/** One point of Fig 2's curves: at timeout t (s), f(t) (1/s), g(t) (s) and E(t) (s). */
export interface LawCurvePoint {
  readonly t: number;
  readonly density: number;
  readonly cost: number;
  /** E(t) = a(t)/(1 − b(t)): one timeout t repeated until an attempt completes; may be +∞. */
  readonly E: number;
}

/**
 * The law's density, the attempt cost and E(t) at `points` evenly spaced timeouts over
 * (0, upperS] (t = 0 left out: no attempt completes there).
 * @example
 * ```ts
 * lawCurves(law, linearCost(), 2.5, 400).map((p) => p.E);
 * ```
 */
export function lawCurves(
  law: LatencyDistribution,
  cost: AttemptCost,
  upperS: number,
  points: number,
): LawCurvePoint[] {
  return Array.from({ length: points }, (_, k) => {
    const t = (upperS * (k + 1)) / points;
    return { t, density: law.density(t), cost: cost.g(t), E: singleTimeout(law, t, cost).E };
  });
}

const byTime = bisector((point: LawCurvePoint) => point.t).center;

/** The sampled point nearest timeout `t` (s), for a tooltip; undefined for no points. */
export function nearestCurvePoint(
  curves: readonly LawCurvePoint[],
  t: number,
): LawCurvePoint | undefined {
  return curves[byTime(curves, t)];
}
