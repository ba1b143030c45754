import { FIXED_POINT_TOLERANCE } from '../service.js';
import { sweepsPerReport } from './AnalysisProgress.js';
import { followCallBranch } from './callContinuation.js';
import type { CallPlan } from './callPlan.js';
import type { CallSweep } from './callSweep.js';
import type { NetworkModel } from './NetworkModel.js';
import { type Relaxation, type Swing, settleCalls } from './relaxCalls.js';
import { laidOutSweep, type TopDownLayout, toLayout } from './topDownLayout.js';

/** Options of {@link solveCalls}. */
export interface CallSolveOptions {
  /**
   * Absolute tolerance on every s_j (and timeout probability τ) between two sweeps.
   * @default 1e-12
   */
  readonly tolerance?: number;
  /**
   * Most sweeps.
   * @default 1000
   */
  readonly maxIterations?: number;
  /**
   * Starting attempt rejection s per service (turned into the offered load with that φ);
   * default: the network idle (s = 0).
   * @default the network idle (s = 0)
   */
  readonly initialS?: readonly number[];
  /** Starting offered load ρ per service; overrides `initialS`. */
  readonly initialRho?: ArrayLike<number>;
  /**
   * Start from saturation, every attempt failing (the storm branch); overrides the others.
   * Default false.
   * @default false
   */
  readonly saturated?: boolean;
  /** Every external arrival rate × this (continuation in the load). @default 1 */
  readonly scale?: number;
  /**
   * Most residual evaluations the continuation may use where the sweeps find no rest, the
   * settles that find its starting points included. @default 20000 (continuation)
   */
  readonly maxEvaluations?: number;
  /**
   * Called with the sweeps made so far every so many sweeps (about every 500,000 cell updates,
   * at most 250 sweeps apart): the progress of a long solve. @default none
   */
  readonly onProgress?: (sweeps: number) => void;
}

/** The solved state of a call-graph network, per service i and class p. */
export interface CallSolution {
  /** Calls per second arriving at i (external requests included), before retries. */
  readonly callsIn: number[][];
  /** Attempts per second at i. */
  readonly attempts: number[][];
  /** Probability that one attempt at i succeeds: accepted, back in time, every call succeeds. */
  readonly attemptSuccess: number[][];
  /**
   * Probability that a call to i succeeds within its hop's retries (a fresh call: a request
   * entering at i, or a first call to it).
   */
  readonly callSuccess: number[][];
  /**
   * Calls per second to i that succeed within the hop's retries, follow-up calls (docs/model.md,
   * "Follow-up calls") with their own success.
   */
  readonly callsOut: number[][];
  /** The share of calls to i that fail after the hop's retries (1 − S without follow-ups). */
  readonly callRejection: number[][];
  /** Probability that an accepted attempt at i outlives its caller's per-try timeout. */
  readonly timeoutProbability: number[][];
  /**
   * The solver's state per service: the attempt rejection s_j, or where follow-up calls arrive
   * (docs/model.md, "Follow-up calls") π_j, the rejection of a fresh attempt.
   */
  readonly s: number[];
  /** The share of every attempt at i that is rejected (s_i where no follow-ups arrive). */
  readonly attemptRejection: number[];
  /** Offered load per service, attempts / μ. */
  readonly rho: number[];
  readonly converged: boolean;
  /**
   * Whether the sweeps settle on this state; false for a fixed point that only continuation
   * found, around which the relaxation oscillates (an unstable equilibrium of the sweeps).
   */
  readonly stable: boolean;
  /** Sweeps used (residual evaluations, with continuation). */
  readonly iterations: number;
  /** Largest change of any s_i (or τ) in the last sweep. */
  readonly residual: number;
  /** When not converged: where the sweeps kept swinging (see {@link Relaxation}). */
  readonly swings?: readonly Swing[];
}

/**
 * Solves call-graph mode (docs/model.md, "A network, call-graph form"). Every accepted attempt at
 * service j runs j's calls in order (and one branch, chosen with its probability); a call to
 * child c is retried by j's hop up to k_c^p times, and the attempt at j succeeds only if it is
 * back within its per-try timeout (if any) and every call succeeds, so a failing grandchild fails
 * the child's attempt, which the child's caller retries, re-running the subtree (nested retries).
 *
 * The unknowns are the attempt rejections s_j (and, where a per-try timeout makes the timeout
 * probability depend on the queue, the offered loads ρ_j). Each sweep of {@link CallSweep} is
 * O(calls): success probabilities bottom-up, then loads top-down with each service's own load
 * solved locally. The sweeps are Anderson-accelerated (the map is not monotone: a rejecting child sends load
 * back up through its callers' retries while a rejecting parent sends less down, so plain sweeps
 * can oscillate), with a fallback to the plain sweep whenever a mixed step makes the residual
 * grow. Stops when no s_j (or τ) moves by more than `tolerance`.
 *
 * This finds the state reached from `initialS`/`initialRho` (default: idle). Where nested
 * retries or timeouts make two stable states, {@link callEquilibria} finds both.
 */
