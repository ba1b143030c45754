import type { StrategyEvaluation } from './evaluateSuite.js';
import { COMBINED_TARGET_TIME_FRACTION } from './paperFigures.js';
import type { TimeoutScenarioName } from './scenarios.js';

/** A scenario in which the Combined system misses the target, and how. */
export interface TargetMiss {
  readonly scenario: TimeoutScenarioName;
  readonly combined: number;
  /** Exponential backoff's Time Fraction, when it ran. */
  readonly exponentialBackoff: number | undefined;
  /** Combined is above {@link COMBINED_TARGET_TIME_FRACTION}. */
  readonly aboveThreshold: boolean;
  /** Combined is not strictly below exponential backoff. */
  readonly notBelowBaseline: boolean;
}

/** Whether a suite meets the evaluation's target, and where it does not. */
export interface TargetAssessment {
  /** Combined ≤ threshold and < exponential backoff in every scenario run. */
  readonly met: boolean;
  readonly threshold: number;
  /** Scenarios assessed: those in which `combined` ran. */
  readonly scenarios: number;
  readonly misses: readonly TargetMiss[];
}

/**
 * Checks the evaluation's target on a suite's rows (strategies named `combined` and
 * `exponential-backoff`): in every scenario the Combined system's Time Fraction is at or under
 * {@link COMBINED_TARGET_TIME_FRACTION} and strictly below exponential backoff's (that part only
 * where exponential backoff ran). `undefined` when `combined` did not run.
 */
export function assessTarget(rows: readonly StrategyEvaluation[]): TargetAssessment | undefined {
  const combinedRows = rows.filter((row) => row.strategy === 'combined');
  if (combinedRows.length === 0) return undefined;
  const misses: TargetMiss[] = [];
  for (const row of combinedRows) {
    const baseline = rows.find(
      (other) => other.strategy === 'exponential-backoff' && other.scenario === row.scenario,
    )?.timeFraction;
    const aboveThreshold = !(row.timeFraction <= COMBINED_TARGET_TIME_FRACTION);
    const notBelowBaseline = baseline !== undefined && !(row.timeFraction < baseline);
    if (aboveThreshold || notBelowBaseline) {
      misses.push({
        scenario: row.scenario,
        combined: row.timeFraction,
        exponentialBackoff: baseline,
        aboveThreshold,
        notBelowBaseline,
      });
    }
  }
  return {
    met: misses.length === 0,
    threshold: COMBINED_TARGET_TIME_FRACTION,
    scenarios: combinedRows.length,
    misses,
  };
}
