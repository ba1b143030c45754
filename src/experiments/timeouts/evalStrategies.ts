/**
 * The timeout strategies the evaluation runs (`difftry timeouts eval`, scripts/timeouts-table.ts)
 * and the run's defaults, shared by the command and the script.
 */
import {
  ADAPTIVE_TIMEOUT_KINDS,
  createTimeoutStrategy,
} from '../../policy/timeouts/createTimeoutStrategy.js';
import type { StrategyFactory } from './evaluateSuite.js';

/** The strategies the evaluation knows, in its tables' order. */
export const TIMEOUT_EVAL_STRATEGIES = ADAPTIVE_TIMEOUT_KINDS;

/** One of {@link TIMEOUT_EVAL_STRATEGIES}. */
export type TimeoutEvalStrategy = (typeof TIMEOUT_EVAL_STRATEGIES)[number];

/**
 * Defaults of a run: seed 1, 2 000 requests per scenario (the first 10 % initialising), and,
 * live, real time = scenario time × 0.1.
 */
export const TIMEOUT_EVAL_RUN_DEFAULTS = { seed: 1, requests: 2000, timeScale: 0.1 } as const;

/**
 * Each strategy of {@link TIMEOUT_EVAL_STRATEGIES} with its defaults. The clock given to the
 * factory is the real one: it only times the Optimizer's recomputes (the recompute-time column),
 * never a decision.
 */
export const createEvalStrategy: StrategyFactory = (name) =>
  createTimeoutStrategy({ kind: name as TimeoutEvalStrategy }, { clock: () => performance.now() });
