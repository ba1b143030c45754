import { InvalidArgumentError } from '../../../core/InvalidArgumentError.js';
import type { Clock } from '../../../policy/Clock.js';
import type { TimeoutSuiteOptions } from '../evaluateSuite.js';
import { scenarioRun } from '../scenarioRun.js';
import type { LiveTimeoutEvaluation } from './app1.js';
import { checkTimeScale } from './app2.js';
import { evaluateTimeoutsLive } from './evaluateLive.js';

/** One row of a live suite: a strategy's live evaluation on a scenario. */
export interface LiveStrategyEvaluation extends LiveTimeoutEvaluation {
  readonly strategy: string;
}

/** Options of {@link evaluateTimeoutSuiteLive}. */
export interface LiveTimeoutSuiteOptions extends TimeoutSuiteOptions {
  /** Real time = scenario time × timeScale. */
  readonly timeScale: number;
  /**
   * Runs (scenario × strategy pairs) at once, each its own App1 → App2 pair; default all of them.
   * Each App1 still sends one request at a time.
   */
  readonly concurrency?: number;
  /** The real clock, ms; default `performance.now`. */
  readonly now?: Clock;
}

/**
 * The live counterpart of `evaluateTimeoutSuite`: every strategy on every scenario through real
 * HTTP on loopback ({@link evaluateTimeoutsLive}), on the same curves and noise as the virtual
 * run of the same seed. Strategies get the real clock in scenario time (ms / timeScale). Rows
 * come in the virtual suite's order whatever order the runs finish in.
 */
export async function evaluateTimeoutSuiteLive(
  options: Readonly<LiveTimeoutSuiteOptions>,
): Promise<LiveStrategyEvaluation[]> {
  const { scenarios, strategies, createStrategy, onProgress } = options;
  const timeScale = checkTimeScale(options.timeScale);
  const now = options.now ?? (() => performance.now());
  const runs = scenarios.map((name) => scenarioRun(name, options));
  const jobs = runs.flatMap((run) => strategies.map((strategyName) => ({ run, strategyName })));
  const concurrency = options.concurrency ?? jobs.length;
  if (!(Number.isSafeInteger(concurrency) && concurrency >= 1)) {
    throw new InvalidArgumentError(`concurrency should be a positive integer, got ${concurrency}`);
  }
  const done = new Float64Array(jobs.length);
  const report = () => onProgress?.(done.reduce((a, b) => a + b, 0) / jobs.length);
  const rows: LiveStrategyEvaluation[] = new Array(jobs.length);
  let nextJob = 0;
  let failed = false;
  async function worker(): Promise<void> {
    while (!failed && nextJob < jobs.length) {
      const index = nextJob++;
      const { run, strategyName } = jobs[index] as (typeof jobs)[number];
      const strategy = createStrategy(strategyName, {
        clock: () => now() / timeScale,
        random: run.strategyRandom(),
      });
      const evaluation = await evaluateTimeoutsLive({
        run,
        strategy,
        timeScale,
        now,
        onProgress: (fraction) => {
          done[index] = fraction;
          report();
        },
      });
      rows[index] = { strategy: strategyName, ...evaluation };
    }
  }
  // On a failure no new run starts, and the ones under way finish (each closes its App2) before
  // the first error is thrown: nothing is left listening.
  const settled = await Promise.allSettled(
    Array.from({ length: Math.min(concurrency, jobs.length) }, () =>
      worker().catch((error: unknown) => {
        failed = true;
        throw error;
      }),
    ),
  );
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return rows;
}
