import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../random.js';
import { normalCdf } from '../special.js';
import { checkMean } from './exponential.js';
import type { ServiceTimeDistribution } from './ServiceTimeDistribution.js';

/**
 * Lognormal service time with the given mean (seconds) and squared coefficient of variation:
 * ln S ~ N(μ, σ²) with σ² = ln(1 + scv) and μ = ln(mean) − σ²/2.
 *
 * The residual CDF uses ∫₀ˣ F̄ = x F̄(x) + e^(μ+σ²/2) Φ(z − σ), z = (ln x − μ)/σ.
 */
export function lognormalDistribution(mean: number, scv: number): ServiceTimeDistribution {
  checkMean(mean);
  if (!(Number.isFinite(scv) && scv > 0)) {
    throw new InvalidArgumentError(`lognormal scv should be a positive finite number, got ${scv}`);
  }
  const sigma = Math.sqrt(Math.log1p(scv));
  const mu = Math.log(mean) - (sigma * sigma) / 2;
  const survival = (x: number): number => (x <= 0 ? 1 : normalCdf(-(Math.log(x) - mu) / sigma));
  return {
    kind: 'lognormal',
    mean,
    scv,
    survival,
    residualCdf: (x) => {
      if (x <= 0) return 0;
      if (x === Number.POSITIVE_INFINITY) return 1;
      const z = (Math.log(x) - mu) / sigma;
      const integral = x * survival(x) + mean * normalCdf(z - sigma);
      return Math.min(1, integral / mean);
    },
    sample: (random: RandomSource) => {
      // Box–Muller; one normal per draw keeps the sampler stateless.
      const u1 = 1 - random();
      const u2 = random();
      const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
      return Math.exp(mu + sigma * normal);
    },
  };
}
