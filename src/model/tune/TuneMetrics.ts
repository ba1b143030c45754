import type { NetworkModel } from '../network/NetworkModel.js';
import type { NetworkReport } from '../network/NetworkReport.js';

/**
 * What the tuner keeps of one analysis: per-class arrays are indexed like the network's classes.
 * Rates are per second, rejections probabilities.
 */
export interface TuneMetrics {
  /** End-to-end rejection per class (NaN for a class with no external arrivals). */
  readonly rejection: readonly number[];
  /** Completed requests per second per class: end-to-end completion × Σ_i γ_i^p. */
  readonly goodput: readonly number[];
  /** Σ_p goodput_p, completed requests per second. */
  readonly totalGoodput: number;
  /** Attempts per external request over the whole network (`load.attemptsPerRequest`). */
  readonly attemptsPerRequest: number;
  /** Attempts per completed external request (`load.attemptsPerSuccess`). */
  readonly attemptsPerSuccess: number;
  /** Attempts services make to each other per external request (`load.internalPerRequest`). */
  readonly internalPerRequest: number;
  /** The largest offered load ρ = ΣΛ/μ of any service. */
  readonly maxRho: number;
  /** Retry-storm equilibria found at this load (`equilibria` of kind `storm`). */
  readonly storms: number;
  /** Whether the network's fixed point converged. */
  readonly converged: boolean;
}

/** What the tuner maximises: Σ_p goodput_p, or Σ_p w_p goodput_p. */
export type TuneObjective = 'goodput' | 'weighted-goodput';

/** Σ_i γ_i^p per class: external requests per second. */
export function externalRates(network: NetworkModel): number[] {
  return network.classes.map((_, p) =>
    network.services.reduce((sum, service) => sum + (service.arrivals[p] ?? 0), 0),
  );
}

/** The tuner's metrics of an analysed network; `external` from {@link externalRates}. */
export function tuneMetrics(
  report: NetworkReport,
  classNames: readonly string[],
  external: readonly number[],
): TuneMetrics {
  const rejection: number[] = [];
  const goodput: number[] = [];
  let totalGoodput = 0;
  classNames.forEach((name, p) => {
    const gamma = external[p] ?? 0;
    const completion = report.endToEnd[name]?.completion ?? Number.NaN;
    const rate = gamma > 0 ? gamma * completion : 0;
    rejection.push(gamma > 0 ? 1 - completion : Number.NaN);
    goodput.push(rate);
    totalGoodput += rate;
  });
  let maxRho = 0;
  for (const service of Object.values(report.services)) maxRho = Math.max(maxRho, service.rho);
  return {
    rejection,
    goodput,
    totalGoodput,
    attemptsPerRequest: report.load.attemptsPerRequest,
    attemptsPerSuccess: report.load.attemptsPerSuccess,
    internalPerRequest: report.load.internalPerRequest,
    maxRho,
    storms: report.equilibria.filter((e) => e.kind === 'storm').length,
    converged: report.converged,
  };
}

/** The objective's value for a point's metrics; `weights` per class (ignored for `goodput`). */
export function objectiveValue(
  objective: TuneObjective,
  weights: readonly number[],
  metrics: TuneMetrics,
): number {
  if (objective === 'goodput') return metrics.totalGoodput;
  let value = 0;
  metrics.goodput.forEach((rate, p) => {
    value += (weights[p] ?? 1) * rate;
  });
  return value;
}
