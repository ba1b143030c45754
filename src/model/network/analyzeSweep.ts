import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { analyzeNetwork, usesCallSolver, usesTimedRouting } from './analyzeNetwork.js';
import type { BranchesAlongSweep } from './branchSweep.js';
import type { CallEquilibria, CallEquilibrium } from './callEquilibria.js';
import { chooseLaw, type LawChoice } from './lawChoice.js';
import type { NetworkModel } from './NetworkModel.js';
import type { NetworkReport } from './NetworkReport.js';
import type { RoutingEquilibria } from './routingEquilibria.js';
import { loadRisesWith, type SweptParameter, withSweptValue } from './SweptParameter.js';
import { sweepEquilibria } from './sweepEquilibria.js';
import { type SweepRamp, sweepRamp } from './sweepRamp.js';
import { routingEquilibriaAt, sweepRoutingEquilibria } from './sweepRoutingEquilibria.js';

/** One point of a swept analysis: the parameter's value and the network's report there. */
export interface AnalyzedSweepPoint {
  readonly value: number;
  readonly report: NetworkReport;
}

/** Result of {@link analyzeSweep}. */
export interface SweptAnalysis {
  /** One report per value, in the order of the values. */
  readonly points: readonly AnalyzedSweepPoint[];
  /**
   * Where the network can be bistable (call graphs, per-try timeouts): its healthy and storm
   * branches followed along the sweep, and where each ends (`tipping`, `recovery`). Absent for
   * routing networks without timeouts, whose state is unique.
   */
  readonly branches?: BranchesAlongSweep<unknown>;
  /**
   * With the orbit law and `rampSeconds`: where a ramp over the swept values, that long each way,
   * leaves the healthy state going up and the storm coming down (`sweepRamp`).
   */
  readonly ramp?: SweepRamp;
}

/** What {@link analyzeSweep} is asked besides the sweep. */
export interface AnalyzeSweepOptions {
  /** As `analyzeNetwork`'s: `mean-field` (the default), `orbit`, or `auto` (`chooseLaw`). */
  readonly law?: LawChoice;
  /** With the orbit law: a ramp's duration each way, seconds, for {@link SweptAnalysis.ramp}. */
  readonly rampSeconds?: number;
  /**
   * With `rampSeconds`: read the ramp as windows this many seconds long do (`sweepRamp`'s
   * `windowSeconds`: a state is also left when one of its windows reads the other side).
   */
  readonly windowSeconds?: number;
  /** Called as each point of an orbit-law sweep is done (done of total). */
  readonly onPoint?: (done: number, total: number) => void;
}

/**
 * Analyses a network at every value of one swept parameter, as `difftry analyze --sweep` reports
 * it. Where the configuration can be bistable (call graphs and per-try timeouts), the healthy
 * and the storm branch are followed along the sweep (`sweepEquilibria`,
 * `sweepRoutingEquilibria`) and each point's report lists the states found there — both inside
 * the hysteresis loop — instead of solving every point on its own.
 *
 * With the orbit law (`law: 'orbit'`, or `auto` where it takes it) every point is solved on its own with the orbit law, whose states are
 * its stationary law's metastable ones (no branches are followed); with `rampSeconds`, the
 * escape times along the sweep say where a ramp of that pace tips and recovers (`ramp`).
 *
 * `values` ascend.
 * @example
 * ```ts
 * const swept = analyzeSweep(network, { serviceIndex: 0, field: 1 }, [50, 100, 150, 200, 250]);
 * swept.points[4]?.report.endToEnd.high?.rejection; // the high class at γ_low = 250
 * swept.branches?.tipping; // where a bistable network tips into the storm, if it does
 * ```
 */
export function analyzeSweep(
  network: NetworkModel,
  parameter: SweptParameter,
  values: readonly number[],
  options: AnalyzeSweepOptions = {},
): SweptAnalysis {
  const networkAt = (value: number) => withSweptValue(network, parameter, value);
  const asked = options.law === undefined ? {} : { law: options.law };
  if (chooseLaw(network, options.law ?? 'mean-field').law === 'orbit') {
    const points = values.map((value, i) => {
      const report = analyzeNetwork(networkAt(value), asked);
      options.onPoint?.(i + 1, values.length);
      return { value, report };
    });
    if (options.rampSeconds === undefined) return { points };
    const classWeights = network.classes.map((_, p) =>
      network.services.reduce((sum, s) => sum + (s.arrivals[p] ?? 0), 0),
    );
    return {
      points,
      ramp: sweepRamp(
        points,
        options.rampSeconds,
        classWeights,
        loadRisesWith(parameter),
        options.windowSeconds === undefined ? {} : { windowSeconds: options.windowSeconds },
      ),
    };
  }
  if (options.rampSeconds !== undefined) {
    throw new InvalidArgumentError(
      'rampSeconds: only with the orbit law (law: "orbit", or "auto" where it takes the orbit law)',
    );
  }
  const loadRises = loadRisesWith(parameter);
  const callBranches = usesCallSolver(network)
    ? sweepEquilibria(networkAt, values, { loadRises })
    : undefined;
  const routingBranches = usesTimedRouting(network)
    ? sweepRoutingEquilibria(networkAt, values, { loadRises })
    : undefined;
  const pointEquilibria = (i: number): CallEquilibria | RoutingEquilibria | undefined => {
    const routing = routingBranches?.points[i];
    if (routing !== undefined) {
      const found = routingEquilibriaAt(routing);
      return found.equilibria.length > 0 ? found : undefined;
    }
    const point = callBranches?.points[i];
    const found: CallEquilibrium[] = [];
    if (point?.healthy !== undefined) found.push({ kind: 'healthy', solution: point.healthy });
    if (point?.storm !== undefined) found.push({ kind: 'storm', solution: point.storm });
    return found.length > 0 ? { equilibria: found, tips: [] } : undefined;
  };
  const points = values.map((value, i) => {
    const equilibria = pointEquilibria(i);
    return {
      value,
      report: analyzeNetwork(
        networkAt(value),
        equilibria === undefined ? asked : { ...asked, equilibria },
      ),
    };
  });
  const branches: BranchesAlongSweep<unknown> | undefined = callBranches ?? routingBranches;
  return branches === undefined ? { points } : { points, branches };
}
