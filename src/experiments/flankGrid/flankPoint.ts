/**
 * One point of issue 25's flank grid (scripts/orbit-law-grid.ts, scripts/timeout-shape.ts): one
 * service, μ = 100/s, two classes sharing the nominal load ρ equally — gold with k retries,
 * bronze with k − 1 — a per-try timeout of x mean service times, queue m, and exponential
 * backoff with mean 100 ms (difftry's default).
 */
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { runShares } from '../../model/network/runShares.js';
import type { OrbitClass } from '../../model/queue/OrbitClass.js';

export const FLANK_MU = 100;
export const FLANK_BACKOFF_S = 0.1;
export const FLANK_CLASSES = ['gold', 'bronze'] as const;

/**
 * The point as a network; with `timeouts` the model carries the timeout x/μ (fixed), else the
 * simulator is handed the clients' timeouts.
 */
export function flankNetwork(
  rho: number,
  x: number,
  k: number,
  m: number,
  options: { readonly timeouts: boolean },
): NetworkModel {
  const limits = [k, k - 1];
  return {
    classes: FLANK_CLASSES.map((name, p) => ({
      name,
      retryLimit: limits[p] as number,
      meanBackoffs: [FLANK_BACKOFF_S],
    })),
    services: [
      {
        name: 'api',
        capacity: FLANK_MU,
        queue: m,
        model: 'mm1m',
        arrivals: [(rho * FLANK_MU) / 2, (rho * FLANK_MU) / 2],
        retryLimits: limits,
        routes: [],
        ...(options.timeouts && { timeouts: [x / FLANK_MU, x / FLANK_MU] }),
      },
    ],
  };
}

/** The point's classes as the orbit law takes them, the timeout's law given. */
export function flankOrbitClasses(
  rho: number,
  x: number,
  k: number,
  law: Pick<OrbitClass, 'timeoutLaw' | 'timeoutStages'>,
): OrbitClass[] {
  return [k, k - 1].map((retryLimit) => ({
    arrivalRate: (rho * FLANK_MU) / 2,
    retryLimit,
    timeout: x,
    meanBackoff: FLANK_BACKOFF_S,
    ...law,
  }));
}

/** One state as a run reads it: its figure, and how long it lasts before the other (s). */
export interface RunState {
  readonly figure: number;
  readonly escape?: number | undefined;
}

/**
 * What a run watched over [from, to] seconds, started idle, is expected to read, given the
 * states listed healthy first: the first state's figure, or where there is a second (the storm)
 * and the first's escape time is known, the two weighted by the shares of the window spent in
 * each (`runShares`).
 */
export function runReading(
  states: readonly RunState[],
  window: { readonly from: number; readonly to: number },
): number {
  const [healthy, storm] = states;
  if (healthy === undefined) return Number.NaN;
  if (storm === undefined || healthy.escape === undefined) return healthy.figure;
  const shares = runShares(
    healthy.escape,
    storm.escape ?? Number.POSITIVE_INFINITY,
    window.from,
    window.to,
  );
  return shares.healthy * healthy.figure + shares.storm * storm.figure;
}
