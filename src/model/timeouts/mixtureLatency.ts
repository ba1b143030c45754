import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { LatencyDistribution } from './LatencyDistribution.js';

/** One component of a {@link mixtureLatency}: a law and its (unnormalised) weight. */
export interface LatencyComponent {
  readonly weight: number;
  readonly distribution: LatencyDistribution;
}

/**
 * A finite mixture of latency laws, e.g. a fast path and a slow path. Weights are normalised to
 * sum to 1; survival, density and partial mean are the weighted sums, `mass` the weighted sum
 * of the components' masses, and the observed range spans every component's.
 * @example
 * ```ts
 * const bimodal = mixtureLatency([
 *   { weight: 0.7, distribution: lognormalLatency({ median: 0.1, sigma: 0.25 }) },
 *   { weight: 0.3, distribution: lognormalLatency({ median: 0.5, sigma: 0.25 }) },
 * ]);
 * ```
 */
export function mixtureLatency(components: readonly LatencyComponent[]): LatencyDistribution {
  if (components.length === 0)
    throw new InvalidArgumentError('a mixture needs at least one component');
  let total = 0;
  for (const [i, c] of components.entries()) {
    if (!(Number.isFinite(c.weight) && c.weight >= 0)) {
      throw new InvalidArgumentError(
        `mixture component ${i}: weight should be a finite number ≥ 0, got ${c.weight}`,
      );
    }
    total += c.weight;
  }
  if (!(total > 0)) throw new InvalidArgumentError('mixture weights should not all be 0');
  const parts = components.filter((c) => c.weight > 0);
  const weights = parts.map((c) => c.weight / total);
  const laws = parts.map((c) => c.distribution);
  const sum = (value: (law: LatencyDistribution) => number): number => {
    let s = 0;
    for (let i = 0; i < laws.length; i++)
      s += (weights[i] as number) * value(laws[i] as LatencyDistribution);
    return s;
  };
  return {
    survival: (t) => sum((law) => law.survival(t)),
    density: (t) => sum((law) => law.density(t)),
    partialMean: (t) => sum((law) => law.partialMean(t)),
    mass: sum((law) => law.mass),
    minObserved: Math.min(...laws.map((law) => law.minObserved)),
    maxObserved: Math.max(...laws.map((law) => law.maxObserved)),
  };
}
