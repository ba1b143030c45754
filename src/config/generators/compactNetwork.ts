import type { NetworkSpec, NetworkSpecInput } from '../schema.js';

/**
 * A network as a person would write it: the same value without the fields that only restate a
 * default (class `weight` 1, service `arrivals` {}, `serviceTime` exponential, `residual` false,
 * call `mode` sequential), keys in the order of docs/design.md's example, so a generated file of
 * thousands of services stays readable. Parsing it gives back `network`. Returns a new value.
 */
export function compactNetwork(network: NetworkSpec): NetworkSpecInput {
  return {
    ...network,
    classes: network.classes.map(({ weight, ...rest }) =>
      weight === 1 ? rest : { ...rest, weight },
    ),
    services: network.services.map(
      ({ name, capacity, queue, arrivals, serviceTime, residual, calls, ...rest }) => ({
        name,
        capacity,
        queue,
        ...(Object.keys(arrivals).length > 0 ? { arrivals } : {}),
        ...(serviceTime.dist === 'exponential' ? {} : { serviceTime }),
        ...(residual ? { residual } : {}),
        ...rest,
        ...(calls === undefined
          ? {}
          : {
              calls: calls.map(({ mode, ...call }) =>
                mode === 'sequential' ? call : { ...call, mode },
              ),
            }),
      }),
    ),
  };
}
