import type { NetworkModel } from './NetworkModel.js';

/**
 * A network under uniform retries, the baseline DiffTry is compared with: at every hop every
 * class gets the highest class's retry limit there, as a mesh's single retry policy (and the
 * simulator's `uniform` and budget strategies) give them. Everything else stays: a class's
 * α list and mean retry delays already cover the most retries any class makes (`toNetworkModel`
 * builds them so), and a law reads the first k of them. Pure: returns a new model.
 * @example
 * ```ts
 * const model = toNetworkModel(network); // k = (5, 1)
 * uniformLimits(model).classes.map((c) => c.retryLimit); // [5, 5]
 * ```
 */
export function uniformLimits(network: NetworkModel): NetworkModel {
  const highest = network.classes[0]?.retryLimit ?? 0;
  return {
    ...network,
    classes: network.classes.map((c) => ({ ...c, retryLimit: highest })),
    services: network.services.map((service) => {
      const limit = service.retryLimits[0] ?? highest;
      return { ...service, retryLimits: service.retryLimits.map(() => limit) };
    }),
  };
}
