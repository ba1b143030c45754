import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../random.js';
import type { ServiceTimeDistribution } from './ServiceTimeDistribution.js';

/**
 * Exponential service time with the given mean (seconds): memoryless, so the residual has the
 * same law, F_e(x) = 1 − e^(−x/mean).
 */
export function exponentialDistribution(mean: number): ServiceTimeDistribution {
  checkMean(mean);
  const rate = 1 / mean;
  return {
    kind: 'exponential',
    mean,
    scv: 1,
    survival: (x) => (x <= 0 ? 1 : Math.exp(-rate * x)),
    residualCdf: (x) => (x <= 0 ? 0 : -Math.expm1(-rate * x)),
    residualLaplace: (theta) => rate / (rate + theta),
    sample: (random: RandomSource) => -mean * Math.log1p(-random()),
  };
}

/** Throws a RangeError unless `mean` is a positive finite number. */
export function checkMean(mean: number): void {
  if (!(Number.isFinite(mean) && mean > 0)) {
    throw new InvalidArgumentError(
      `mean service time should be a positive finite number, got ${mean}`,
    );
  }
}
