/**
 * The network simulator's options for a network file (run length, service-time laws, backoffs,
 * per-try timeouts): what `difftry simulate` and the experiment scripts hand to `simulateNetwork`
 * and `replicateNetwork`. It joins the file (spec/) to the simulator (sim/), so it sits in the
 * lowest layer that may import both (.dependency-cruiser.cjs).
 */
import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
} from '../../model/backoff/BackoffDescription.js';
import { serviceTimeDistribution } from '../../model/distributions/index.js';
import type { ClassOptions } from '../../policy/classes/ClassTable.js';
import { retryPolicy } from '../../policy/retry/RetryPolicy.js';
import {
  createTimeoutStrategy,
  type TimeoutStrategyDescription,
} from '../../policy/timeouts/createTimeoutStrategy.js';
import type { SimulateNetworkOptions } from '../../sim/network/SimulateNetworkOptions.js';
import type { NetworkSpec } from '../../spec/schema.js';
import { classBackoff } from '../../spec/toNetworkModel.js';

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
 * law from the file, the file's default backoff and each class's own (`classBackoff`), and the
 * per-try timeouts. `timeouts` (from `--timeout` or `--timeouts`) gives every hop a fresh strategy
 * built from the description, for every class; without it, a call into a service gets the
 * service's `timeouts` entry for its class, else the class's `timeoutMs`, else none.
 */
export function toNetworkSimulationOptions(
  network: NetworkSpec,
  run: RunLength,
  timeouts?: TimeoutStrategyDescription,
): SimulateNetworkOptions & {
  readonly backoff: BackoffDescription;
  readonly classBackoffs: readonly BackoffDescription[];
} {
  const classTimeouts = fileClassTimeouts(network);
  const hasClassTimeouts =
    Object.keys(classTimeouts).length > 0 ||
    network.services.some((s) => Object.keys(s.timeouts ?? {}).length > 0);
  return {
    duration: run.duration,
    ...(run.warmup === undefined ? {} : { warmup: run.warmup }),
    seed: run.seed,
    backoff: network.backoff ?? DEFAULT_BACKOFF,
    classBackoffs: network.classes.map((_, p) => classBackoff(network, p)),
    serviceTimes: network.services.map((service) =>
      serviceTimeDistribution(service.serviceTime, service.capacity),
    ),
    ...(timeouts === undefined ? {} : { timeouts: () => createTimeoutStrategy(timeouts) }),
    ...(timeouts !== undefined || !hasClassTimeouts
      ? {}
      : {
          // The simulator times out a class whose policy has a `timeoutMs`: add the file's (the
          // service's own per-class timeout for calls into it, else the class's).
          retryPolicy: (service, options) => {
            const classes: Record<string, ClassOptions> = {};
            const hop = network.services[service]?.timeouts ?? {};
            for (const [name, c] of Object.entries(options.classes)) {
              const timeoutMs = hop[name] ?? classTimeouts[name];
              classes[name] = timeoutMs === undefined ? c : { ...c, timeoutMs };
            }
            return retryPolicy({ ...options, classes });
          },
        }),
  };
}
