/**
 * Replications of the network simulator kept run by run, for the validation scripts that must say
 * which state each run settled in (scripts/validate-calls.ts, scripts/validate-timeouts-model.ts):
 * `replicateNetwork` gives only the means.
 */

import type { NetworkModel } from '../../src/model/network/NetworkModel.js';
import type { Equilibrium } from '../../src/model/network/NetworkReport.js';
import type { NetworkSimulationResult } from '../../src/sim/network/NetworkSimulationResult.js';
import {
  type SimulateNetworkOptions,
  simulateNetwork,
} from '../../src/sim/network/simulateNetwork.js';
import { meanWithCi95 } from '../../src/stats/confidence.js';

/** A figure over replications: the mean and its 95 % half-width (NaN for one run). */
export interface Estimate {
  readonly mean: number;
  readonly ci95: number;
}

/** What {@link simulateRuns} returns. */
export interface RunSet {
  /** Every replication's result, in stream order. */
  readonly runs: readonly NetworkSimulationResult[];
  /** Per class name: end-to-end rejection over the runs. */
  readonly rejection: Readonly<Record<string, Estimate>>;
  /** Per service name: attempt rejection s and offered load ρ (attempts / μ) over the runs. */
  readonly services: Readonly<Record<string, { readonly s: Estimate; readonly rho: Estimate }>>;
  /** Attempts at every service per external request, over the runs. */
  readonly attemptsPerRequest: Estimate;
  /** Events processed by all runs. */
  readonly events: number;
}

/**
 * Runs `replications` independent replications of `simulateNetwork` (run r on substream
 * `firstStream + r` of `options.seed`) and estimates the figures the validations compare.
 * @throws RangeError for `replications` below 1, and whatever `simulateNetwork` refuses.
 */
export function simulateRuns(
  network: NetworkModel,
  options: Readonly<Omit<SimulateNetworkOptions, 'stream'>>,
  replications: number,
  firstStream: number,
): RunSet {
  if (!(Number.isInteger(replications) && replications >= 1)) {
    throw new RangeError(`replications should be an integer ≥ 1, got ${replications}`);
  }
  const runs: NetworkSimulationResult[] = [];
  for (let r = 0; r < replications; r++) {
    runs.push(simulateNetwork(network, { ...options, stream: firstStream + r }));
  }
  const estimate = (values: number[]): Estimate => meanWithCi95(values);
  const rejection: Record<string, Estimate> = {};
  for (const { name } of network.classes) {
    rejection[name] = estimate(runs.map((run) => run.endToEnd[name]?.rejection ?? Number.NaN));
  }
  const services: Record<string, { s: Estimate; rho: Estimate }> = {};
  for (const { name } of network.services) {
    services[name] = {
      s: estimate(runs.map((run) => run.services[name]?.s ?? Number.NaN)),
      rho: estimate(runs.map((run) => run.services[name]?.rho ?? Number.NaN)),
    };
  }
  let events = 0;
  for (const run of runs) events += run.events;
  return {
    runs,
    rejection,
    services,
    attemptsPerRequest: estimate(runs.map((run) => run.load.attemptsPerRequest)),
    events,
  };
}

/** Which analysed equilibrium a set of per-class rejections lies nearest to. */
export interface StateMatch {
  /** Index into the equilibria. */
  readonly index: number;
  readonly kind: Equilibrium['kind'];
  /** Largest per-class |rejection − the equilibrium's|. */
  readonly distance: number;
}

/**
 * The equilibrium nearest to `rejection` (per class name), by the largest per-class difference of
 * end-to-end rejection (classes given as NaN are left out); ties go to the first (the healthy
 * state).
 */
export function nearestEquilibrium(
  rejection: Readonly<Record<string, number>>,
  equilibria: readonly Equilibrium[],
): StateMatch {
  let best: StateMatch = { index: -1, kind: 'healthy', distance: Number.POSITIVE_INFINITY };
  equilibria.forEach((equilibrium, index) => {
    let distance = 0;
    for (const [name, value] of Object.entries(rejection)) {
      // A class none of whose requests ended (a short window) says nothing.
      if (Number.isNaN(value)) continue;
      const predicted = equilibrium.endToEnd[name]?.rejection ?? Number.NaN;
      distance = Math.max(distance, Math.abs(value - predicted));
    }
    if (distance < best.distance) best = { index, kind: equilibrium.kind, distance };
  });
  return best;
}

