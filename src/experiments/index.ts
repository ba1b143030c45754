/**
 * difftry/experiments: the evaluations behind the docs' tables, as functions a script or a page
 * can run: the adaptive-timeout evaluation (eight latency scenarios, the strategies `difftry
 * timeouts eval` compares, each run in virtual time, with the paper's Time Fractions beside
 * them), and the simulator's options for a network file, as `difftry simulate` builds them. Pure
 * and in-process: no Node built-in, so they run in a browser too.
 *
 * @example
 * ```ts
 * import { createEvalStrategy, evaluateTimeoutSuite, TIMEOUT_EVAL_STRATEGIES } from 'difftry/experiments';
 * const rows = evaluateTimeoutSuite({
 *   seed: 1,
 *   scenarios: ['stable', 'spikes'],
 *   strategies: TIMEOUT_EVAL_STRATEGIES,
 *   createStrategy: createEvalStrategy,
 * });
 * rows[0]?.timeFraction; // the first strategy's Time Fraction on `stable`
 * ```
 * @module
 */

export {
  type RunLength,
  toNetworkSimulationOptions,
} from './simulation/networkSimulationOptions.js';
export {
  createEvalStrategy,
  TIMEOUT_EVAL_RUN_DEFAULTS,
  TIMEOUT_EVAL_STRATEGIES,
  type TimeoutEvalStrategy,
} from './timeouts/evalStrategies.js';
export {
  evaluateTimeoutSuite,
  type StrategyContext,
  type StrategyEvaluation,
  type StrategyFactory,
  type TimeoutSuiteOptions,
} from './timeouts/evaluateSuite.js';
export { PAPER_TIME_FRACTIONS } from './timeouts/paperFigures.js';
export {
  isTimeoutScenarioName,
  TIMEOUT_SCENARIO_LABELS,
  TIMEOUT_SCENARIO_NAMES,
  type TimeoutScenarioName,
} from './timeouts/scenarios.js';
