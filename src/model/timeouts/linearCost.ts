import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { AttemptCost } from './LatencyDistribution.js';

/** Default slope of {@link linearCost}: 0, so E is the plain expected latency (s). */
export const DEFAULT_COST_SLOPE = 0;

/**
 * The linear attempt cost g(t) = c0 + c1·t, in seconds of latency-equivalent per attempt sent
 * with timeout t (docs/design.md: "default linear, g(t) = c·t").
 *
 * Defaults c0 = 0 and c1 = 0: the objective E is then the caller's plain expected latency, the
 * figure the timeout evaluation scores (Time Fraction), and a sequence is judged only by how
 * fast calls complete. Give c1 > 0 to charge the work an attempt puts on the server: c1 = 0.1
 * counts each second an attempt may run as 0.1 s of caller latency, which pushes the optimum
 * towards fewer, longer attempts.
 * @example
 * ```ts
 * const cost = linearCost({ c1: 0.1 });
 * cost.g(2); // 0.2
 * ```
 */
export function linearCost(options: Readonly<{ c0?: number; c1?: number }> = {}): AttemptCost {
  const c0 = options.c0 ?? 0;
  const c1 = options.c1 ?? DEFAULT_COST_SLOPE;
  if (!(Number.isFinite(c0) && c0 >= 0)) {
    throw new InvalidArgumentError(`cost c0 should be a finite number ≥ 0, got ${c0}`);
  }
  if (!(Number.isFinite(c1) && c1 >= 0)) {
    throw new InvalidArgumentError(`cost c1 should be a finite number ≥ 0, got ${c1}`);
  }
  // With c1 = 0, g(∞) is c0, not 0·∞ = NaN (t = ∞: an attempt without a timeout).
  return { g: (t) => (c1 === 0 ? c0 : c0 + c1 * t), dg: () => c1 };
}
