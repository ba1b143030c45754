import { FIXED_POINT_TOLERANCE } from '../service.js';
import { DISTINCT_STATE } from './callEquilibria.js';
import type { NetworkModel } from './NetworkModel.js';
import { type RoutingState, routingState } from './RoutingState.js';
import { followRisingLoad, type LoadFollower } from './risingLoad.js';
import { compileRouting, type RoutingPlan } from './routingPlan.js';
import { settleRouting } from './solveRouting.js';
import {
  attemptSuccessDistance,
  attemptSuccessInto,
  copyRoutingState,
  restoreRoutingState,
  scaledRoutingPlan,
  type TimedRoutingSolution,
  timedRoutingSolution,
} from './timedRoutingState.js';

/** Options of {@link routingEquilibria}. */
export interface RoutingEquilibriaOptions {
  /**
   * Relative tolerance on every λin between two sweeps; default 1e-12.
   * @default 1e-12
   */
  readonly tolerance?: number | undefined;
  /**
   * Most Gauss–Seidel sweeps per settle; default 10,000.
   * @default 10_000
   */
  readonly maxIterations?: number | undefined;
}

/** One equilibrium of a routing network with per-try timeouts. */
export interface RoutingEquilibrium {
  /**
   * `healthy`: the state an idle network reaches as its load rises from zero, where it did not
   * tip on the way; `storm`: the state reached from saturation, or the one the rising load
   * tipped into.
   */
  readonly kind: 'healthy' | 'storm';
  readonly solution: TimedRoutingSolution;
}

/** What {@link routingEquilibria} found (the routing counterpart of `CallEquilibria`). */
export interface RoutingEquilibria {
  readonly form: 'routing';
  /**
   * The state the rising load reached first (the one an idle network settles in: `healthy`, or
   * `storm` where it tipped on the way), then the state from saturation where it differs; one
   * entry when both starts reach the same state.
   */
  readonly equilibria: readonly RoutingEquilibrium[];
  /** Where the rising load tipped, as shares of the external rates. */
  readonly tips: readonly number[];
  /** True when the settle from saturation did not converge (no storm found, none ruled out). */
  readonly stormUnsettled?: boolean;
}

/** Whether two solutions are one state (within `DISTINCT_STATE` in every s and q). */
export function sameRoutingEquilibrium(a: TimedRoutingSolution, b: TimedRoutingSolution): boolean {
  const close = (x: number, y: number | undefined) =>
    Math.abs(x - (y ?? Number.NaN)) <= DISTINCT_STATE;
  return (
    a.s.every((s, i) => close(s, b.s[i])) &&
    a.attemptSuccess.every((row, i) => row.every((q, p) => close(q, b.attemptSuccess[i]?.[p])))
  );
}

/** A routing state as {@link LoadFollower} snapshots it. */
export interface RoutingSnapshot {
  readonly state: RoutingState;
  /** Attempt success per cell. */
  readonly q: Float64Array;
}

/**
 * The {@link LoadFollower} of a compiled routing network and a state: each settle is
 * `settleRouting` warm-started from the state (its λin, and ρ where the local solves need it) with
 * the external rates × the scale.
 */
export function routingFollower(
  plan: RoutingPlan,
  state: RoutingState,
  options: RoutingEquilibriaOptions = {},
): LoadFollower<RoutingSnapshot> {
  const q = new Float64Array(plan.serviceCount * plan.classCount);
  return {
    save: () => {
      attemptSuccessInto(plan, state, q);
      return { state: copyRoutingState(plan, state), q: Float64Array.from(q) };
    },
    restore: (snapshot) => restoreRoutingState(state, snapshot.state),
    settle: (scale) =>
      settleRouting(scaledRoutingPlan(plan, scale), state, {
        tolerance: options.tolerance,
        maxIterations: options.maxIterations,
        initialIn: Float64Array.from(state.lambdaIn),
        from: 'state',
      }),
    distanceTo: (snapshot) => attemptSuccessDistance(plan, state, snapshot.q),
  };
}

/**
 * The equilibria of a routing network with per-try timeouts (docs/model.md, "Every
 * equilibrium"): the one an idle network settles in as its load rises from zero to the given
 * rates (every local solve takes the root met first from below, the load raised in steps with
 * each settle warm-started from the last, {@link followRisingLoad}), and the one reached from
 * saturation (every local solve from ρ = ∞, the highest root). When they differ the configuration
 * is bistable. A DAG settles in one pass per step; cycles by Gauss–Seidel sweeps, each service
 * continuing from its ρ of the previous sweep.
 * @example
 * ```ts
 * const found = routingEquilibria(network);
 * found.equilibria.map((e) => e.kind); // ['healthy', 'storm']: bistable
 * ```
 */
export function routingEquilibria(
  network: NetworkModel,
  options: RoutingEquilibriaOptions = {},
): RoutingEquilibria {
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const settleOptions = { tolerance, maxIterations: options.maxIterations };
  const plan = compileRouting(network);
  const state = routingState(plan);
  const raised = followRisingLoad(routingFollower(plan, state, settleOptions), 1);
  // The rising load tipped: the state it reached is the storm it tipped into.
  const kind = raised.tips.length > 0 ? 'storm' : 'healthy';
  let rising: RoutingEquilibrium;
  if (raised.settled) {
    rising = {
      kind,
      solution: timedRoutingSolution(plan, state, {
        converged: true,
        iterations: raised.iterations,
        residual: raised.residual,
      }),
    };
  } else {
    // The rising load found no rest short of the full load: settle at the full load from the
    // last state it reached (not from idle, which would skip the tips on the way).
    const settled = settleRouting(plan, state, {
      ...settleOptions,
      initialIn: Float64Array.from(state.lambdaIn),
      from: 'state',
    });
    rising = {
      kind,
      solution: timedRoutingSolution(plan, state, {
        ...settled,
        iterations: raised.iterations + settled.iterations,
      }),
    };
  }
  const stormState = routingState(plan);
  const stormSettled = settleRouting(plan, stormState, { ...settleOptions, from: 'saturated' });
  const storm = timedRoutingSolution(plan, stormState, stormSettled);
  const tips = raised.tips;
  if (!storm.converged) {
    return { form: 'routing', equilibria: [rising], tips, stormUnsettled: true };
  }
  if (!rising.solution.converged) {
    return { form: 'routing', equilibria: [{ kind: 'storm', solution: storm }], tips };
  }
  if (sameRoutingEquilibrium(rising.solution, storm)) {
    return { form: 'routing', equilibria: [rising], tips };
  }
  // The state the rising load reached comes first: it is the one an idle network settles in.
  return { form: 'routing', equilibria: [rising, { kind: 'storm', solution: storm }], tips };
}
