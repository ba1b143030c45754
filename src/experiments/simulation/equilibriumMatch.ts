/**
 * Which analysed equilibrium a simulated run (or one of its windows) settled in, for the
 * validations that compare an analysis finding two states with runs started idle
 * (scripts/validate-calls.ts, scripts/validate-timeouts-model.ts): a run's per-class rejections
 * and per-service attempt rejections, and the equilibrium nearest to them.
 */

import type { Equilibrium } from '../../model/network/NetworkReport.js';
import type { NetworkSimulationResult } from '../../sim/network/NetworkSimulationResult.js';

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
