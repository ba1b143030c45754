/**
 * One point of the strategies comparison: a delay variant × strategy × γ_low, with the simulated
 * figures (mean and 95 % half-width over the replications) and, for `difftry` and `uniform`, the
 * analysis's.
 */
import type { Variant } from './delayVariants.js';
import type { Subject } from './strategySubjects.js';

/** The simulated (and, where the analysis models it, predicted) figures of one point. */
export interface StrategyRow {
  readonly variant: Variant['key'];
  readonly strategy: Subject;
  readonly gammaLow: number;
  readonly highRejection: number;
  readonly highRejectionCi95: number;
  readonly lowRejection: number;
  readonly lowRejectionCi95: number;
  readonly attemptsPerRequest: number;
  readonly attemptsPerRequestCi95: number;
  readonly attemptsPerSuccess: number;
  readonly attemptsPerSuccessCi95: number;
  /** Retries per request at the frontend (the bottleneck), per class: attempts / arrivals − 1. */
  readonly highFrontendRetries: number;
  readonly lowFrontendRetries: number;
  readonly highLatencyP50: number;
  readonly highLatencyP99: number;
  readonly highLatencyP99Ci95: number;
  readonly lowLatencyP50: number;
  readonly lowLatencyP99: number;
  readonly lowLatencyP99Ci95: number;
  /** The analysis (`analyzeNetwork`), for `difftry` and `uniform` only; NaN otherwise. */
  readonly predHighRejection: number;
  readonly predLowRejection: number;
  readonly predAttemptsPerRequest: number;
}

/**
 * Rejection over both classes together, weighted by their arrival rates (γ_high and the row's
 * γ_low, requests/s).
 */
export function overallRejection(r: StrategyRow, gammaHigh: number): number {
  return (gammaHigh * r.highRejection + r.gammaLow * r.lowRejection) / (gammaHigh + r.gammaLow);
}

/**
 * The row of `variant`, `strategy` and `gammaLow` among `rows`.
 * @throws Error when the run has no such row.
 */
export function strategyRow(
  rows: readonly StrategyRow[],
  variant: Variant['key'],
  strategy: Subject,
  gammaLow: number,
): StrategyRow {
  const found = rows.find(
    (r) => r.variant === variant && r.strategy === strategy && r.gammaLow === gammaLow,
  );
  if (found === undefined) throw new Error(`no row ${variant} ${strategy} ${gammaLow}`);
  return found;
}
