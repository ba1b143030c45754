import type { RoutingPlan } from './routingPlan.js';

/**
 * The working tables of `settleRouting` for one plan, per service i and class p, flat
 * (`i × classCount + p`): after a settle, the solved state. Reused from solve to solve.
 */
export interface RoutingState {
  /** λin_i^p, requests/s. */
  readonly lambdaIn: Float64Array;
  /** λout_i^p = λin_i^p (1 − R_i^p), requests/s. */
  readonly lambdaOut: Float64Array;
  /** Λ_i^p, attempts/s. */
  readonly attempts: Float64Array;
  /** R_i^p. */
  readonly rejection: Float64Array;
  /** s_i, per service. */
  readonly s: Float64Array;
  /**
   * ρ_i, per service, where a per-try timeout makes the local solve need it: the offered load of
   * a timed service (its local root), and where the next local solve starts. Unused without
   * timeouts.
   */
  readonly rho: Float64Array;
  /** τ_i^p, the probability that an accepted attempt outlives its per-try timeout (0: none). */
  readonly abandoned: Float64Array;
}

/** Fresh working tables for a plan. */
export function routingState(plan: RoutingPlan): RoutingState {
  const size = plan.serviceCount * plan.classCount;
  return {
    lambdaIn: new Float64Array(size),
    lambdaOut: new Float64Array(size),
    attempts: new Float64Array(size),
    rejection: new Float64Array(size),
    s: new Float64Array(plan.serviceCount),
    rho: new Float64Array(plan.serviceCount),
    abandoned: new Float64Array(size),
  };
}
