import type { NetworkSpec } from 'difftry/config';

/**
 * What the Network view lets a user change in a network file: each class's external arrival
 * rate at the entry service, each class's retry limit k, and each per-service retry limit the
 * file sets. Applied to the file with {@link withParameters}, they give the file the CLI would
 * analyse (`difftry analyze` on the file so edited prints the same numbers).
 */
export interface NetworkParameters {
  /** γ per class name at the entry service, requests per second. */
  readonly arrivals: Readonly<Record<string, number>>;
  /** k per class name (the class's `retries`). */
  readonly retries: Readonly<Record<string, number>>;
  /** k per service name and class name, where the file overrides the class's k at a service. */
  readonly serviceRetries: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/**
 * The entry service: the first service with a positive external arrival rate (the schema
 * requires one), where the view's arrival sliders act and the sweep varies the lowest class.
 */
export function entryServiceIndex(network: NetworkSpec): number {
  const index = network.services.findIndex((s) =>
    Object.values(s.arrivals).some((rate) => rate > 0),
  );
  return Math.max(0, index);
}

/** The parameters as the file has them. */
export function fileParameters(network: NetworkSpec): NetworkParameters {
  const entry = network.services[entryServiceIndex(network)];
  return {
    arrivals: Object.fromEntries(
      network.classes.map((c) => [c.name, entry?.arrivals[c.name] ?? 0]),
    ),
    retries: Object.fromEntries(network.classes.map((c) => [c.name, c.retries])),
    serviceRetries: Object.fromEntries(
      network.services
        .filter((s) => s.retries !== undefined)
        .map((s) => [s.name, { ...s.retries }]),
    ),
  };
}

/**
 * The file with the parameters written into it (a new value; the input is unchanged): the entry
 * service's arrival rates, the classes' `retries`, the services' `retries` overrides. A
 * parameter the file has no place for (an override at a service without one) is ignored.
 */
export function withParameters(network: NetworkSpec, parameters: NetworkParameters): NetworkSpec {
  const entry = entryServiceIndex(network);
  return {
    ...network,
    classes: network.classes.map((c) => ({
      ...c,
      retries: parameters.retries[c.name] ?? c.retries,
    })),
    services: network.services.map((service, i) => {
      const overrides = parameters.serviceRetries[service.name];
      if (i !== entry && (service.retries === undefined || overrides === undefined)) return service;
      return {
        ...service,
        ...(i === entry ? { arrivals: { ...service.arrivals, ...parameters.arrivals } } : {}),
        ...(service.retries === undefined || overrides === undefined
          ? {}
          : { retries: { ...service.retries, ...overrides } }),
      };
    }),
  };
}
