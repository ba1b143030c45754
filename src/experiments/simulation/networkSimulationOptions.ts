/**
 * The network simulator's options for a network file (run length, service-time laws, backoffs,
 * per-try timeouts): what `difftry simulate` and the experiment scripts hand to `simulateNetwork`
 * and `replicateNetwork`. It joins the file (spec/) to the simulator (sim/), so it sits in the
 * lowest layer that may import both (.dependency-cruiser.cjs).
 */

import { resolveHops } from '../../config/resolveHops.js';
import type { NetworkSpec } from '../../config/schema.js';
import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
} from '../../model/backoff/BackoffDescription.js';
import { serviceTimeDistribution } from '../../model/distributions/index.js';
import {
  createTimeoutStrategy,
  type TimeoutStrategyDescription,
} from '../../policy/timeouts/createTimeoutStrategy.js';
import type { SimulateNetworkOptions } from '../../sim/network/SimulateNetworkOptions.js';

/** Run-length options of a simulation. */
export interface RunLength {
  /** Measured window, seconds of virtual time. */
  readonly duration: number;
  /** Warm-up before the window, seconds (default: the simulator's). */
  readonly warmup?: number;
  readonly seed: number;
}

/** The per-class `timeoutMs` of a network file, by class name; empty when no class has one. */
export function fileClassTimeouts(network: NetworkSpec): Record<string, number> {
  const timeouts: Record<string, number> = {};
  for (const c of network.classes) {
    if (c.timeoutMs !== undefined) timeouts[c.name] = c.timeoutMs;
  }
  return timeouts;
}

/**
 * The network simulator's options for a network file: run length, each service's service-time
 * law from the file, the file's default backoff and each class's own (`resolveHops`). The per-try
 * timeouts the simulator takes from the model it runs (`toNetworkModel` resolved each hop's T);
 * `timeouts` (from `--timeout` or `--timeouts`) instead gives every hop a fresh strategy built
 * from the description, for every class.
 */
export function toNetworkSimulationOptions(
  network: NetworkSpec,
  run: RunLength,
  timeouts?: TimeoutStrategyDescription,
): SimulateNetworkOptions & {
  readonly backoff: BackoffDescription;
  readonly classBackoffs: readonly BackoffDescription[];
} {
  return {
    duration: run.duration,
    ...(run.warmup === undefined ? {} : { warmup: run.warmup }),
    seed: run.seed,
    backoff: network.backoff ?? DEFAULT_BACKOFF,
    classBackoffs: resolveHops(network).classes.map((c) => c.backoff),
    serviceTimes: network.services.map((service) =>
      serviceTimeDistribution(service.serviceTime, service.capacity),
    ),
    ...(timeouts === undefined ? {} : { timeouts: () => createTimeoutStrategy(timeouts) }),
  };
}
