import { brentRoot } from '../numeric/brent.js';
import type { LatencyDistribution } from './LatencyDistribution.js';

/** The default ceiling is this multiple of the 99th percentile… */
export const CEILING_PERCENTILE_FACTOR = 1.5;
/** …at most this multiple of the largest observed latency. */
export const CEILING_OBSERVED_FACTOR = 2;

/**
 * The default ceiling t_z (s) of a timeout sequence: 1.5 × the 99th percentile of the law (of
 * its known mass, F̄(q) = 0.01·∫f), at most 2 × the largest observed latency.
 *
 * Why: in a stationary model the best sequence collapses onto one repeated timeout, so t_z does
 * not come from the optimisation; its job is to carry a call through a short spike, when
 * latencies shift up for a while. 1.5 × the 99th percentile lets 99 % of ordinary attempts
 * finish even when a spike stretches them by half, without waiting on the heaviest, least
 * known part of the tail; the cap keeps a thin or heavy tail (few samples, a parametric law's
 * far quantiles) from giving a ceiling far beyond anything seen.
 * @example
 * ```ts
 * ceilingTimeout(exponentialLatency({ mean: 1 })); // 1.5 · ln 100 ≈ 6.9 s
 * ```
 */
export function ceilingTimeout(distribution: LatencyDistribution): number {
  const cap = CEILING_OBSERVED_FACTOR * distribution.maxObserved;
  const target = 0.01 * distribution.mass;
  const excess = (t: number): number => distribution.survival(t) - target;
  if (excess(cap) > 0) return cap;
  let low = distribution.minObserved;
  while (excess(low) <= 0 && low > 1e-300) low /= 2;
  if (excess(low) <= 0) return cap;
  const q99 = brentRoot(excess, low, cap, 1e-12 * cap).root;
  return Math.min(CEILING_PERCENTILE_FACTOR * q99, cap);
}
