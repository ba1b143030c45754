import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { LatencyDistribution } from './LatencyDistribution.js';

/** −ln(1 − 10⁻⁴) and ln(10⁴): the 0.01 % and 99.99 % quantiles of a unit-mean exponential. */
const LOW_QUANTILE = -Math.log1p(-1e-4);
const HIGH_QUANTILE = Math.log(1e4);

/**
 * An exponential latency law with the given mean (seconds): F̄(t) = e^(−t/mean), and the partial
 * mean ∫_0^t x f = mean·(1 − (1 + u)e^(−u)), u = t/mean (by its series for small u, where the
 * closed form would cancel). `minObserved`/`maxObserved` are the 0.01 % and 99.99 % quantiles.
 * @example
 * ```ts
 * exponentialLatency({ mean: 0.2 }).partialMean(Infinity); // 0.2
 * ```
 */
export function exponentialLatency(options: Readonly<{ mean: number }>): LatencyDistribution {
  const { mean } = options;
  if (!(Number.isFinite(mean) && mean > 0)) {
    throw new InvalidArgumentError(
      `exponential mean should be a positive finite number, got ${mean}`,
    );
  }
  return {
    survival: (t) => (t <= 0 ? 1 : Math.exp(-t / mean)),
    density: (t) => (t < 0 ? 0 : Math.exp(-t / mean) / mean),
    partialMean: (t) => (t <= 0 ? 0 : mean * lowerGammaTwo(t / mean)),
    mass: 1,
    minObserved: mean * LOW_QUANTILE,
    maxObserved: mean * HIGH_QUANTILE,
  };
}

/** 1 − (1 + u)e^(−u) = Σ_{k≥2} (−1)^k (k − 1) u^k / k!, the regularised lower Γ(2, u). */
function lowerGammaTwo(u: number): number {
  if (u === Number.POSITIVE_INFINITY) return 1;
  if (u > 0.5) return 1 - (1 + u) * Math.exp(-u);
  let term = -u; // (−u)^k / k! at k = 1
  let sum = 0;
  for (let k = 2; k < 40; k++) {
    term *= -u / k;
    const add = (k - 1) * term;
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return sum;
}
