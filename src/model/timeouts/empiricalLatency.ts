import { type KaplanMeierEstimate, kaplanMeier } from './kaplanMeier.js';
import type { LatencyDistribution, LatencySample } from './LatencyDistribution.js';
import { DEFAULT_GRID_SIZE, logKernelLatency } from './logKernelLatency.js';

/** Options of {@link empiricalLatency}. */
export interface EmpiricalLatencyOptions {
  /**
   * Kernel sd on ln(latency); default {@link logSilvermanBandwidth} of the Kaplan–Meier law.
   * @default logSilvermanBandwidth of the Kaplan–Meier law
   */
  readonly bandwidth?: number;
  /**
   * Nodes of the log-latency grid, default 512.
   * @default 512
   */
  readonly gridSize?: number;
}

/** A latency law estimated from samples, with the estimate it was smoothed from. */
export interface EmpiricalLatency extends LatencyDistribution {
  /** The kernel sd on ln(latency) used. */
  readonly bandwidth: number;
  /** The unsmoothed Kaplan–Meier estimate. */
  readonly kaplanMeier: KaplanMeierEstimate;
}

/** Bandwidth used when the samples have no spread at all (all equal): ±5 % in latency. */
export const FALLBACK_BANDWIDTH = 0.05;

/**
 * A smooth latency law estimated from weighted, possibly censored samples:
 *
 * 1. the weighted Kaplan–Meier estimator turns the samples into point masses at the distinct
 *    completed latencies, so timed-out attempts count as "longer than the timeout" and bias
 *    nothing; `mass` = 1 − S(last completion) is below 1 when the largest samples are censored;
 * 2. a Gaussian kernel on ln(latency) smooths those masses (each becomes a lognormal), binned on
 *    a 512-node log grid ({@link logKernelLatency}), so density, survival and partial mean come
 *    from one smooth estimate (F̄' = −f exactly) and each evaluation is O(1).
 *
 * `minObserved`/`maxObserved` are the smallest and largest sample latency, censored included.
 * Building costs O(n log n) for the sort plus O(grid × kernel): under a millisecond for 2,000
 * samples.
 * @example
 * ```ts
 * const law = empiricalLatency([
 *   { latency: 0.12 }, { latency: 0.09, weight: 2 }, { latency: 0.5, censored: true },
 * ]);
 * law.survival(0.1);
 * ```
 */
export function empiricalLatency(
  samples: readonly LatencySample[],
  options: Readonly<EmpiricalLatencyOptions> = {},
): EmpiricalLatency {
  const estimate = kaplanMeier(samples);
  const smooth = logKernelLatency(estimate.times, estimate.masses, {
    bandwidth: options.bandwidth ?? logSilvermanBandwidth(estimate),
    gridSize: options.gridSize ?? DEFAULT_GRID_SIZE,
    minObserved: estimate.minLatency,
    maxObserved: estimate.maxLatency,
  });
  return {
    survival: smooth.survival,
    density: smooth.density,
    partialMean: smooth.partialMean,
    mass: smooth.mass,
    minObserved: smooth.minObserved,
    maxObserved: smooth.maxObserved,
    bandwidth: smooth.bandwidth,
    kaplanMeier: estimate,
  };
}

/**
 * Silverman's rule of thumb on the log scale: h = 0.9 · min(sd, IQR / 1.349) · n^(−1/5), with sd
 * and IQR those of ln(latency) under the Kaplan–Meier law (normalised to its known mass, so
 * censoring does not shrink them) and n Kish's effective number of completed samples. The
 * log scale suits latencies (positive, right-skewed, modes at different scales); the IQR guards
 * against a heavy tail, though for well separated modes the rule oversmooths somewhat.
 * {@link FALLBACK_BANDWIDTH} when the spread is 0.
 * @see B. W. Silverman, "Density Estimation for Statistics and Data Analysis" (1986), eq. 3.31.
 */
export function logSilvermanBandwidth(estimate: KaplanMeierEstimate): number {
  const { times, masses, mass } = estimate;
  let mean = 0;
  for (let j = 0; j < times.length; j++) {
    mean += ((masses[j] as number) * Math.log(times[j] as number)) / mass;
  }
  let variance = 0;
  for (let j = 0; j < times.length; j++) {
    const d = Math.log(times[j] as number) - mean;
    variance += ((masses[j] as number) * d * d) / mass;
  }
  const sd = Math.sqrt(variance);
  const iqr = Math.log(quantile(estimate, 0.75) / quantile(estimate, 0.25));
  const spread = iqr > 0 ? Math.min(sd, iqr / 1.349) : sd;
  const h = 0.9 * spread * estimate.effectiveEvents ** -0.2;
  return h > 0 ? h : FALLBACK_BANDWIDTH;
}

/** The p-quantile of the Kaplan–Meier law normalised to its known mass (s). */
function quantile(estimate: KaplanMeierEstimate, p: number): number {
  const { times, masses, mass } = estimate;
  let cumulative = 0;
  for (let j = 0; j < times.length; j++) {
    cumulative += masses[j] as number;
    if (cumulative >= p * mass) return times[j] as number;
  }
  return times[times.length - 1] as number;
}
