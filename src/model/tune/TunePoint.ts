import type { TuneMetrics } from './TuneMetrics.js';

/** One assessed setting of retry limits: its metrics, objective and standing on the constraints. */
export interface TunePoint {
  /** k_p per class, applied at every hop. */
  readonly limits: readonly number[];
  readonly metrics: TuneMetrics;
  /** The objective's value (requests per second, weighted or not). */
  readonly objective: number;
  /**
   * Per constraint (in the order given), by how much the point breaks it, in the metric's unit;
   * 0 when it holds.
   */
  readonly excess: readonly number[];
  /**
   * Σ over constraints of the excess relative to the bound (see `relativeExcess`): 0 exactly when
   * every constraint holds. Ranks infeasible points by how far they are from feasible.
   */
  readonly violation: number;
  /** Every constraint holds and the analysis converged. */
  readonly feasible: boolean;
}

/** Σ_p k_p: the tie-breaker that prefers fewer retries. */
export function totalRetries(point: TunePoint): number {
  let total = 0;
  for (const k of point.limits) total += k;
  return total;
}

/** Significant digits at which the tuner compares objectives and costs unless told otherwise. */
export const DEFAULT_SIGNIFICANT_DIGITS = 10;

/**
 * A value rounded to `digits` significant digits (default 10). Points are compared on these, so
 * that round-off in the fixed points (about 1e-12 relative) does not make a tie look like a win,
 * and, with fewer digits, so that a gain too small to matter does not buy extra retries; ties
 * then fall to the tie-breakers.
 */
export function comparable(value: number, digits = DEFAULT_SIGNIFICANT_DIGITS): number {
  return value === 0 || !Number.isFinite(value) ? value : Number(value.toPrecision(digits));
}

/**
 * Orders points that are otherwise equal: fewer total retries first, then lexicographically
 * smaller limits. Negative when `a` is preferred.
 */
export function compareByRetries(a: TunePoint, b: TunePoint): number {
  const byTotal = totalRetries(a) - totalRetries(b);
  if (byTotal !== 0) return byTotal;
  for (let p = 0; p < a.limits.length; p++) {
    const difference = (a.limits[p] ?? 0) - (b.limits[p] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