export function solveCalls(network: NetworkModel, options: CallSolveOptions = {}): CallSolution {
  const { layout, sweep } = laidOutSweep(network);
  const plan = sweep.plan;
  if (options.onProgress !== undefined) {
    sweep.progress = {
      every: sweepsPerReport(plan.serviceCount * plan.classCount),
      report: options.onProgress,
    };
  }
  startFrom(sweep, options, layout);
  const scale = options.scale ?? 1;
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const maxIterations = options.maxIterations ?? 1000;
  const relaxed = settleCalls(sweep, scale, {
    tolerance,
    maxIterations,
    saturated: options.saturated,
  });
  const iterations = relaxed.iterations;
  if (relaxed.converged) return callSolution(sweep, scale, relaxed, layout);
  // The sweeps found no rest: follow the branch from light load (or, for the storm, from heavy
  // load) by arclength instead.
  const followed = followCallBranch(sweep, scale, {
    tolerance,
    from: options.saturated === true ? 'saturated' : 'idle',
    maxEvaluations: options.maxEvaluations,
  });
  if (followed.reached) {
    return callSolution(
      sweep,
      scale,
      {
        converged: true,
        iterations: iterations + followed.evaluations,
        residual: followed.residual,
        stable: false,
      },
      layout,
    );
  }
  return callSolution(
    sweep,
    scale,
    { ...relaxed, iterations: iterations + followed.evaluations },
    layout,
  );
}

/**
 * Sets the sweep's starting ρ from the options (idle unless told otherwise), given per service of
 * the network as the caller numbered it.
 */
function startFrom(sweep: CallSweep, options: CallSolveOptions, layout: TopDownLayout): void {
  const plan = sweep.plan;
  if (options.initialRho !== undefined) {
    const initialRho = toLayout(layout, options.initialRho);
    for (let j = 0; j < plan.serviceCount; j++) sweep.rho[j] = Math.max(0, initialRho[j] ?? 0);
    return;
  }
  if (options.initialS !== undefined) {
    const initialS = toLayout(layout, options.initialS);
    for (let j = 0; j < plan.serviceCount; j++) {
      const s = Math.min(Math.max(initialS[j] ?? 0, 0), 1 - Number.EPSILON);
      sweep.s[j] = s;
      sweep.rho[j] = inversePhi(plan.phi[j] as (r: number) => number, s);
    }
  }
}

/**
 * The solution tables of `sweep` at its current ρ, as plain arrays. With `layout` (the sweep
 * solving its network laid out top-down), every per-service table, and the services a swing
 * names, are given in the network's own numbering.
 */
export function callSolution(
  sweep: CallSweep,
  scale: number,
  relaxation: Relaxation,
  layout?: TopDownLayout,
): CallSolution {
  sweep.evaluate(scale);
  const plan: CallPlan = sweep.plan;
  const P = plan.classCount;
  const at = (j: number) => (layout === undefined ? j : (layout.position[j] as number));
  const perService = <T>(value: (j: number) => T) =>
    Array.from({ length: plan.serviceCount }, (_, j) => value(at(j)));
  const table = (values: Float64Array | ((cell: number) => number)) =>
    perService((j) =>
      Array.from({ length: P }, (_, p) =>
        typeof values === 'function' ? values(j * P + p) : (values[j * P + p] as number),
      ),
    );
  return {
    callsIn: table(sweep.callsIn),
    attempts: table((cell) => sweep.attempts(cell)),
    attemptSuccess: table(sweep.attemptSuccess),
    callSuccess: table(sweep.callSuccess),
    callsOut: table((cell) => sweep.callsOut(cell)),
    callRejection: table((cell) => sweep.callRejection(cell)),
    timeoutProbability: table(sweep.abandoned),
    s: perService((j) => sweep.s[j] as number),
    attemptRejection: perService((j) => sweep.attemptRejection(j)),
    rho: perService((j) => sweep.rho[j] as number),
    converged: relaxation.converged,
    stable: relaxation.converged && relaxation.stable !== false,
    iterations: relaxation.iterations,
    residual: relaxation.residual,
    ...(relaxation.swings === undefined
      ? {}
      : {
          swings: relaxation.swings.map((swing) =>
            layout === undefined
              ? swing
              : { ...swing, service: layout.order[swing.service] as number },
          ),
        }),
  };
}

/** The smallest ρ with φ(ρ) ≥ s (bisection in ln ρ); 0 for s ≤ 0, ∞-like for s ≥ 1. */
function inversePhi(phi: (rho: number) => number, s: number): number {
  if (!(s > 0)) return 0;
  if (s >= 1) return 1e300;
  let lo = 0;
  let hi = 1;
  while (phi(hi) < s && hi < 1e300) hi *= 4;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (phi(mid) < s) lo = mid;
    else hi = mid;
  }
  return hi;
}
