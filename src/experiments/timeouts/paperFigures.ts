import type { TimeoutScenarioName } from './scenarios.js';

/**
 * The Time Fractions the paper reports for the Combined system and for exponential backoff of
 * the timeout, per scenario (its table, in its order: Stable, Random walk, Slow increase, Fast
 * increase, Slow decrease, Fast decrease, Spikes, Dips).
 * @see the issue "Adaptive sequential timeouts", section "The evaluation".
 */
export const PAPER_TIME_FRACTIONS: Readonly<
  Record<TimeoutScenarioName, { readonly combined: number; readonly exponentialBackoff: number }>
> = {
  stable: { combined: 0.861, exponentialBackoff: 1.07 },
  'random-walk': { combined: 0.91, exponentialBackoff: 1.04 },
  'slow-increase': { combined: 1.05, exponentialBackoff: 1.57 },
  'fast-increase': { combined: 1.02, exponentialBackoff: 1.57 },
  'slow-decrease': { combined: 1.05, exponentialBackoff: 1.08 },
  'fast-decrease': { combined: 1.01, exponentialBackoff: 1.05 },
  spikes: { combined: 0.981, exponentialBackoff: 1.2 },
  dips: { combined: 1.04, exponentialBackoff: 1.06 },
};

/** The target of the evaluation: Combined at or under this Time Fraction in every scenario. */
export const COMBINED_TARGET_TIME_FRACTION = 1.05;