/** Per class name: one run's end-to-end rejection. */
export function runRejection(
  run: NetworkSimulationResult,
  classes: readonly { readonly name: string }[],
): Record<string, number> {
  return Object.fromEntries(
    classes.map(({ name }) => [name, run.endToEnd[name]?.rejection ?? Number.NaN]),
  );
}

/**
 * The mean over the runs of |class `name`'s rejection − that of the nearer equilibrium| (a run
 * in which none of its requests ended is at distance 0, as `nearestEquilibrium` reads a NaN).
 */
export function meanRunGap(
  runs: readonly NetworkSimulationResult[],
  equilibria: readonly Equilibrium[],
  name: string,
): number {
  const gaps = runs
    .map((run) => {
      const value = run.endToEnd[name]?.rejection ?? Number.NaN;
      return nearestEquilibrium({ [name]: value }, equilibria).distance;
    })
    .filter((gap) => Number.isFinite(gap));
  return gaps.length === 0 ? Number.NaN : gaps.reduce((a, b) => a + b, 0) / gaps.length;
}

/**
 * Per class name: the rejection of the requests that ended in one window of a run (windows must
 * have been asked for); NaN for a class none of whose requests ended there.
 */
export function windowRejection(
  run: NetworkSimulationResult,
  windowIndex: number,
  classes: readonly { readonly name: string }[],
): Record<string, number> {
  const window = run.windows?.[windowIndex];
  return Object.fromEntries(
    classes.map(({ name }) => [name, window?.classes[name]?.rejection ?? Number.NaN]),
  );
}

/** Services whose attempt rejection differs by more than this between two states tell them apart. */
const DISTINCT_SERVICE = 0.02;

/**
 * The equilibrium nearest to a run (or one of its windows) by the services' attempt rejections s:
 * over the services where the equilibria differ (some pair's s more than 0.02 apart), the largest
 * |s_run − s_equilibrium|. Two states of a large network often differ in one subtree only, by
 * less end to end than a run's noise; their services' s tell them apart. Falls back to
 * {@link nearestEquilibrium} on `rejection` when no service differs.
 */
export function nearestEquilibriumByServices(
  serviceS: Readonly<Record<string, number>>,
  rejection: Readonly<Record<string, number>>,
  equilibria: readonly Equilibrium[],
): StateMatch {
  const names = Object.keys(serviceS).filter((name) => {
    const values = equilibria.map((e) => e.services[name]?.s ?? Number.NaN);
    return Math.max(...values) - Math.min(...values) > DISTINCT_SERVICE;
  });
  if (names.length === 0) return nearestEquilibrium(rejection, equilibria);
  let best: StateMatch = { index: -1, kind: 'healthy', distance: Number.POSITIVE_INFINITY };
  equilibria.forEach((equilibrium, index) => {
    let distance = 0;
    for (const name of names) {
      const value = serviceS[name] ?? Number.NaN;
      if (Number.isNaN(value)) continue;
      distance = Math.max(
        distance,
        Math.abs(value - (equilibrium.services[name]?.s ?? Number.NaN)),
      );
    }
    if (distance < best.distance) best = { index, kind: equilibrium.kind, distance };
  });
  return best;
}

/** Per service name: one run's attempt rejection s, or one of its windows' (`windowIndex`). */
export function runServiceS(
  run: NetworkSimulationResult,
  services: readonly { readonly name: string }[],
  windowIndex?: number,
): Record<string, number> {
  const window = windowIndex === undefined ? undefined : run.windows?.[windowIndex];
  return Object.fromEntries(
    services.map(({ name }) => [
      name,
      (windowIndex === undefined ? run.services[name]?.s : window?.services[name]?.s) ?? Number.NaN,
    ]),
  );
}
