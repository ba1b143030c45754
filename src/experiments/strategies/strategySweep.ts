/**
 * The strategies comparison's run: the Figure 5 overload sweep (hotelReservation, routing form,
 * frontend as the bottleneck) simulated under every strategy and reference, with each retry
 * delay, beside the analysis for DiffTry and uniform limits. Every strategy and delay sees the
 * same substreams at a given γ_low (common random numbers), so the differences between
 * strategies are not blurred by different arrival draws. CPU only: no timer, no file.
 */

import { builtinExample, parseNetwork, toNetworkModel } from '../../config/index.js';
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { replicateNetwork } from '../../sim/network/replicateNetwork.js';
import {
  FIGURE5_GAMMA_HIGH,
  FIGURE5_GAMMA_LOWS,
  FIGURE5_HEAVIEST_GAMMA_LOW,
  modelAtFigure5Point,
} from '../figure5/figure5Sweep.js';
import { VARIANTS, type Variant } from './delayVariants.js';
import type { StrategyRow } from './StrategyRow.js';
import {
  isReference,
  REFERENCES,
  RETRIES,
  SUBJECTS,
  type Subject,
  UNIFORM_RETRIES,
} from './strategySubjects.js';

/** What a run simulates, and for how long. */
export interface StrategySweepSetup {
  /** Replications per point. */
  readonly replications: number;
  /** Measured virtual seconds per replication. */
  readonly duration: number;
  /** Virtual seconds before the window. */
  readonly warmup: number;
  /** Seed of the run; point γ_low number i uses substreams i × replications onwards. */
  readonly seed: number;
  /** γ of the high class at the frontend, requests/s. */
  readonly gammaHigh: number;
  /** γ of the low class at each point, requests/s. */
  readonly gammaLows: readonly number[];
  /** The point the report headlines (the heaviest). */
  readonly headlineGammaLow: number;
  /** The retry delays compared. */
  readonly variants: readonly Variant[];
  /** The strategies and references compared. */
  readonly subjects: readonly Subject[];
}

/**
 * The setup of docs/strategies.*: 10 replications × 150 s (warm-up 30 s), seed 6, the whole
 * Figure 5 sweep, both delays, every strategy and reference.
 */
export const STRATEGY_SWEEP_DEFAULTS: StrategySweepSetup = Object.freeze({
  replications: 10,
  duration: 150,
  warmup: 30,
  seed: 6,
  gammaHigh: FIGURE5_GAMMA_HIGH,
  gammaLows: FIGURE5_GAMMA_LOWS,
  headlineGammaLow: FIGURE5_HEAVIEST_GAMMA_LOW,
  variants: VARIANTS,
  subjects: SUBJECTS,
});

/** One point as it completes, for progress. */
export interface StrategyPoint {
  readonly gammaLow: number;
  readonly variant: Variant['key'];
  readonly strategy: Subject;
}

/** Where a run reports as it goes; both optional. */
export interface StrategySweepHooks {
  /** After each simulated point. */
  readonly onPoint?: (point: StrategyPoint) => void;
  /** When the analysis does not converge at a point (the run goes on). */
  readonly onWarning?: (message: string) => void;
}

/** hotelReservation (routing form) with these retry limits and the frontend at γ_low. */
export function hotelAtGammaLow(
  retries: Readonly<Record<string, number>>,
  gammaLow: number,
  gammaHigh: number = FIGURE5_GAMMA_HIGH,
): NetworkModel {
  const { fileName, text } = builtinExample('hotel');
  const network = toNetworkModel(parseNetwork(text, fileName), { retries: { ...retries } });
  return modelAtFigure5Point(network, gammaLow, { gammaHigh });
}

/**
 * Runs the comparison: one row per γ_low × delay × strategy, in that order of loops.
 * @example
 * ```ts
 * const rows = runStrategySweep(STRATEGY_SWEEP_DEFAULTS); // about one to two minutes on 2 cores
 * ```
 */
export function runStrategySweep(
  setup: Readonly<StrategySweepSetup>,
  hooks: Readonly<StrategySweepHooks> = {},
): StrategyRow[] {
  const { replications, gammaHigh } = setup;
  const rows: StrategyRow[] = [];
  const predictions = new Map<string, NetworkReport>();
  for (const [gammaIndex, gammaLow] of setup.gammaLows.entries()) {
    for (const [key, retries] of [
      ['difftry', RETRIES],
      ['uniform', UNIFORM_RETRIES],
    ] as const) {
      const report = analyzeNetwork(hotelAtGammaLow(retries, gammaLow, gammaHigh));
      if (!report.converged) {
        hooks.onWarning?.(`analysis did not converge (${key}, γ_low = ${gammaLow})`);
      }
      predictions.set(`${key}/${gammaLow}`, report);
    }
    const network = hotelAtGammaLow(RETRIES, gammaLow, gammaHigh);
    for (const variant of setup.variants) {
      for (const strategy of setup.subjects) {
        const sim = replicateNetwork(
          isReference(strategy)
            ? hotelAtGammaLow(REFERENCES[strategy], gammaLow, gammaHigh)
            : network,
          {
            duration: setup.duration,
            warmup: setup.warmup,
            seed: setup.seed,
            stream: gammaIndex * replications,
            backoff: variant.backoff,
            strategy: isReference(strategy) ? 'difftry' : strategy,
          },
          replications,
        );
        const high = sim.endToEnd.high;
        const low = sim.endToEnd.low;
        const frontend = sim.services.frontend?.classes;
        if (high === undefined || low === undefined || frontend === undefined) {
          throw new Error('hotel should have classes high and low and a service frontend');
        }
        const frontendRetries = (cls: string) =>
          (frontend[cls]?.attempts ?? Number.NaN) / (frontend[cls]?.in ?? Number.NaN) - 1;
        const predicted = predictions.get(`${strategy}/${gammaLow}`);
        rows.push({
          variant: variant.key,
          strategy,
          gammaLow,
          highRejection: high.rejection,
          highRejectionCi95: high.rejectionCi95,
          lowRejection: low.rejection,
          lowRejectionCi95: low.rejectionCi95,
          attemptsPerRequest: sim.load.attemptsPerRequest,
          attemptsPerRequestCi95: sim.load.attemptsPerRequestCi95,
          attemptsPerSuccess: sim.load.attemptsPerSuccess,
          attemptsPerSuccessCi95: sim.load.attemptsPerSuccessCi95,
          highFrontendRetries: frontendRetries('high'),
          lowFrontendRetries: frontendRetries('low'),
          highLatencyP50: high.latencyP50,
          highLatencyP99: high.latencyP99,
          highLatencyP99Ci95: high.latencyP99Ci95,
          lowLatencyP50: low.latencyP50,
          lowLatencyP99: low.latencyP99,
          lowLatencyP99Ci95: low.latencyP99Ci95,
          predHighRejection: predicted?.endToEnd.high?.rejection ?? Number.NaN,
          predLowRejection: predicted?.endToEnd.low?.rejection ?? Number.NaN,
          predAttemptsPerRequest: predicted?.load.attemptsPerRequest ?? Number.NaN,
        });
        hooks.onPoint?.({ gammaLow, variant: variant.key, strategy });
      }
    }
  }
  return rows;
}
