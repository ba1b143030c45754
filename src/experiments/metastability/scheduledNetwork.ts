/**
 * A load schedule read as a network at one instant, so that the analysis can be asked about the
 * load a simulated run is under at that time (before a trigger, at a point of a ramp).
 */
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

import type { LoadSchedule } from '../../model/network/LoadSchedule.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { scheduledRates } from '../../sim/network/scheduledRates.js';

/**
 * The network with every arrival rate and capacity multiplied by the schedule's multiplier at
 * virtual time `t` (seconds since the run began, as the schedule counts); a new value.
 * @throws RangeError as `scheduledRates` does for a schedule that does not fit the network.
 * @example
 * ```ts
 * // examples/capacity-drop.yaml: api × 0.3 on [100 s, 110 s)
 * networkAtTime(network, drop, 105).services[0].capacity; // 30
 * ```
 */
export function networkAtTime(
  network: NetworkModel,
  schedule: LoadSchedule,
  t: number,
): NetworkModel {
  const rates = scheduledRates(schedule, network);
  const classCount = network.classes.length;
  return {
    ...network,
    services: network.services.map((service, i) => ({
      ...service,
      capacity: service.capacity * (rates.capacity[i]?.at(t) ?? 1),
      arrivals: service.arrivals.map(
        (rate, p) => rate * (rates.arrivals[i * classCount + p]?.at(t) ?? 1),
      ),
    })),
  };
}

/** A step of one service's capacity, as a schedule's trigger. */
export interface CapacityStep {
  readonly service: string;
  /** Virtual seconds, [at, until). */
  readonly at: number;
  readonly until: number;
  /** The multiplier of the capacity over the step. */
  readonly factor: number;
}

/**
 * The schedule's one capacity step (the trigger of a run), or undefined when it changes no
 * capacity.
 * @throws RangeError when it changes capacities more than once, or by a ramp or a step that
 *   never ends.
 */
export function capacityStep(schedule: LoadSchedule): CapacityStep | undefined {
  const steps = schedule.changes.filter((c) => c.capacity !== undefined);
  if (steps.length === 0) return undefined;
  const [step] = steps;
  if (
    steps.length > 1 ||
    step === undefined ||
    typeof step.capacity !== 'number' ||
    step.until === undefined ||
    step.service === undefined
  ) {
    throw new InvalidArgumentError(
      'expected one capacity step with an end (a trigger) in the schedule',
    );
  }
  return { service: step.service, at: step.at, until: step.until, factor: step.capacity };
}
