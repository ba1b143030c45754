import type { NetworkSpec } from '../../config/schema.js';
import { toNetworkModel } from '../../config/toNetworkModel.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import type { TestbedMeasurement } from './measureTestbed.js';

/** The analysis of the network a testbed ran, in the forms and capacities it was asked for. */
export interface TestbedPrediction {
  /** Call-graph form (the file that ran) with the calibrated capacities and measured arrivals. */
  readonly calls: NetworkReport;
  /** Routing form (the twin file) with the same capacities and arrivals, when a twin was given. */
  readonly routing?: NetworkReport;
  /** Call-graph form with the nominal (configured) capacities, to show what calibration moved. */
  readonly nominal: NetworkReport;
  /** The capacities the predictions used, requests/s, by service. */
  readonly capacities: Readonly<Record<string, number>>;
  /** The arrival rates they used, requests/s, by entry service and class. */
  readonly arrivals: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/**
 * Predicts what a testbed run should have measured, with `analyzeNetwork`, for the same network
 * and the same capacities: each service's capacity is the one measured during the window (jobs
 * per second of real busy time, which takes in how much a busy event loop stretched the timers),
 * and each entry's arrival rate is the rate its stream sent in the window. Both predictions assume
 * what the testbed's admission is: M/M/1/m around each service's own work (c = 1, m = `queue`),
 * time spent waiting on children not counted.
 *
 * `routing`, the routing form of the same network (for `hotel-calls`, `hotel`), must name the
 * same services; it gets the same classes, retry limits, capacities and arrivals.
 * @throws RangeError when the routing twin names a service the run did not have.
 */
export function predictTestbed(
  measurement: TestbedMeasurement,
  routing?: NetworkSpec,
): TestbedPrediction {
  const ran = measurement.network;
  const capacities = Object.fromEntries(
    measurement.services.map((s) => [s.name, s.calibratedCapacity]),
  );
  const arrivals: Record<string, Record<string, number>> = {};
  for (const stream of measurement.streams) {
    arrivals[stream.entry] ??= {};
    (arrivals[stream.entry] as Record<string, number>)[stream.className] = stream.windowRate;
  }
  const calibrated = withRates(ran, capacities, arrivals);
  return {
    calls: analyzeNetwork(toNetworkModel(calibrated)),
    ...(routing !== undefined && {
      routing: analyzeNetwork(toNetworkModel(routingTwin(routing, ran, capacities, arrivals))),
    }),
    nominal: analyzeNetwork(toNetworkModel(withRates(ran, {}, arrivals))),
    capacities,
    arrivals,
  };
}

/** `network` with these capacities and external arrivals (services not named keep theirs). */
function withRates(
  network: NetworkSpec,
  capacities: Readonly<Record<string, number>>,
  arrivals: Readonly<Record<string, Readonly<Record<string, number>>>>,
): NetworkSpec {
  return {
    ...network,
    services: network.services.map((s) => ({
      ...s,
      capacity: capacities[s.name] ?? s.capacity,
      arrivals: { ...(arrivals[s.name] ?? {}) },
    })),
  };
}

/**
 * The routing form of the network that ran: the twin's routes, with the run's classes (retry
 * limits, backoff), per-service retry overrides, queues, capacities and arrivals.
 */
function routingTwin(
  twin: NetworkSpec,
  ran: NetworkSpec,
  capacities: Readonly<Record<string, number>>,
  arrivals: Readonly<Record<string, Readonly<Record<string, number>>>>,
): NetworkSpec {
  const ranByName = new Map(ran.services.map((s) => [s.name, s]));
  for (const s of twin.services) {
    if (!ranByName.has(s.name)) {
      throw new InvalidArgumentError(
        `the routing form names service "${s.name}", which the call-graph network does not have`,
      );
    }
  }
  const twinNames = new Set(twin.services.map((s) => s.name));
  for (const s of ran.services) {
    if (!twinNames.has(s.name)) {
      throw new InvalidArgumentError(`the routing form has no service "${s.name}"`);
    }
  }
  return {
    ...twin,
    model: ran.model,
    classes: ran.classes.map((c) => ({ ...c })),
    ...(ran.backoff !== undefined && { backoff: ran.backoff }),
    services: twin.services.map((s) => {
      const live = ranByName.get(s.name) as NetworkSpec['services'][number];
      const { retries: _dropped, ...rest } = s;
      return {
        ...rest,
        capacity: capacities[s.name] ?? live.capacity,
        queue: live.queue,
        model: live.model,
        arrivals: { ...(arrivals[s.name] ?? {}) },
        ...(live.retries !== undefined && { retries: { ...live.retries } }),
      };
    }),
  };
}
