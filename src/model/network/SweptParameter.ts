import type { NetworkModel } from './NetworkModel.js';

/**
 * One parameter of a network varied along a sweep: a service's external arrival rate of one
 * class (requests per second), or its capacity (requests per second).
 */
export interface SweptParameter {
  /** The service whose parameter varies (index into `network.services`). */
  readonly serviceIndex: number;
  /** A class index (that class's arrival rate), or `capacity`. */
  readonly field: number | 'capacity';
}

/**
 * The network with the swept parameter set to `value` (a new value; the input is unchanged).
 * @example
 * ```ts
 * withSweptValue(network, { serviceIndex: 0, field: 1 }, 200); // γ of class 1 at service 0: 200/s
 * ```
 */
export function withSweptValue(
  network: NetworkModel,
  parameter: SweptParameter,
  value: number,
): NetworkModel {
  return {
    ...network,
    services: network.services.map((service, i) => {
      if (i !== parameter.serviceIndex) return service;
      if (parameter.field === 'capacity') return { ...service, capacity: value };
      const field = parameter.field;
      return {
        ...service,
        arrivals: service.arrivals.map((rate, p) => (p === field ? value : rate)),
      };
    }),
  };
}

/** Whether the load rises with the parameter (an arrival rate) or falls (a capacity). */
export function loadRisesWith(parameter: SweptParameter): boolean {
  return parameter.field !== 'capacity';
}
