/**
 * DGG-like call graphs of any size, for the call-graph validation (scripts/validate-calls.ts).
 *
 * `generateDgg` makes one small call graph (2–7 services, depth ≤ 5, fan-out ≤ 5), the shape DGG
 * fits to the call graph of one kind of request in the Alibaba traces. An application serves
 * many kinds of request behind one entry, so a larger DGG-like network is composed here as that:
 * an entry `frontend` with one branch per kind of request, each branch calling the entry of its
 * own `generateDgg` graph (services renamed `gB.name`). Each request takes one branch and touches
 * that graph only (2–8 services), unlike a µBench network, where one request runs the whole tree.
 * The sub-graphs share no service (DGG's sharing is within a graph).
 */

import { roundSignificant } from '../../config/generators/roundSignificant.js';
import {
  DGG_SERVICE_RANGE,
  generateDgg,
  type NetworkSpec,
  QUEUE_SIZES,
  type ServiceSpec,
  UTILISATION_RANGE,
} from '../../config/index.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { seededRandom } from '../../model/random.js';

/** Options of {@link composeDgg}. */
export interface ComposedDggOptions {
  /** Services in all, the entry included; at least 3. */
  readonly services: number;
  /** Seed of the composition; sub-graph b is `generateDgg` with seed `1000 · seed + b`. */
  readonly seed: number;
  /** Priority classes (default 2: high and low, k = (5, 1)). */
  readonly classes?: number;
  /**
   * Total external arrival rate at `frontend`, requests/s (default 300, the generators'). The
   * capacities follow it, so it sets the network's time scale: with many kinds of request each
   * sub-graph gets a small share of it, and slow services.
   */
  readonly arrivalRate?: number;
}

/**
 * A composed DGG-like call graph (see the module comment): sub-graph sizes drawn uniformly from
 * 2 to 7 until the services add up, branch probabilities drawn in proportion to weights uniform
 * in [0.25, 1] (every request takes one branch), the entry's queue drawn from {10, 20, 50, 100}
 * and its capacity set for a utilisation drawn in [0.3, 1.6], as the generators do. Each
 * sub-graph's capacities are its generator's (drawn for the whole `arrivalRate` at its entry),
 * scaled by its branch probability, so every service
 * keeps the nominal utilisation its generator drew for it (capacities rounded to 4 significant digits,
 * as the generators write them). All external arrivals enter at
 * `frontend` (`arrivalRate`, split 1 : 5 for two classes, as the generators split them).
 * Pure: the same options give the same network.
 * @throws RangeError for fewer than 3 services.
 * @example
 * ```ts
 * const spec = composeDgg({ services: 120, seed: 7 });
 * spec.services[0]?.branches?.length; // the kinds of request
 * ```
 */
export function composeDgg(options: ComposedDggOptions): NetworkSpec {
  const { services, seed, classes = 2, arrivalRate = 300 } = options;
  if (!(Number.isInteger(services) && services >= 3)) {
    throw new InvalidArgumentError(`services should be an integer ≥ 3, got ${services}`);
  }
  if (!(Number.isFinite(arrivalRate) && arrivalRate > 0)) {
    throw new InvalidArgumentError(
      `arrivalRate should be a positive number (requests/s), got ${arrivalRate}`,
    );
  }
  const random = seededRandom(seed);
  const [fewest, most] = DGG_SERVICE_RANGE;
  const sizes: number[] = [];
  let remaining = services - 1;
  while (remaining > 0) {
    let size = Math.min(remaining, fewest + Math.floor(random() * (most - fewest + 1)));
    // Never leave a single service over: a DGG graph has at least two.
    if (remaining - size === 1) size += size < most ? 1 : -1;
    sizes.push(size);
    remaining -= size;
  }
  const weights = sizes.map(() => 0.25 + 0.75 * random());
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => w / totalWeight);

  const graphs = sizes.map((size, b) =>
    generateDgg({ services: size, classes, seed: 1000 * seed + b, form: 'calls', arrivalRate }),
  );
  const first = graphs[0] as NetworkSpec;
  const entry = first.services[0] as ServiceSpec;
  const arrivals = { ...entry.arrivals };
  const totalArrival = Object.values(arrivals).reduce((a, b) => a + b, 0);
  const [leastUtilisation, greatestUtilisation] = UTILISATION_RANGE;
  const utilisation = leastUtilisation + (greatestUtilisation - leastUtilisation) * random();
  const queue = QUEUE_SIZES[Math.floor(random() * QUEUE_SIZES.length)] ?? 50;

  const rename = (b: number, name: string) => `g${b}.${name}`;
  const frontend: ServiceSpec = {
    name: 'frontend',
    capacity: roundSignificant(totalArrival / utilisation),
    queue,
    arrivals,
    serviceTime: { dist: 'exponential' },
    residual: false,
    branches: graphs.map((graph, b) => ({
      name: `kind${b}`,
      p: shares[b] as number,
      calls: [{ to: rename(b, graph.services[0]?.name ?? ''), n: 1, mode: 'sequential' }],
    })),
  };
  const members = graphs.flatMap((graph, b) =>
    graph.services.map(
      (s): ServiceSpec => ({
        ...s,
        name: rename(b, s.name),
        capacity: roundSignificant(s.capacity * (shares[b] as number)),
        arrivals: {},
        ...(s.calls === undefined
          ? {}
          : { calls: s.calls.map((c) => ({ ...c, to: rename(b, c.to) })) }),
      }),
    ),
  );
  return {
    name: 'dgg-composed',
    description: `DGG-like call graphs composed behind one entry: ${services} services, ${sizes.length} kinds of request, seed ${seed}`,
    model: first.model,
    classes: first.classes,
    services: [frontend, ...members],
  };
}
