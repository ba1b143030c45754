import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { NetworkSpec } from './schema.js';

/**
 * A network file under uniform retries, the baseline DiffTry is compared with: at every hop
 * every class gets the highest class's retry limit there (read from `model`, the file's model
 * with any overrides applied), as the simulator's `uniform` strategy gives them. It is a file, so
 * that `toNetworkModel` rebuilds everything that follows from the limits (residual corrections).
 * @example
 * ```ts
 * const model = toNetworkModel(network); // k = (5, 1)
 * const uniform = toNetworkModel(uniformRetries(network, model)); // k = (5, 5)
 * ```
 */
export function uniformRetries(network: NetworkSpec, model: NetworkModel): NetworkSpec {
  const highest = model.classes[0]?.retryLimit ?? 0;
  return {
    ...network,
    classes: network.classes.map((c) => ({ ...c, retries: highest })),
    services: network.services.map((service, i) => {
      const limit = model.services[i]?.retryLimits[0] ?? highest;
      return {
        ...service,
        retries: Object.fromEntries(network.classes.map((c) => [c.name, limit])),
      };
    }),
  };
}
