import type { SweptBranches } from './branchSweep.js';
import { type BranchesAlongSweep, type BranchSolver, sweepBranches } from './branchSweep.js';
import type { NetworkModel } from './NetworkModel.js';
import { type RoutingState, routingState } from './RoutingState.js';
import { followRisingLoad } from './risingLoad.js';
import {
  type RoutingEquilibria,
  type RoutingEquilibriaOptions,
  type RoutingSnapshot,
  routingFollower,
  sameRoutingEquilibrium,
} from './routingEquilibria.js';
import { compileRouting, type RoutingPlan } from './routingPlan.js';
import { settleRouting } from './solveRouting.js';
import {
  attemptSuccessInto,
  copyRoutingState,
  restoreRoutingState,
  type TimedRoutingSolution,
  timedRoutingSolution,
} from './timedRoutingState.js';

/** Options of {@link sweepRoutingEquilibria}. */
export interface SweepRoutingEquilibriaOptions extends RoutingEquilibriaOptions {
  /** Whether the load rises with the parameter (an arrival rate) or falls (a capacity). */
  readonly loadRises: boolean;
}

/**
 * Follows a routing network's (with per-try timeouts) two branches of equilibria along a sweep
 * of one parameter, as `sweepEquilibria` does for call graphs ({@link sweepBranches}): the
 * healthy branch raised from zero load at the light end and carried up, the storm from
 * saturation at the heavy end and carried down, each point settled by `settleRouting`
 * warm-started from the last; the healthy branch ends at the **tipping** load, the storm at the
 * **recovery** load.
 * @example
 * ```ts
 * const swept = sweepRoutingEquilibria((g) => withEntryRate(network, g), [10, 20, 30, 40], {
 *   loadRises: true,
 * });
 * swept.points[1]?.storm; // the storm state at 20/s, where it coexists with the healthy one
 * ```
 */
export function sweepRoutingEquilibria(
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
  options: SweepRoutingEquilibriaOptions,
): BranchesAlongSweep<TimedRoutingSolution> {
  return sweepBranches(routingBranchSolver(options), networkAt, values, options);
}

/**
 * The equilibria of one point of a routing sweep, as `analyzeNetwork` takes them (healthy first).
 */
export function routingEquilibriaAt(point: SweptBranches<TimedRoutingSolution>): RoutingEquilibria {
  return {
    form: 'routing',
    equilibria: [
      ...(point.healthy === undefined
        ? []
        : [{ kind: 'healthy' as const, solution: point.healthy }]),
      ...(point.storm === undefined ? [] : [{ kind: 'storm' as const, solution: point.storm }]),
    ],
    tips: [],
  };
}

function snapshot(plan: RoutingPlan, state: RoutingState): RoutingSnapshot {
  const q = new Float64Array(plan.serviceCount * plan.classCount);
  attemptSuccessInto(plan, state, q);
  return { state: copyRoutingState(plan, state), q };
}

/** The routing solver with per-try timeouts as the sweep of two branches uses it. */
function routingBranchSolver(
  options: RoutingEquilibriaOptions,
): BranchSolver<TimedRoutingSolution, RoutingSnapshot> {
  const relax = { tolerance: options.tolerance, maxIterations: options.maxIterations };
  return {
    raise: (network) => {
      const plan = compileRouting(network);
      const state = routingState(plan);
      const raised = followRisingLoad(routingFollower(plan, state, relax), 1);
      if (!raised.settled || raised.tips.length > 0) return undefined;
      return {
        solution: timedRoutingSolution(plan, state, {
          converged: true,
          iterations: raised.iterations,
          residual: raised.residual,
        }),
        state: snapshot(plan, state),
      };
    },
    saturate: (network) => {
      const plan = compileRouting(network);
      const state = routingState(plan);
      const settled = settleRouting(plan, state, { ...relax, from: 'saturated' });
      if (!settled.converged) return undefined;
      return { solution: timedRoutingSolution(plan, state, settled), state: snapshot(plan, state) };
    },
    settle: (network, from) => {
      const plan = compileRouting(network);
      const state = routingState(plan);
      restoreRoutingState(state, from.state);
      const settled = settleRouting(plan, state, {
        ...relax,
        initialIn: from.state.lambdaIn,
        from: 'state',
      });
      if (!settled.converged) return undefined;
      return {
        state: snapshot(plan, state),
        solution: () => timedRoutingSolution(plan, state, settled),
      };
    },
    distance: (a, b) => {
      let most = 0;
      for (let k = 0; k < a.q.length; k++) {
        const d = Math.abs((a.q[k] as number) - (b.q[k] as number));
        if (d > most || Number.isNaN(d)) most = d;
      }
      return most;
    },
    same: sameRoutingEquilibrium,
  };
}
