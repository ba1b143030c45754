import { brentRoot } from './numeric/brent.js';
import type { Phi } from './phi/Phi.js';
import { independentRetryFlows } from './retryFlow.js';
import { FIXED_POINT_TOLERANCE } from './service.js';

/**
 * Solves one service's attempt-rejection fixed point s = φ(ρ(s)) for the arrival rates found at
 * `rates[offset … offset + classCount)` (requests/s, one per class): 0 when they sum to 0.
 */
export type IndependentRejectionSolver = (rates: ArrayLike<number>, offset: number) => number;

/**
 * `attemptRejection` for a service whose classes have no residual-time correction, prepared once
 * for a service that is solved many times (the routing solver re-solves each service of a cycle
 * on every sweep, and the uniqueness check solves each configuration from many starts): the
 * root function is made once, the attempts per request of every retry limit come from one pass
 * ({@link independentRetryFlows}), and a solve allocates nothing but Brent's result. The same
 * method, the same tolerance and the same arithmetic in the same order as `attemptRejection`
 * with the `flow` closure and no α, so the root is identical bit for bit (a test holds the two
 * together). Services with α, or any other per-class law, go through `attemptRejection` itself.
 *
 * @param retryLimits - k_p per class, integers ≥ 0; their count is the number of classes.
 * @param tolerance - absolute tolerance on s, default {@link FIXED_POINT_TOLERANCE}.
 * @example
 * ```ts
 * const solve = independentRejectionSolver(mixedPhi(50), 143, [5, 1]);
 * solve(Float64Array.of(50, 250), 0); // s, as attemptRejection gives it
 * ```
 */
export function independentRejectionSolver(
  phi: Phi,
  capacity: number,
  retryLimits: readonly number[],
  tolerance = FIXED_POINT_TOLERANCE,
): IndependentRejectionSolver {
  const classCount = retryLimits.length;
  const limits = new Int32Array(retryLimits);
  const maxLimit = retryLimits.reduce((most, k) => Math.max(most, k), 0);
  const attemptsByLimit = new Float64Array(maxLimit + 1);
  // The classes with a positive rate, in class order, and the largest limit among them: the
  // only terms attemptRejection adds, set once per solve rather than tested on every evaluation.
  const activeRates = new Float64Array(classCount);
  const activeLimits = new Int32Array(classCount);
  let activeCount = 0;
  let activeMaxLimit = 0;
  // h(s) = s − φ(ρ(s)), ρ(s) = Σ_p λ_p A_p(s) / μ, as in attemptRejection (s̄ = s without α).
  const h = (s: number): number => {
    independentRetryFlows(s, activeMaxLimit, attemptsByLimit);
    let attempts = 0;
    for (let k = 0; k < activeCount; k++) {
      attempts +=
        (activeRates[k] as number) * (attemptsByLimit[activeLimits[k] as number] as number);
    }
    return s - phi(attempts / capacity);
  };
  return (rates, offset) => {
    let totalRate = 0;
    activeCount = 0;
    activeMaxLimit = 0;
    for (let p = 0; p < classCount; p++) {
      const rate = rates[offset + p] as number;
      totalRate += rate;
      if (rate > 0) {
        const limit = limits[p] as number;
        activeRates[activeCount] = rate;
        activeLimits[activeCount++] = limit;
        if (limit > activeMaxLimit) activeMaxLimit = limit;
      }
    }
    if (totalRate <= 0) return 0;
    let root = brentRoot(h, 0, 1, tolerance).root;
    // As in attemptRejection: in extreme overload refine on the last bracket to machine precision.
    if (1 - root < 1e-6) {
      const lo = Math.max(0, root - 2 * tolerance);
      if (h(lo) < 0) root = brentRoot(h, lo, 1, 0).root;
    }
    return Math.min(Math.max(root, 0), 1);
  };
}
