import { independentRetryFlows, retryFlow } from '../retryFlow.js';
import { attemptRejection, FIXED_POINT_TOLERANCE } from '../service.js';
import { completionProbabilities } from './completionProbabilities.js';
import type { NetworkModel } from './NetworkModel.js';
import { type RoutingState, routingState } from './RoutingState.js';
import { compileRouting, INNER_TOLERANCE, type RoutingPlan } from './routingPlan.js';
import { updateTimedService } from './timedRoutingService.js';

export { INNER_TOLERANCE } from './routingPlan.js';

/** Options of {@link solveRouting}. */
export interface RoutingSolveOptions {
  /**
   * Relative tolerance on every λin between two sweeps; default 1e-12.
   * @default 1e-12
   */
  readonly tolerance?: number;
  /**
   * Most Gauss–Seidel sweeps before giving up; default 10,000.
   * @default 10_000
   */
  readonly maxIterations?: number;
  /**
   * Starting λin per service and class (requests/s); default the external arrivals γ. Used to
   * check that different starts reach the same fixed point.
   * @default the external arrivals γ
   */
  readonly initialIn?: readonly (readonly number[])[];
}

/** The solved state of a routing network: per service i and class p. */
export interface RoutingSolution {
  readonly lambdaIn: number[][];
  readonly lambdaOut: number[][];
  readonly attempts: number[][];
  readonly rejection: number[][];
  readonly s: number[];
  /** Completion probability C_i^p of a class-p request entering at i. */
  readonly completion: number[][];
  readonly converged: boolean;
  readonly iterations: number;
  /** Largest relative change of λin in the last sweep. */
  readonly residual: number;
}

/**
 * Solves the generalised flow model of a routing network (docs/design.md, "A network"):
 * λin_i^p = γ_i^p + Σ_j λout_j^p F^p_ji, λout_i^p = λin_i^p (1 − R_i^p(s_i)), with each s_i the
 * single-service fixed point of service i at its own λin (2NP unknowns).
 *
 * - A DAG is solved in one pass in topological order (the unique solution).
 * - With cycles, the strongly connected components are taken in topological order: a service on
 *   no cycle is solved once, when everything upstream is final; the services of each cycle are
 *   swept Gauss–Seidel (each updated from the latest λout of the others) from λin = γ until no
 *   λin changes by more than `tolerance` relative (flows under 1e-9 of the total external rate
 *   count absolutely), or `maxIterations` sweeps (then `converged` is false). `iterations` is
 *   the most sweeps any cycle needed.
 *
 * Completion probabilities solve C_i = (1 − R_i)((1 − Σ_j F_ij) + Σ_j F_ij C_j), exactly in reverse
 * topological order for a DAG, else by iteration to 1e-15.
 *
 * The network is compiled ({@link compileRouting}) and then settled ({@link settleRouting}): to
 * solve one network from many starts, compile it once and call `settleRouting` for each.
 * @throws {RangeError} naming the service and the bad value.
 */
export function solveRouting(
  network: NetworkModel,
  options: RoutingSolveOptions = {},
): RoutingSolution {
  const plan = compileRouting(network);
  const { serviceCount: n, classCount } = plan;
  const state = routingState(plan);
  let initialIn: Float64Array | undefined;
  if (options.initialIn !== undefined) {
    initialIn = new Float64Array(n * classCount);
    for (let i = 0; i < n; i++) {
      for (let p = 0; p < classCount; p++) {
        const k = i * classCount + p;
        initialIn[k] = options.initialIn[i]?.[p] ?? (plan.gamma[k] as number);
      }
    }
  }
  const settled = settleRouting(plan, state, {
    tolerance: options.tolerance,
    maxIterations: options.maxIterations,
    initialIn,
  });
  return routingSolution(plan, state, settled);
}

/** The solution tables of a settled state, as plain arrays, with completion probabilities. */
export function routingSolution(
  plan: RoutingPlan,
  state: RoutingState,
  settled: SettleResult,
): RoutingSolution {
  const { serviceCount: n, classCount } = plan;
  const table = (flat: Float64Array): number[][] =>
    Array.from({ length: n }, (_, i) =>
      Array.from(flat.subarray(i * classCount, (i + 1) * classCount)),
    );
  const rejection = table(state.rejection);
  return {
    lambdaIn: table(state.lambdaIn),
    lambdaOut: table(state.lambdaOut),
    attempts: table(state.attempts),
    rejection,
    s: Array.from(state.s),
    completion: completionProbabilities(plan.rows, rejection, plan.topologicalOrder),
    ...settled,
  };
}

/** Options of {@link settleRouting}: those of {@link solveRouting}, with a flat start. */
export interface SettleOptions {
  readonly tolerance?: number | undefined;
  readonly maxIterations?: number | undefined;
  /** Starting λin, flat (`i × classCount + p`), requests/s; default γ. */
  readonly initialIn?: ArrayLike<number> | undefined;
  /**
   * Where the local solves of services with per-try timeouts start (ignored without them):
   * `idle` (ρ = 0: each takes the lowest root, the healthy state), `saturated` (ρ = ∞, every
   * attempt failing: the highest root, the storm), or `state` (the state's current ρ, a warm
   * start: the nearest root in the direction the arrivals push). @default 'idle'
   */
  readonly from?: 'idle' | 'saturated' | 'state' | undefined;
}

/** How a settle ended. */
export interface SettleResult {
  readonly converged: boolean;
  /** The most sweeps any cycle needed (1 for a DAG). */
  readonly iterations: number;
  /** Largest relative change of λin in the last sweep. */
  readonly residual: number;
}

