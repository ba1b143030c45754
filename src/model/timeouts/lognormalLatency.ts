import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { normalCdf } from '../special.js';
import type { LatencyDistribution } from './LatencyDistribution.js';

/** Options of {@link lognormalLatency}: ln L ~ N(μ, σ²), given by its median e^μ or by μ. */
export type LognormalLatencyOptions =
  | { readonly median: number; readonly mu?: undefined; readonly sigma: number }
  | { readonly mu: number; readonly median?: undefined; readonly sigma: number };

/**
 * The standard normal quantile at 10⁻⁴ (Φ(−3.719) = 10⁻⁴): parametric laws report the
 * 0.01 % and 99.99 % quantiles as their observed range, the range a sample of about 10⁴ shows.
 */
export const RANGE_NORMAL_QUANTILE = 3.7190164854556804;

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/**
 * A lognormal latency law (seconds): ln L ~ N(μ, σ²), with exact survival, density and partial
 * mean ∫_0^t x f = e^(μ+σ²/2) Φ((ln t − μ − σ²)/σ). `minObserved`/`maxObserved` are the 0.01 %
 * and 99.99 % quantiles, e^(μ ∓ 3.719σ).
 * @param options - `median` (s, > 0) or `mu` (ln s), and `sigma` (> 0, the sd of ln L).
 * @example
 * ```ts
 * const fast = lognormalLatency({ median: 0.1, sigma: 0.25 });
 * fast.survival(0.1); // 0.5
 * ```
 */
export function lognormalLatency(options: Readonly<LognormalLatencyOptions>): LatencyDistribution {
  const { sigma } = options;
  if (!(Number.isFinite(sigma) && sigma > 0)) {
    throw new InvalidArgumentError(
      `lognormal sigma should be a positive finite number, got ${sigma}`,
    );
  }
  let mu: number;
  if (options.median !== undefined) {
    if (options.mu !== undefined)
      throw new InvalidArgumentTypeError('give a lognormal median or mu, not both');
    if (!(Number.isFinite(options.median) && options.median > 0)) {
      throw new InvalidArgumentError(
        `lognormal median should be a positive finite number, got ${options.median}`,
      );
    }
    mu = Math.log(options.median);
  } else {
    if (!Number.isFinite(options.mu)) {
      throw new InvalidArgumentError(`lognormal mu should be a finite number, got ${options.mu}`);
    }
    mu = options.mu;
  }
  const mean = Math.exp(mu + (sigma * sigma) / 2);
  return {
    survival: (t) => (t <= 0 ? 1 : normalCdf((mu - Math.log(t)) / sigma)),
    density: (t) => {
      if (!(t > 0)) return 0;
      const z = (Math.log(t) - mu) / sigma;
      return (INV_SQRT_2PI * Math.exp(-0.5 * z * z)) / (sigma * t);
    },
    partialMean: (t) => (t <= 0 ? 0 : mean * normalCdf((Math.log(t) - mu - sigma * sigma) / sigma)),
    mass: 1,
    minObserved: Math.exp(mu - RANGE_NORMAL_QUANTILE * sigma),
    maxObserved: Math.exp(mu + RANGE_NORMAL_QUANTILE * sigma),
  };
}
