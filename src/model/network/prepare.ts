import { phiFor } from '../phi/index.js';
import type { Phi } from '../phi/Phi.js';
import { checkNetworkModel } from './checkNetworkModel.js';
import type { NetworkModel } from './NetworkModel.js';

/** Per-service constants the network solvers need, resolved once. */
export interface PreparedService {
  readonly phi: Phi;
  readonly capacity: number;
  /** Mutable per-class loads handed to the single-service solver (reused, never reallocated). */
  readonly loads: { arrivalRate: number; retryLimit: number; residualAlphas?: readonly number[] }[];
}

/**
 * Checks a network model ({@link checkNetworkModel}) and resolves each service's φ law and its
 * reusable class loads.
 * @throws RangeError naming the service and the bad value.
 */
export function prepareServices(network: NetworkModel): PreparedService[] {
  checkNetworkModel(network);
  return network.services.map((service) => ({
    phi: phiFor(service.model, service.queue),
    capacity: service.capacity,
    loads: network.classes.map((c, p) => ({
      arrivalRate: 0,
      retryLimit: service.retryLimits[p] ?? c.retryLimit,
      residualAlphas: service.residualAlphas?.[p],
    })),
  }));
}