/**
 * The routing fixed point of a compiled network, into `state`: the sweeps of
 * {@link solveRouting} (which calls this), from `initialIn` (default γ). Solving the same plan
 * from many starts reuses everything but the state; the result depends only on the plan and the
 * start, bit for bit.
 */
export function settleRouting(
  plan: RoutingPlan,
  state: RoutingState,
  options: SettleOptions = {},
): SettleResult {
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const maxIterations = options.maxIterations ?? 10_000;
  if (options.initialIn === undefined) state.lambdaIn.set(plan.gamma);
  else state.lambdaIn.set(options.initialIn);
  state.lambdaOut.fill(0);
  state.attempts.fill(0);
  state.rejection.fill(0);
  state.s.fill(0);
  if (plan.timed !== undefined) {
    const from = options.from ?? 'idle';
    if (from === 'idle') state.rho.fill(0);
    else if (from === 'saturated') state.rho.fill(Number.POSITIVE_INFINITY);
  }

  let iterations = 0;
  let residual = 0;
  let converged = true;
  const topo = plan.topologicalOrder;
  if (topo !== undefined) {
    for (let k = 0; k < topo.length; k++) {
      const i = topo[k] as number;
      gather(plan, state, i);
      update(plan, state, i);
    }
    return { converged, iterations: 1, residual };
  }
  // Strongly connected components in topological order: a service on no cycle is solved once,
  // when everything upstream is final; only the services of a cycle iterate, among themselves.
  const { componentStart, componentNodes, componentCyclic } = plan;
  for (let c = 0; c < componentCyclic.length; c++) {
    const first = componentStart[c] as number;
    const end = componentStart[c + 1] as number;
    if (componentCyclic[c] === 0) {
      const i = componentNodes[first] as number;
      gather(plan, state, i);
      update(plan, state, i);
      if (iterations < 1) iterations = 1;
      continue;
    }
    // Start the cycle from the initial λin (default γ), then sweep with the latest λout.
    for (let k = first; k < end; k++) update(plan, state, componentNodes[k] as number);
    let sweeps = 0;
    let settled = false;
    let change = 0;
    while (sweeps < maxIterations) {
      sweeps++;
      change = 0;
      for (let k = first; k < end; k++) {
        const i = componentNodes[k] as number;
        const c = gather(plan, state, i);
        if (c > change) change = c;
        // An unchanged input gives an unchanged output: skip the solve.
        if (c > 0 || sweeps === 1) update(plan, state, i);
      }
      if (change <= tolerance) {
        settled = true;
        break;
      }
    }
    if (sweeps > iterations) iterations = sweeps;
    residual = Math.max(residual, change);
    if (!settled) converged = false;
  }
  return { converged, iterations, residual };
}

/** Solves service i at its current λin: s_i, then Λ, R and λout per class. */
function update(plan: RoutingPlan, state: RoutingState, i: number): void {
  if (plan.timed !== undefined && plan.timed.timedService[i] === 1) {
    updateTimedService(plan, state, i);
    return;
  }
  const classCount = plan.classCount;
  const base = i * classCount;
  const { lambdaIn, lambdaOut, attempts, rejection } = state;
  const solver = plan.independent[i];
  if (solver !== undefined) {
    const si = solver(lambdaIn, base);
    state.s[i] = si;
    const { attemptsByLimit, rejectionByLimit, retryLimits } = plan;
    independentRetryFlows(si, plan.maxRetryLimit[i] as number, attemptsByLimit, rejectionByLimit);
    for (let k = base; k < base + classCount; k++) {
      const limit = retryLimits[k] as number;
      const rate = lambdaIn[k] as number;
      const r = rejectionByLimit[limit] as number;
      attempts[k] = rate * (attemptsByLimit[limit] as number);
      rejection[k] = r;
      lambdaOut[k] = rate * (1 - r);
    }
    return;
  }
  const service = plan.services[i];
  if (service === undefined) return;
  for (let p = 0; p < classCount; p++) {
    (service.loads[p] as { arrivalRate: number }).arrivalRate = lambdaIn[base + p] as number;
  }
  const si = attemptRejection(
    service.phi,
    service.capacity,
    service.loads,
    'flow',
    INNER_TOLERANCE,
  ).s;
  state.s[i] = si;
  for (let p = 0; p < classCount; p++) {
    const load = service.loads[p] as { retryLimit: number; residualAlphas?: readonly number[] };
    const flow = retryFlow(si, load.retryLimit, load.residualAlphas);
    const rate = lambdaIn[base + p] as number;
    attempts[base + p] = rate * flow.attemptsPerRequest;
    rejection[base + p] = flow.rejection;
    lambdaOut[base + p] = rate * (1 - flow.rejection);
  }
}

/** Recomputes λin_i from the current λout; returns the largest relative change. */
function gather(plan: RoutingPlan, state: RoutingState, i: number): number {
  const classCount = plan.classCount;
  const { gamma, incomingStart, incomingFrom, incomingProbability, floor } = plan;
  const { lambdaIn, lambdaOut } = state;
  let change = 0;
  for (let k = i * classCount; k < (i + 1) * classCount; k++) {
    const p = k - i * classCount;
    let value = gamma[k] as number;
    const end = incomingStart[k + 1] as number;
    for (let e = incomingStart[k] as number; e < end; e++) {
      value +=
        (lambdaOut[(incomingFrom[e] as number) * classCount + p] as number) *
        (incomingProbability[e] as number);
    }
    const old = lambdaIn[k] as number;
    const relative = Math.abs(value - old) / Math.max(Math.abs(value), floor);
    if (relative > change) change = relative;
    lambdaIn[k] = value;
  }
  return change;
}
