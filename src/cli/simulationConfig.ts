import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { serviceTimeDistribution } from '../model/distributions/index.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { SimulateNetworkOptions } from '../sim/network/simulateNetwork.js';
import type { SingleServiceConfig } from '../sim/SingleServiceConfig.js';
import type { NetworkSpec } from '../spec/schema.js';
import { classBackoff } from '../spec/toNetworkModel.js';
import { UsageError } from './UsageError.js';

/** Run-length options of a simulation. */
export interface RunLength {
  /** Measured window, seconds of virtual time. */
  readonly duration: number;
  /** Warm-up before the window, seconds (default: the simulator's). */
  readonly warmup?: number;
  readonly seed: number;
}

/**
 * The single-service simulator's configuration for a network of one service: arrivals and retry
 * limits from the analysed `model` (so both see the same overrides), service-time law and
 * backoffs from the file.
 */
export function toSingleServiceConfig(
  network: NetworkSpec,
  model: NetworkModel,
  run: RunLength,
): SingleServiceConfig {
  const [service, ...others] = network.services;
  const resolved = model.services[0];
  if (
    service === undefined ||
    resolved === undefined ||
    others.length > 0 ||
    resolved.routes.length > 0
  ) {
    throw new UsageError(
      `simulate: this release simulates networks of one service with no routes; the file has ${network.services.length} services`,
    );
  }
  return {
    capacity: service.capacity,
    queue: service.queue,
    serviceTime: serviceTimeDistribution(service.serviceTime, service.capacity),
    classes: model.classes.map((c, p) => ({
      name: c.name,
      arrivalRate: resolved.arrivals[p] ?? 0,
      retryLimit: resolved.retryLimits[p] ?? c.retryLimit,
      backoff: classBackoff(network, p),
    })),
    duration: run.duration,
    warmup: run.warmup,
    seed: run.seed,
  };
}

/**
 * The network simulator's options for a network file: run length, each service's service-time
 * law from the file, and one backoff for every hop — the first class's, since the network
 * simulator does not yet apply per-class backoffs.
 */
export function toNetworkSimulationOptions(
  network: NetworkSpec,
  run: RunLength,
): SimulateNetworkOptions & { readonly backoff: BackoffDescription } {
  return {
    duration: run.duration,
    ...(run.warmup === undefined ? {} : { warmup: run.warmup }),
    seed: run.seed,
    backoff: classBackoff(network, 0),
    serviceTimes: network.services.map((service) =>
      serviceTimeDistribution(service.serviceTime, service.capacity),
    ),
  };
}
