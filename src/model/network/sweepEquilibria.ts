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
export interface SweepEquilibria {
  readonly points: readonly SweptEquilibria[];
  /** The parameter value past which the healthy state no longer exists (it tips into the storm). */
  readonly tipping?: number;
  /** The parameter value past which the storm no longer exists (the network recovers). */
  readonly recovery?: number;
}

/** Options of {@link sweepEquilibria}. */
export interface SweepEquilibriaOptions {
  /** Whether the load rises with the parameter (an arrival rate) or falls (a capacity). */
  readonly loadRises: boolean;
  readonly tolerance?: number;
  readonly maxIterations?: number;
}

/** A jump of some attempt success q larger than this between two nearby values is a fold. */
const JUMP = 0.05;
/** The finest sub-step between two sweep points, as a share of their distance. */
const FINEST = 1 / 4096;
/** Sub-steps at most this long (share of the distance) are checked for hysteresis before halving. */
const CHECK_STEP = 1 / 64;

/**
 * Follows a configuration's two branches of equilibria along a sweep of one parameter
 * (docs/metastability.md): the healthy branch from the light end of the sweep (the state an idle
 * network reaches, raised from zero load at the first point), carried point to point as the load
 * rises, and the storm branch from the heavy end (started from saturation), carried as the load
 * falls. Between two points each branch is followed in sub-steps: a step that moves some attempt
 * success q by more than 0.05 and that stepping back does not undo has a fold inside it, and is
 * halved down to 1/4096 of the distance to pin the fold down — and so is a point next to which,
 * even at the finest step,
 * the relaxation finds no rest (it slows down without end as a fold nears): the branch ends, at
 * the **tipping** load for the healthy
 * branch and at the **recovery** load for the storm. Between recovery and tipping the
 * configuration is bistable, and a sweep up then down traces the hysteresis loop.
 *
 * `networkAt(value)` builds the network at one value of the parameter; `values` ascend.
 */
export function sweepEquilibria(
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
  options: SweepEquilibriaOptions,
): SweepEquilibria {
  const relax = { tolerance: options.tolerance, maxIterations: options.maxIterations };
  const count = values.length;
  const healthy: (CallSolution | undefined)[] = new Array(count).fill(undefined);
  const storm: (CallSolution | undefined)[] = new Array(count).fill(undefined);
  const lightFirst = options.loadRises
    ? Array.from({ length: count }, (_, i) => i)
    : Array.from({ length: count }, (_, i) => count - 1 - i);
  let tipping: number | undefined;
  let recovery: number | undefined;

  // The healthy branch: raised from zero load at the light end, then carried along.
  {
    const first = lightFirst[0] as number;
    const sweep = new CallSweep(compileCallPlan(networkAt(values[first] as number)));
    const raised = raiseLoad(sweep, 1, relax);
    if (raised.settled && raised.tips.length === 0) {
      healthy[first] = callSolution(sweep, 1, {
        converged: true,
        iterations: raised.iterations,
        residual: raised.residual,
      });
      tipping = carry(networkAt, values, lightFirst, branchState(sweep), healthy, relax);
    }
  }

  // The storm branch: from saturation at the heavy end, carried back towards the light end.
  {
    const heavyFirst = [...lightFirst].reverse();
    const first = heavyFirst[0] as number;
    const network = networkAt(values[first] as number);
    const saturated = solveCalls(network, { ...relax, saturated: true });
    if (saturated.converged) {
      storm[first] = saturated;
      const start: BranchState = {
        s: Float64Array.from(saturated.s),
        rho: Float64Array.from(saturated.rho),
        q: Float64Array.from(saturated.attemptSuccess.flat()),
      };
      recovery = carry(networkAt, values, heavyFirst, start, storm, relax);
    }
  }

  const points = values.map((value, i) => {
    const h = healthy[i];
    let s = storm[i];
    if (h !== undefined && s !== undefined && sameEquilibrium(h, s)) s = undefined;
    return {
      value,
      ...(h === undefined ? {} : { healthy: h }),
      ...(s === undefined ? {} : { storm: s }),
    };
  });
  return {
    points,
    ...(tipping === undefined ? {} : { tipping }),
    ...(recovery === undefined ? {} : { recovery }),
  };
}

