import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { deterministicDistribution } from './deterministic.js';
import { exponentialDistribution } from './exponential.js';
import { hyperexponentialDistribution } from './hyperexponential.js';
import { lognormalDistribution } from './lognormal.js';
import type { ServiceTimeDescription, ServiceTimeDistribution } from './ServiceTimeDistribution.js';

export { deterministicDistribution } from './deterministic.js';
export { exponentialDistribution } from './exponential.js';
export { hyperexponentialDistribution } from './hyperexponential.js';
export { lognormalDistribution } from './lognormal.js';
export type { ServiceTimeDescription, ServiceTimeDistribution } from './ServiceTimeDistribution.js';

/**
 * The service-time distribution a network file describes, for a server of the given capacity
 * (requests per second, so the mean is 1/capacity seconds).
 * @example
 * ```ts
 * serviceTimeDistribution({ dist: 'hyperexponential', scv: 10 }, 143).mean; // 1/143 s
 * ```
 */
export function serviceTimeDistribution(
  description: ServiceTimeDescription,
  capacity: number,
): ServiceTimeDistribution {
  if (!(Number.isFinite(capacity) && capacity > 0)) {
    throw new InvalidArgumentError(`capacity should be a positive finite number, got ${capacity}`);
  }
  const mean = 1 / capacity;
  switch (description.dist) {
    case 'exponential':
      return exponentialDistribution(mean);
    case 'deterministic':
      return deterministicDistribution(mean);
    case 'hyperexponential':
      return hyperexponentialDistribution(mean, description.scv);
    case 'lognormal':
      return lognormalDistribution(mean, description.scv);
  }
}
