import { type LatencyDistribution, lognormalLatency, mixtureLatency } from 'difftry/model';
import type { LawSettings } from './timeoutsSettings.js';

/**
 * The latency law the sliders describe: `lognormalLatency` of the fast path, or the
 * `mixtureLatency` of the fast path (probability 1 − slowShare) and the slow path.
 * @example
 * ```ts
 * parametricLatency(TIMEOUTS_DEFAULTS.law).survival(0.2);
 * ```
 */
export function parametricLatency(law: LawSettings): LatencyDistribution {
  const fast = lognormalLatency({ median: law.medianS, sigma: law.sigma });
  if (law.kind === 'lognormal') return fast;
  return mixtureLatency([
    { weight: 1 - law.slowShare, distribution: fast },
    {
      weight: law.slowShare,
      distribution: lognormalLatency({ median: law.median2S, sigma: law.sigma2 }),
    },
  ]);
}
