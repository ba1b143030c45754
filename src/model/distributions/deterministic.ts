import { checkMean } from './exponential.js';
import type { ServiceTimeDistribution } from './ServiceTimeDistribution.js';

/** Deterministic service time: every job takes exactly `mean` seconds; residual ~ U(0, mean). */
export function deterministicDistribution(mean: number): ServiceTimeDistribution {
  checkMean(mean);
  return {
    kind: 'deterministic',
    mean,
    scv: 0,
    survival: (x) => (x < mean ? 1 : 0),
    residualCdf: (x) => (x <= 0 ? 0 : Math.min(x, mean) / mean),
    // E[e^(−θR)] with R ~ U(0, T): (1 − e^(−θT)) / (θT)
    residualLaplace: (theta) => (theta === 0 ? 1 : -Math.expm1(-theta * mean) / (theta * mean)),
    sample: () => mean,
  };
}
