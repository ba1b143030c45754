import { type RoutingState, routingState } from './RoutingState.js';
import type { RoutingPlan } from './routingPlan.js';
import { type RoutingSolution, routingSolution, type SettleResult } from './solveRouting.js';

/**
 * A solved state of a routing network with per-try timeouts: the routing tables, with what the
 * timeouts add per service i and class p.
 */
export interface TimedRoutingSolution extends RoutingSolution {
  /** Offered load per service, attempts / μ (a timed service's local root). */
  readonly rho: number[];
  /** Probability that one attempt at i succeeds: accepted and back within its timeout. */
  readonly attemptSuccess: number[][];
  /** τ: probability that an accepted attempt at i outlives its per-try timeout. */
  readonly timeoutProbability: number[][];
  /** Whether the sweeps settle on it (always, for the routing solver: it has no continuation). */
  readonly stable: boolean;
}

/** Attempt success q = (1 − s_i)(1 − τ_i^p) per cell of a state, into `out`. */
export function attemptSuccessInto(
  plan: RoutingPlan,
  state: RoutingState,
  out: Float64Array,
): void {
  const classCount = plan.classCount;
  for (let i = 0; i < plan.serviceCount; i++) {
    const accepted = 1 - (state.s[i] as number);
    for (let k = i * classCount; k < (i + 1) * classCount; k++)
      out[k] = accepted * (1 - (state.abandoned[k] as number));
  }
}

/** The largest |Δq| between a state and attempt successes given per cell. */
export function attemptSuccessDistance(
  plan: RoutingPlan,
  state: RoutingState,
  attemptSuccess: ArrayLike<number>,
): number {
  const classCount = plan.classCount;
  let most = 0;
  for (let i = 0; i < plan.serviceCount; i++) {
    const accepted = 1 - (state.s[i] as number);
    for (let k = i * classCount; k < (i + 1) * classCount; k++) {
      const q = accepted * (1 - (state.abandoned[k] as number));
      const d = Math.abs(q - (attemptSuccess[k] as number));
      if (d > most || Number.isNaN(d)) most = d;
    }
  }
  return most;
}

/** A copy of a state (every table). */
export function copyRoutingState(plan: RoutingPlan, state: RoutingState): RoutingState {
  const copy = routingState(plan);
  restoreRoutingState(copy, state);
  return copy;
}

/** Sets every table of `state` from `from`. */
export function restoreRoutingState(state: RoutingState, from: RoutingState): void {
  state.lambdaIn.set(from.lambdaIn);
  state.lambdaOut.set(from.lambdaOut);
  state.attempts.set(from.attempts);
  state.rejection.set(from.rejection);
  state.s.set(from.s);
  state.rho.set(from.rho);
  state.abandoned.set(from.abandoned);
}

/** The solution tables of a settled timed state (see {@link TimedRoutingSolution}). */
export function timedRoutingSolution(
  plan: RoutingPlan,
  state: RoutingState,
  settled: SettleResult,
): TimedRoutingSolution {
  const { serviceCount: n, classCount } = plan;
  const q = new Float64Array(n * classCount);
  attemptSuccessInto(plan, state, q);
  const table = (flat: Float64Array): number[][] =>
    Array.from({ length: n }, (_, i) =>
      Array.from(flat.subarray(i * classCount, (i + 1) * classCount)),
    );
  const rho = Array.from({ length: n }, (_, i) => {
    if (plan.timed?.timedService[i] === 1) return state.rho[i] as number;
    let attempts = 0;
    for (let k = i * classCount; k < (i + 1) * classCount; k++)
      attempts += state.attempts[k] as number;
    return attempts / (plan.services[i]?.capacity ?? 1);
  });
  return {
    ...routingSolution(plan, state, settled),
    rho,
    attemptSuccess: table(q),
    timeoutProbability: table(state.abandoned),
    stable: settled.converged,
  };
}

/** Every external rate of a plan × `scale` (the plan's other tables shared). */
export function scaledRoutingPlan(plan: RoutingPlan, scale: number): RoutingPlan {
  if (scale === 1) return plan;
  const gamma = plan.gamma.map((g) => g * scale);
  const totalExternal = plan.totalExternal * scale;
  return {
    ...plan,
    gamma,
    totalExternal,
    floor: 1e-9 * Math.max(totalExternal, Number.MIN_VALUE),
  };
}
