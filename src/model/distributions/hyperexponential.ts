import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../random.js';
import { checkMean } from './exponential.js';
import type { ServiceTimeDistribution } from './ServiceTimeDistribution.js';

/**
 * Two-phase hyperexponential service time with balanced means: with probability p₁ the job is
 * exponential with rate μ₁, else with rate μ₂, where p₁/μ₁ = p₂/μ₂ = mean/2 and
 * p₁ = (1 + √((scv − 1)/(scv + 1)))/2.
 * @see Whitt, "Approximating a point process by a renewal process" (1982), balanced-means H2 fit.
 * @param mean - E[S], seconds.
 * @param scv - squared coefficient of variation, > 1.
 */
export function hyperexponentialDistribution(mean: number, scv: number): ServiceTimeDistribution {
  checkMean(mean);
  if (!(Number.isFinite(scv) && scv > 1)) {
    throw new InvalidArgumentError(
      `hyperexponential scv should be a finite number > 1, got ${scv}`,
    );
  }
  const p1 = (1 + Math.sqrt((scv - 1) / (scv + 1))) / 2;
  const p2 = 1 - p1;
  const rate1 = (2 * p1) / mean;
  const rate2 = (2 * p2) / mean;
  return {
    kind: 'hyperexponential',
    mean,
    scv,
    survival: (x) => (x <= 0 ? 1 : p1 * Math.exp(-rate1 * x) + p2 * Math.exp(-rate2 * x)),
    // (1/mean) Σ pᵢ (1 − e^(−μᵢx))/μᵢ, and with balanced means pᵢ/μᵢ = mean/2.
    residualCdf: (x) => (x <= 0 ? 0 : -0.5 * (Math.expm1(-rate1 * x) + Math.expm1(-rate2 * x))),
    // The residual is an equal mixture of Exp(μ₁) and Exp(μ₂).
    residualLaplace: (theta) => 0.5 * (rate1 / (rate1 + theta) + rate2 / (rate2 + theta)),
    sample: (random: RandomSource) => {
      const rate = random() < p1 ? rate1 : rate2;
      return -Math.log1p(-random()) / rate;
    },
  };
}
