import type { CallSpec, NetworkSpec, NetworkSpecInput } from '../schema.js';

type CallSpecInput = NonNullable<NetworkSpecInput['services'][number]['calls']>[number];

/**
 * A network as a person would write it: the same value without the fields that only restate a
 * default (class `weight` 1, service `arrivals` {}, `serviceTime` exponential, `residual` false,
 * call `n` 1 and `mode` sequential), keys in the order of docs/design.md's example, so a generated file of
 * thousands of services stays readable. Parsing it gives back `network`. Returns a new value.
 */
export function compactNetwork(network: NetworkSpec): NetworkSpecInput {
  return {
    ...network,
    classes: network.classes.map(({ weight, ...rest }) =>
      weight === 1 ? rest : { ...rest, weight },
    ),
    services: network.services.map(
      ({ name, capacity, queue, arrivals, serviceTime, residual, calls, branches, ...rest }) => ({
        name,
        capacity,
        queue,
        ...(Object.keys(arrivals).length > 0 ? { arrivals } : {}),
        ...(serviceTime.dist === 'exponential' ? {} : { serviceTime }),
        ...(residual ? { residual } : {}),
        ...rest,
        ...(calls === undefined ? {} : { calls: calls.map(compactCall) }),
        ...(branches === undefined
          ? {}
          : {
              branches: branches.map((branch) => ({
                ...branch,
                calls: branch.calls.map(compactCall),
              })),
            }),
      }),
    ),
  };
}

/** A call without its defaults (`n` 1, `mode` sequential). */
function compactCall({ n, mode, ...call }: CallSpec): CallSpecInput {
  return { ...call, ...(n === 1 ? {} : { n }), ...(mode === 'sequential' ? {} : { mode }) };
}
