import { type BranchesAlongSweep, type BranchSolver, sweepBranches } from './branchSweep.js';
import { raiseLoad } from './callBranch.js';
import { sameEquilibrium } from './callEquilibria.js';
import { compileCallPlan } from './callPlan.js';
import { CallSweep } from './callSweep.js';
import type { NetworkModel } from './NetworkModel.js';
import { settleCalls } from './relaxCalls.js';
import { type CallSolution, callSolution, solveCalls } from './solveCalls.js';

/** One point of a sweep: the states found there on each branch. */
export interface SweptEquilibria {
  readonly value: number;
  /** On the branch followed from the light end of the sweep (absent past the tipping point). */
  readonly healthy?: CallSolution;
  /**
   * On the branch followed from the heavy end, started from saturation (absent past the recovery
   * point, and where it is the same state as `healthy`).
   */
  readonly storm?: CallSolution;
}

/** The two branches along a sweep and where each ends. */
export interface SweepEquilibria extends BranchesAlongSweep<CallSolution> {
  readonly points: readonly SweptEquilibria[];
}

/** Options of {@link sweepEquilibria}. */
export interface SweepEquilibriaOptions {
  /** Whether the load rises with the parameter (an arrival rate) or falls (a capacity). */
  readonly loadRises: boolean;
  /**
   * Absolute tolerance on every s_j between two sweeps of each settle; default 1e-12.
   * @default 1e-12
   */
  readonly tolerance?: number;
  /**
   * Most sweeps of each settle; default 1000.
   * @default 1000
   */
  readonly maxIterations?: number;
}

/**
 * Follows a call graph's (or a timed network's, solved as one) two branches of equilibria along
 * a sweep of one parameter (docs/metastability.md): the healthy branch from the light end of the
 * sweep (the state an idle network reaches, raised from zero load at the first point by
 * `raiseLoad`), carried point to point as the load rises, and the storm branch from the heavy end
 * (started from saturation), carried as the load falls, each between two points in sub-steps
 * that pin down the fold where the branch ends — the **tipping** load of the healthy branch and
 * the **recovery** load of the storm ({@link sweepBranches}). Between recovery and tipping the
 * configuration is bistable, and a sweep up then down traces the hysteresis loop. Routing
 * networks with per-try timeouts have `sweepRoutingEquilibria`.
 *
 * `networkAt(value)` builds the network at one value of the parameter; `values` ascend.
 * @example
 * ```ts
 * const swept = sweepEquilibria((lambda) => oneService(lambda), [10, 20, 30, 40, 50, 60, 70], {
 *   loadRises: true,
 * });
 * [swept.recovery, swept.tipping]; // [18.96, 69.36]: bistable in between
 * ```
 */
export function sweepEquilibria(
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
  options: SweepEquilibriaOptions,
): SweepEquilibria {
  const relax = { tolerance: options.tolerance, maxIterations: options.maxIterations };
  return sweepBranches(callBranchSolver(relax), networkAt, values, options);
}

interface BranchState {
  readonly s: Float64Array;
  readonly rho: Float64Array;
  /** Attempt success per cell: what a jump is measured on. */
  readonly q: Float64Array;
}

function branchState(sweep: CallSweep): BranchState {
  return {
    s: Float64Array.from(sweep.s),
    rho: Float64Array.from(sweep.rho),
    q: Float64Array.from(sweep.attemptSuccess),
  };
}

/** The call-graph solver as the sweep of two branches uses it. */
function callBranchSolver(relax: {
  readonly tolerance?: number | undefined;
  readonly maxIterations?: number | undefined;
}): BranchSolver<CallSolution, BranchState> {
  return {
    raise: (network) => {
      const sweep = new CallSweep(compileCallPlan(network));
      const raised = raiseLoad(sweep, 1, relax);
      if (!raised.settled || raised.tips.length > 0) return undefined;
      const solution = callSolution(sweep, 1, {
        converged: true,
        iterations: raised.iterations,
        residual: raised.residual,
      });
      return { solution, state: branchState(sweep) };
    },
    saturate: (network) => {
      const saturated = solveCalls(network, { ...relax, saturated: true });
      if (!saturated.converged) return undefined;
      return {
        solution: saturated,
        state: {
          s: Float64Array.from(saturated.s),
          rho: Float64Array.from(saturated.rho),
          q: Float64Array.from(saturated.attemptSuccess.flat()),
        },
      };
    },
    settle: (network, from) => {
      const sweep = new CallSweep(compileCallPlan(network));
      sweep.s.set(from.s);
      sweep.rho.set(from.rho);
      const relaxed = settleCalls(sweep, 1, relax);
      if (!relaxed.converged) return undefined;
      return {
        state: branchState(sweep),
        solution: () =>
          callSolution(sweep, 1, {
            converged: true,
            iterations: relaxed.iterations,
            residual: relaxed.residual,
          }),
      };
    },
    distance: (a, b) => {
      let most = 0;
      for (let cell = 0; cell < a.q.length; cell++) {
        const d = Math.abs((a.q[cell] as number) - (b.q[cell] as number));
        if (d > most) most = d;
      }
      return most;
    },
    same: sameEquilibrium,
  };
}