/**
 * Carries a branch from its first point along `order` (indices into `values`), writing each
 * point's solution into `found`; returns the fold where the branch ended, if it ended at one.
 */
function carry(
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
  order: readonly number[],
  start: BranchState,
  found: (CallSolution | undefined)[],
  relax: { readonly tolerance?: number; readonly maxIterations?: number },
): number | undefined {
  let state = start;
  for (let k = 1; k < order.length; k++) {
    const from = values[order[k - 1] as number] as number;
    const to = values[order[k] as number] as number;
    const followed = follow(networkAt, state, from, to, relax);
    if (followed.fold !== undefined) return followed.fold;
    if (followed.solution === undefined) return undefined;
    found[order[k] as number] = followed.solution;
    state = followed.state;
  }
  return undefined;
}

function branchState(sweep: CallSweep): BranchState {
  return {
    s: Float64Array.from(sweep.s),
    rho: Float64Array.from(sweep.rho),
    q: Float64Array.from(sweep.attemptSuccess),
  };
}

interface BranchState {
  readonly s: Float64Array;
  readonly rho: Float64Array;
  /** Attempt success per cell: what a jump is measured on. */
  readonly q: Float64Array;
}

/**
 * Carries a state from parameter value `from` to `to` in sub-steps (see
 * {@link sweepEquilibria}); stops at a fold, or where the relaxation finds no rest.
 */
function follow(
  networkAt: (value: number) => NetworkModel,
  start: BranchState,
  from: number,
  to: number,
  relax: { readonly tolerance?: number; readonly maxIterations?: number },
): { solution?: CallSolution; state: BranchState; fold?: number } {
  let state = start;
  let value = from;
  const span = to - from;
  let step = span;
  const finest = Math.abs(span) * FINEST;
  while (value !== to) {
    const next = Math.abs(to - value) <= Math.abs(step) ? to : value + step;
    const sweep = new CallSweep(compileCallPlan(networkAt(next)));
    sweep.s.set(state.s);
    sweep.rho.set(state.rho);
    const relaxed = settleCalls(sweep, 1, relax);
    if (!relaxed.converged) {
      // Close to a fold the relaxation slows down: take a shorter step; where even the finest
      // step finds no rest, the branch ends here.
      if (Math.abs(step) > finest * 1.5) {
        step /= 2;
        continue;
      }
      return { state, fold: value };
    }
    const jump = sweep.distanceTo(state.q);
    // A large move is first narrowed to a short step; then, if stepping back undoes it, it is a
    // steep slope, taken; if not, a fold lies inside the step, halved until it is pinned down.
    if (jump > JUMP && Math.abs(step) > Math.abs(span) * CHECK_STEP * 1.5) {
      step /= 2;
      continue;
    }
    if (jump > JUMP && !returns(networkAt, sweep, value, state, relax)) {
      if (Math.abs(step) > finest * 1.5) {
        step /= 2;
        continue;
      }
      return { state, fold: value };
    }
    state = branchState(sweep);
    value = next;
    if (jump < JUMP / 4) step = Math.sign(span) * Math.min(2 * Math.abs(step), Math.abs(span));
    if (value === to) {
      return {
        state,
        solution: callSolution(sweep, 1, {
          converged: true,
          iterations: relaxed.iterations,
          residual: relaxed.residual,
        }),
      };
    }
  }
  return { state };
}

/**
 * Whether stepping back to `value` from the state just reached returns to `before` (a steep
 * slope of the branch, not a fold).
 */
function returns(
  networkAt: (value: number) => NetworkModel,
  reached: CallSweep,
  value: number,
  before: BranchState,
  relax: { readonly tolerance?: number; readonly maxIterations?: number },
): boolean {
  const back = new CallSweep(compileCallPlan(networkAt(value)));
  back.s.set(reached.s);
  back.rho.set(reached.rho);
  const relaxed = settleCalls(back, 1, relax);
  if (!relaxed.converged) return false;
  return back.distanceTo(before.q) <= JUMP / 2;
}
