/**
 * The analysis's side of docs/metastability.md: the equilibria `analyzeNetwork` finds at one load,
 * as the page reports them, and the healthy and storm branches `sweepEquilibria` follows along a
 * load that rises with a value.
 */

import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import type { CallEquilibrium } from '../../model/network/callEquilibria.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { sweepEquilibria } from '../../model/network/sweepEquilibria.js';
import type { ClassName } from './metastabilityLimits.js';

/** One equilibrium as the doc reports it. */
export interface EquilibriumFigures {
  readonly kind: 'healthy' | 'storm';
  readonly stable: boolean;
  readonly rejection: Readonly<Record<ClassName, number>>;
  readonly attemptsPerRequest: number;
  /** ρ of the service with external arrivals that carries the most load (api, frontend). */
  readonly entryRho: number;
}

/** The analysis at one load. */
export interface PointAnalysis {
  /** External requests per second, all classes. */
  readonly offeredRate: number;
  readonly equilibria: readonly EquilibriumFigures[];
  /** Two equilibria: a healthy state and a storm. */
  readonly bistable: boolean;
  /** Share of the load at which the load raised from zero tipped (the report's `tippedAt`). */
  readonly tippedAt?: number;
}

/** One point of a branch sweep: each branch's end-to-end rejection per class where it exists. */
export interface BranchPoint {
  readonly value: number;
  readonly healthy?: Readonly<Record<ClassName, number>>;
  readonly storm?: Readonly<Record<ClassName, number>>;
}

/** The analysis's two branches along a sweep and where each ends. */
export interface Branches {
  readonly points: readonly BranchPoint[];
  /** Past this value the healthy state is gone. */
  readonly tipping?: number;
  /** Below this value (for a load that rises with it) the storm is gone. */
  readonly recovery?: number;
}

/** Σ γ over services and classes, requests/s. */
export function totalRate(network: NetworkModel): number {
  return network.services.reduce((sum, s) => sum + s.arrivals.reduce((a, b) => a + b, 0), 0);
}

function figures(report: NetworkReport): EquilibriumFigures[] {
  return report.equilibria.map((e) => ({
    kind: e.kind,
    stable: e.stable,
    rejection: {
      high: e.endToEnd.high?.rejection ?? Number.NaN,
      low: e.endToEnd.low?.rejection ?? Number.NaN,
    },
    attemptsPerRequest: e.attemptsPerRequest,
    entryRho: Math.max(
      ...Object.entries(e.services)
        .filter(([name]) => name === 'api' || name === 'frontend')
        .map(([, s]) => s.rho),
    ),
  }));
}

/** The analysis's equilibria at one load. */
export function pointAnalysis(network: NetworkModel): PointAnalysis {
  const report = analyzeNetwork(network);
  const equilibria = figures(report);
  return {
    offeredRate: totalRate(network),
    equilibria,
    bistable:
      equilibria.some((e) => e.kind === 'healthy') && equilibria.some((e) => e.kind === 'storm'),
    ...(report.tippedAt === undefined ? {} : { tippedAt: report.tippedAt }),
  };
}

/**
 * The healthy and storm branches along a sweep of a load that rises with the value, each point's
 * end-to-end rejections read from the analysis of the states the sweep followed (as
 * `difftry analyze --sweep` does).
 */
export function sweepBranches(
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
): Branches {
  const swept = sweepEquilibria(networkAt, values, { loadRises: true });
  const points = swept.points.map((point): BranchPoint => {
    const found: CallEquilibrium[] = [];
    if (point.healthy !== undefined) found.push({ kind: 'healthy', solution: point.healthy });
    if (point.storm !== undefined) found.push({ kind: 'storm', solution: point.storm });
    if (found.length === 0) return { value: point.value };
    const report = analyzeNetwork(networkAt(point.value), {
      equilibria: { equilibria: found, tips: [] },
    });
    const branch = (kind: 'healthy' | 'storm') => {
      const e = report.equilibria.find((x) => x.kind === kind);
      return e === undefined
        ? undefined
        : {
            high: e.endToEnd.high?.rejection ?? Number.NaN,
            low: e.endToEnd.low?.rejection ?? Number.NaN,
          };
    };
    const healthy = point.healthy === undefined ? undefined : branch('healthy');
    const storm = point.storm === undefined ? undefined : branch('storm');
    return {
      value: point.value,
      ...(healthy === undefined ? {} : { healthy }),
      ...(storm === undefined ? {} : { storm }),
    };
  });
  return {
    points,
    ...(swept.tipping === undefined ? {} : { tipping: swept.tipping }),
    ...(swept.recovery === undefined ? {} : { recovery: swept.recovery }),
  };
}
