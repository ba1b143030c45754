import {
  attemptsPerRequestAt,
  hopSuccess,
  type TimedServiceLoad,
  timedServiceLoad,
  timedTimeoutProbability,
} from '../queue/timedServiceLoad.js';
import type { RoutingState } from './RoutingState.js';
import type { RoutingPlan } from './routingPlan.js';

/**
 * Solves a routing service with per-try timeouts at its current λin (docs/model.md, "Per-try
 * timeouts", routing form): an attempt at i is retried by i's hop up to k_i^p times, and a
 * per-try timeout covers i's own sojourn only (after success the request moves on by routes).
 * For class p an attempt fails with f = s + (1 − s) τ_p, τ_p the M/M/1/m sojourn tail at ρ_i
 * beyond μ_i T_i^p; the server still does the abandoned work, so the offered load counts every
 * attempt: ρ_i = Σ_p λin_p A_p(ρ_i)/μ_i, A_p = (1 − f^(k+1))/(1 − f), R_p = f^(k+1),
 * λout_p = λin_p (1 − R_p). The local root is {@link timedServiceLoad}'s from the state's ρ_i
 * (`settleRouting` sets where it starts); writes ρ_i, s_i, τ, Λ, R and λout of i into `state`.
 */
export function updateTimedService(plan: RoutingPlan, state: RoutingState, i: number): void {
  const timed = plan.timed;
  const service = plan.services[i];
  if (timed === undefined || service === undefined) return;
  const classCount = plan.classCount;
  const base = i * classCount;
  const view: TimedServiceLoad = {
    capacity: service.capacity,
    queue: timed.queue[i] as number,
    phi: service.phi,
    classCount,
    offset: base,
    arrivals: state.lambdaIn,
    retryLimits: plan.retryLimits,
    timeouts: timed.timeout,
  };
  const rho = timedServiceLoad(view, state.rho[i] as number);
  const s = service.phi(rho);
  state.rho[i] = rho;
  state.s[i] = s;
  const { lambdaIn, lambdaOut, attempts, rejection, abandoned } = state;
  for (let p = 0; p < classCount; p++) {
    const k = base + p;
    const tau = timedTimeoutProbability(view, p, rho);
    const q = (1 - s) * (1 - tau);
    const limit = plan.retryLimits[k] as number;
    const rate = lambdaIn[k] as number;
    abandoned[k] = tau;
    attempts[k] = rate * attemptsPerRequestAt(q, limit);
    // R = (1 − q)^(k+1) directly, so a tiny rejection keeps its digits.
    rejection[k] = q >= 1 ? 0 : Math.exp((limit + 1) * Math.log1p(-q));
    lambdaOut[k] = rate * hopSuccess(q, limit);
  }
}
