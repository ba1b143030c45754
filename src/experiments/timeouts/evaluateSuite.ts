import type { RandomSource } from '../../model/random.js';
import type { Clock } from '../../policy/Clock.js';
import type { TimeoutStrategy } from '../../policy/timeouts/TimeoutStrategy.js';
import { type AttemptTrace, evaluateTimeouts } from './evaluate.js';
import { type ScenarioRunOptions, scenarioRun } from './scenarioRun.js';
import type { TimeoutScenarioName } from './scenarios.js';
import type { TimeoutEvaluation } from './TimeoutTally.js';
import { VirtualClock } from './VirtualClock.js';

/** What a strategy is built with: the run's clock (ms; virtual or real) and a seeded random source. */
export interface StrategyContext {
  readonly clock: Clock;
  readonly random: RandomSource;
}

/** Builds a fresh strategy by name for one run. */
export type StrategyFactory = (name: string, context: StrategyContext) => TimeoutStrategy;

/** One row of a suite: a strategy's evaluation on a scenario. */
export interface StrategyEvaluation extends TimeoutEvaluation {
  readonly strategy: string;
}

/** Options of {@link evaluateTimeoutSuite}. */
export interface TimeoutSuiteOptions extends ScenarioRunOptions {
  readonly scenarios: readonly TimeoutScenarioName[];
  readonly strategies: readonly string[];
  readonly createStrategy: StrategyFactory;
  /** Called with the fraction of the whole suite done. */
  readonly onProgress?: (fraction: number) => void;
  /** Called after every attempt of every run, with the run it belongs to. */
  readonly onAttempt?: (
    run: { readonly scenario: TimeoutScenarioName; readonly strategy: string },
    attempt: AttemptTrace,
  ) => void;
}

/**
 * Runs every strategy through every scenario in virtual time ({@link evaluateTimeouts}); each
 * run gets a fresh strategy, reading its own {@link VirtualClock}, and all strategies of a
 * scenario see the same curve and the same noise. Rows come scenario by scenario, strategies
 * in the order given.
 * @example
 * ```ts
 * evaluateTimeoutSuite({
 *   seed: 1,
 *   scenarios: ['stable', 'spikes'],
 *   strategies: ['fixed-250'],
 *   createStrategy: () => fixedTimeout(250),
 * });
 * ```
 */
export function evaluateTimeoutSuite(options: Readonly<TimeoutSuiteOptions>): StrategyEvaluation[] {
  const { scenarios, strategies, createStrategy, onProgress, onAttempt } = options;
  const runs = scenarios.length * strategies.length;
  const rows: StrategyEvaluation[] = [];
  for (const name of scenarios) {
    const run = scenarioRun(name, options);
    for (const strategyName of strategies) {
      const clock = new VirtualClock();
      const strategy = createStrategy(strategyName, {
        clock: clock.now,
        random: run.strategyRandom(),
      });
      const done = rows.length;
      const evaluation = evaluateTimeouts({
        scenario: run.scenario,
        strategy,
        noise: run.noise,
        maxAttempts: run.maxAttempts,
        clock,
        onProgress: onProgress && ((fraction) => onProgress((done + fraction) / runs)),
        onAttempt:
          onAttempt &&
          ((attempt) => onAttempt({ scenario: name, strategy: strategyName }, attempt)),
      });
      rows.push({ strategy: strategyName, ...evaluation });
    }
  }
  return rows;
}
