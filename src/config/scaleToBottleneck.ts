import { nominalLoads } from '../model/network/nominalLoads.js';
import type { NetworkSpec } from './schema.js';
import { toNetworkModel } from './toNetworkModel.js';

/** How {@link scaleToBottleneck} sets the queues before scaling. */
export interface QueueSetting {
  /** Every service's queue m raised to at least this. */
  readonly minQueue?: number;
  /** Every service's queue m set to this (wins over `minQueue`). */
  readonly queue?: number;
}

/**
 * The network with its queues set as asked and every external arrival rate scaled by one factor,
 * so that the most loaded service has nominal load `rho0` (see `nominalLoads`): how the validation
 * studies place a generated network at a chosen overload.
 * @example
 * ```ts
 * const overloaded = scaleToBottleneck(generateDgg({ seed: 7 }).spec, 2, { minQueue: 20 });
 * ```
 */
export function scaleToBottleneck(
  spec: NetworkSpec,
  rho0: number,
  queues: QueueSetting = {},
): NetworkSpec {
  const withQueues: NetworkSpec = {
    ...spec,
    services: spec.services.map((s) => ({
      ...s,
      queue: queues.queue ?? Math.max(queues.minQueue ?? 1, s.queue),
    })),
  };
  const factor = rho0 / Math.max(...nominalLoads(toNetworkModel(withQueues)));
  return {
    ...withQueues,
    services: withQueues.services.map((s) => ({
      ...s,
      arrivals: Object.fromEntries(
        Object.entries(s.arrivals ?? {}).map(([name, rate]) => [name, rate * factor]),
      ),
    })),
  };
}
