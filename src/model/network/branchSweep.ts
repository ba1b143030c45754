import type { NetworkModel } from './NetworkModel.js';

/**
 * What the sweep of two branches ({@link sweepBranches}) needs of a solver: the network's healthy
 * state at the light end, its storm at the heavy end, and a warm-started settle from a state
 * found nearby. `Solution` is what a point reports, `State` what is carried between points.
 */
export interface BranchSolver<Solution, State> {
  /**
   * The state an idle network reaches as its load rises from zero to `network`'s; undefined
   * where it tipped on the way or did not settle.
   */
  raise(network: NetworkModel): { readonly solution: Solution; readonly state: State } | undefined;
  /** The state reached from saturation (every attempt failing); undefined where it did not settle. */
  saturate(
    network: NetworkModel,
  ): { readonly solution: Solution; readonly state: State } | undefined;
  /**
   * `network` settled from `from` (a state of a nearby network of the same shape); undefined
   * where it did not converge. The solution is built only when asked for.
   */
  settle(
    network: NetworkModel,
    from: State,
  ): { readonly state: State; readonly solution: () => Solution } | undefined;
  /** The largest |Δq| (attempt success) between two states. */
  distance(a: State, b: State): number;
  /** Whether two solutions are one equilibrium. */
  same(a: Solution, b: Solution): boolean;
}

/** One point of a sweep: the states found there on each branch. */
export interface SweptBranches<Solution> {
  readonly value: number;
  /** On the branch followed from the light end of the sweep (absent past the tipping point). */
  readonly healthy?: Solution;
  /**
   * On the branch followed from the heavy end, started from saturation (absent past the recovery
   * point, and where it is the same state as `healthy`).
   */
  readonly storm?: Solution;
}

/** The two branches along a sweep and where each ends. */
export interface BranchesAlongSweep<Solution> {
  readonly points: readonly SweptBranches<Solution>[];
  /** The parameter value past which the healthy state no longer exists (it tips into the storm). */
  readonly tipping?: number;
  /** The parameter value past which the storm no longer exists (the network recovers). */
  readonly recovery?: number;
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
 * even at the finest step, the solver finds no rest (it slows down without end as a fold nears):
 * the branch ends, at the **tipping** load for the healthy branch and at the **recovery** load
 * for the storm. Between recovery and tipping the configuration is bistable, and a sweep up then
 * down traces the hysteresis loop.
 *
 * `networkAt(value)` builds the network at one value of the parameter; `values` ascend; `solver`
 * is the call-graph or the routing solver's ({@link BranchSolver}).
 * @example
 * ```ts
 * const swept = sweepBranches(solver, (lambda) => withRate(network, lambda), [10, 20, 30], {
 *   loadRises: true,
 * });
 * swept.tipping; // 27.4: the healthy state is gone above it
 * ```
 */
export function sweepBranches<Solution, State>(
  solver: BranchSolver<Solution, State>,
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
  options: { readonly loadRises: boolean },
): BranchesAlongSweep<Solution> {
  const count = values.length;
  const healthy: (Solution | undefined)[] = new Array(count).fill(undefined);
  const storm: (Solution | undefined)[] = new Array(count).fill(undefined);
  const lightFirst = options.loadRises
    ? Array.from({ length: count }, (_, i) => i)
    : Array.from({ length: count }, (_, i) => count - 1 - i);
  let tipping: number | undefined;
  let recovery: number | undefined;

  // The healthy branch: raised from zero load at the light end, then carried along.
  if (count > 0) {
    const first = lightFirst[0] as number;
    const raised = solver.raise(networkAt(values[first] as number));
    if (raised !== undefined) {
      healthy[first] = raised.solution;
      tipping = carry(solver, networkAt, values, lightFirst, raised.state, healthy);
    }
  }

  // The storm branch: from saturation at the heavy end, carried back towards the light end.
  if (count > 0) {
    const heavyFirst = [...lightFirst].reverse();
    const first = heavyFirst[0] as number;
    const saturated = solver.saturate(networkAt(values[first] as number));
    if (saturated !== undefined) {
      storm[first] = saturated.solution;
      recovery = carry(solver, networkAt, values, heavyFirst, saturated.state, storm);
    }
  }

  const points = values.map((value, i) => {
    const h = healthy[i];
    let s = storm[i];
    if (h !== undefined && s !== undefined && solver.same(h, s)) s = undefined;
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
function carry<Solution, State>(
  solver: BranchSolver<Solution, State>,
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
  order: readonly number[],
  start: State,
  found: (Solution | undefined)[],
): number | undefined {
  let state = start;
  for (let k = 1; k < order.length; k++) {
    const from = values[order[k - 1] as number] as number;
    const to = values[order[k] as number] as number;
    const followed = follow(solver, networkAt, state, from, to);
    if (followed.fold !== undefined) return followed.fold;
    if (followed.solution === undefined) return undefined;
    found[order[k] as number] = followed.solution;
    state = followed.state;
  }
  return undefined;
}

/**
 * Carries a state from parameter value `from` to `to` in sub-steps (see {@link sweepBranches});
 * stops at a fold, or where the solver finds no rest.
 */
function follow<Solution, State>(
  solver: BranchSolver<Solution, State>,
  networkAt: (value: number) => NetworkModel,
  start: State,
  from: number,
  to: number,
): { solution?: Solution; state: State; fold?: number } {
  let state = start;
  let value = from;
  const span = to - from;
  let step = span;
  const finest = Math.abs(span) * FINEST;
  while (value !== to) {
    const next = Math.abs(to - value) <= Math.abs(step) ? to : value + step;
    const reached = solver.settle(networkAt(next), state);
    if (reached === undefined) {
      // Close to a fold the relaxation slows down: take a shorter step; where even the finest
      // step finds no rest, the branch ends here.
      if (Math.abs(step) > finest * 1.5) {
        step /= 2;
        continue;
      }
      return { state, fold: value };
    }
    const jump = solver.distance(reached.state, state);
    // A large move is first narrowed to a short step; then, if stepping back undoes it, it is a
    // steep slope, taken; if not, a fold lies inside the step, halved until it is pinned down.
    if (jump > JUMP && Math.abs(step) > Math.abs(span) * CHECK_STEP * 1.5) {
      step /= 2;
      continue;
    }
    if (jump > JUMP && !returns(solver, networkAt(value), reached.state, state)) {
      if (Math.abs(step) > finest * 1.5) {
        step /= 2;
        continue;
      }
      return { state, fold: value };
    }
    state = reached.state;
    value = next;
    if (jump < JUMP / 4) step = Math.sign(span) * Math.min(2 * Math.abs(step), Math.abs(span));
    if (value === to) return { state, solution: reached.solution() };
  }
  return { state };
}

/**
 * Whether stepping back to the network at the previous value from the state just reached
 * returns to `before` (a steep slope of the branch, not a fold).
 */
function returns<Solution, State>(
  solver: BranchSolver<Solution, State>,
  network: NetworkModel,
  reached: State,
  before: State,
): boolean {
  const back = solver.settle(network, reached);
  if (back === undefined) return false;
  return solver.distance(back.state, before) <= JUMP / 2;
}
