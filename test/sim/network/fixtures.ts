import type { NetworkModel } from '../../../src/model/index.js';

/**
 * The single-service example as a network, overloaded (300 requests/s offered to capacity 143,
 * m = 50, mixed φ), with the retry limits (high, low) given.
 */
export function oneService(limits: readonly [number, number]): NetworkModel {
  return {
    classes: [
      { name: 'high', retryLimit: limits[0] },
      { name: 'low', retryLimit: limits[1] },
    ],
    services: [
      {
        name: 'frontend',
        capacity: 143,
        queue: 50,
        model: 'mixed',
        arrivals: [50, 250],
        retryLimits: [...limits],
        routes: [],
      },
    ],
  };
}
