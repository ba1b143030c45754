import { phiFor } from '../phi/index.js';
import type { Phi } from '../phi/Phi.js';
import type { NetworkModel } from './NetworkModel.js';

/** Per-service constants the network solvers need, resolved once. */
export interface PreparedService {
  readonly phi: Phi;
  readonly capacity: number;
  /** Mutable per-class loads handed to the single-service solver (reused, never reallocated). */
  readonly loads: { arrivalRate: number; retryLimit: number; residualAlphas?: readonly number[] }[];
}

/**
 * Checks a network model's numbers and indices (per-try timeouts, where given, must be positive
 * seconds), and resolves each service's φ law and its
 * reusable class loads.
 * @throws RangeError naming the service and the bad value.
 */
export function prepareServices(network: NetworkModel): PreparedService[] {
  const classCount = network.classes.length;
  if (classCount === 0) throw new RangeError('a network needs at least one class');
  if (network.services.length === 0) throw new RangeError('a network needs at least one service');
  const serviceCount = network.services.length;
  return network.services.map((service, i) => {
    const where = `services[${i}] (${service.name})`;
    if (!(Number.isFinite(service.capacity) && service.capacity > 0)) {
      throw new RangeError(
        `${where}.capacity should be a positive finite number, got ${service.capacity}`,
      );
    }
    for (let p = 0; p < classCount; p++) {
      const rate = service.arrivals[p] ?? 0;
      if (!(Number.isFinite(rate) && rate >= 0)) {
        throw new RangeError(`${where}.arrivals[${p}] should be a finite number ≥ 0, got ${rate}`);
      }
      const k = service.retryLimits[p] ?? network.classes[p]?.retryLimit ?? 0;
      if (!(Number.isInteger(k) && k >= 0 && k <= 1000)) {
        throw new RangeError(
          `${where}.retryLimits[${p}] should be an integer in [0, 1000], got ${k}`,
        );
      }
    }
    const edges = [
      ...service.routes,
      ...(service.calls ?? []),
      ...(service.branches ?? []).flatMap((b) => b.calls),
    ];
    for (const edge of edges) {
      if (!(Number.isInteger(edge.to) && edge.to >= 0 && edge.to < serviceCount)) {
        throw new RangeError(`${where} names an unknown service index ${edge.to}`);
      }
    }
    for (let p = 0; p < (service.timeouts?.length ?? 0); p++) {
      const seconds = service.timeouts?.[p];
      if (seconds !== undefined && !(seconds > 0)) {
        throw new RangeError(
          `${where}.timeouts[${p}] should be a positive number of seconds, got ${seconds}`,
        );
      }
    }
    for (const route of service.routes) {
      if (!(route.p >= 0 && route.p <= 1)) {
        throw new RangeError(`${where} has a route probability ${route.p}, expected one in [0, 1]`);
      }
    }
    return {
      phi: phiFor(service.model, service.queue),
      capacity: service.capacity,
      loads: network.classes.map((c, p) => ({
        arrivalRate: 0,
        retryLimit: service.retryLimits[p] ?? c.retryLimit,
        residualAlphas: service.residualAlphas?.[p],
      })),
    };
  });
}
