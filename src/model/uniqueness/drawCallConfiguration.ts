import type { NetworkCall, NetworkModel, NetworkService } from '../network/NetworkModel.js';
import { MODEL_NAMES } from '../phi/Phi.js';
import type { RandomSource } from '../random.js';
import {
  type ConfigurationOptions,
  DRAWN_QUEUES,
  MAX_DRAWN_RETRIES,
  startConfiguration,
} from './configurationDraw.js';

/** A service's capacity is the base graph's times 2^u, u uniform in [−2, 2]. */
const CAPACITY_OCTAVES = 2;

/**
 * A random configuration of a call-graph network on the graph of `base` (its services, their
 * calls and their capacities as a scale), for checking numerically whether its fixed point is
 * unique — which nothing proves for call graphs (docs/model.md, "A network, call-graph form"):
 *
 * - P classes, P uniform in 1 … `maxClasses`, named `c1` … `cP`, each with a retry limit (the
 *   retries of every hop into a service) uniform in 0 … 8, overridden at a service with
 *   probability 0.15 by another such draw;
 * - external arrivals at the entry (service 0) only, every class (arrivalRate / P) × U[0.2, 1.8];
 * - capacities: the base's times 2^U[−2, 2]; queues from {1, 2, 5, 10, 20, 50, 100}; a φ law for
 *   the network, overridden at a service with probability 0.2;
 * - calls: the base's calls (n = 1 or 2 per request), each made parallel with probability 0.25
 *   and, with P ≥ 2, made by one class only (chosen uniformly) with probability 0.2.
 *
 * Pure: the result depends only on `base`, the draws of `random` and the options.
 * @throws {RangeError} on `maxClasses` outside 1 … 20 or a non-positive `arrivalRate`.
 * @example
 * ```ts
 * const network = drawCallConfiguration(
 *   toNetworkModel(generateDgg({ services: 6, classes: 1, form: 'calls' })), seededRandom(7));
 * ```
 */
export function drawCallConfiguration(
  base: NetworkModel,
  random: RandomSource,
  options: ConfigurationOptions = {},
): NetworkModel {
  const { arrivalRate, classes, networkModel, uniform, integer, pick } = startConfiguration(
    random,
    options,
  );
  const classCount = classes.length;
  const share = arrivalRate / classCount;
  const services = base.services.map((service, i): NetworkService => {
    const arrivals = classes.map(() => (i === 0 ? share * uniform(0.2, 1.8) : 0));
    const retryLimits = classes.map((c) =>
      random() < 0.15 ? integer(0, MAX_DRAWN_RETRIES) : c.retryLimit,
    );
    const calls = (service.calls ?? []).map((call): NetworkCall => {
      const parallel = random() < 0.25;
      const classIndex = classCount >= 2 && random() < 0.2 ? integer(0, classCount - 1) : undefined;
      return {
        to: call.to,
        n: call.n,
        ...(parallel ? { parallel } : {}),
        ...(classIndex === undefined ? {} : { classIndex }),
      };
    });
    return {
      name: service.name,
      capacity: service.capacity * 2 ** uniform(-CAPACITY_OCTAVES, CAPACITY_OCTAVES),
      queue: pick(DRAWN_QUEUES),
      model: random() < 0.2 ? pick(MODEL_NAMES) : networkModel,
      arrivals,
      retryLimits,
      routes: [],
      calls,
    };
  });
  return { classes, services, mode: 'calls' };
}
