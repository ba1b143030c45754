/**
 * hotelReservation as the validation scripts vary it: the frontend is the bottleneck in the
 * built-in examples (μ = 143); `withBottleneck` moves it into the call graph.
 */
import type { NetworkModel } from '../../model/network/NetworkModel.js';

/** The frontend's capacity in the built-in examples, requests/s. */
export const HOTEL_FRONTEND_CAPACITY = 143;

/**
 * Moves the bottleneck: the frontend gets ample capacity (1,000/s) and `service` gets
 * `share` × 143; `frontend` leaves the network as it is.
 */
export function withBottleneck(
  network: NetworkModel,
  service: string,
  share: number,
): NetworkModel {
  if (service === 'frontend') return network;
  return {
    ...network,
    services: network.services.map((s) =>
      s.name === 'frontend'
        ? { ...s, capacity: 1000 }
        : s.name === service
          ? { ...s, capacity: share * HOTEL_FRONTEND_CAPACITY }
          : s,
    ),
  };
}
