import type { Clock } from '../../../policy/Clock.js';
import type { TimeoutStrategy } from '../../../policy/timeouts/TimeoutStrategy.js';
import type { ScenarioRun } from '../scenarioRun.js';
import { type LiveTimeoutEvaluation, runApp1 } from './app1.js';
import { startApp2 } from './app2.js';

/** Options of {@link evaluateTimeoutsLive}. */
export interface LiveTimeoutEvaluationOptions {
  /** The scenario, its noise and attempt cap ({@link scenarioRun}). */
  readonly run: ScenarioRun;
  /** A fresh strategy, in scenario (unscaled) milliseconds. */
  readonly strategy: TimeoutStrategy;
  /** Real time = scenario time × timeScale (0.1: ten times faster). */
  readonly timeScale: number;
  /** The real clock, ms; default `performance.now`. */
  readonly now?: Clock;
  readonly onProgress?: (fraction: number) => void;
}

/**
 * Runs one strategy through one scenario live: App2 ({@link startApp2}) and App1
 * ({@link runApp1}) as two real HTTP services on loopback, for the scenario's fixed number of
 * requests; App2 is shut down at the end, whatever happens.
 * @example
 * ```ts
 * const run = scenarioRun('spikes', { seed: 1 });
 * await evaluateTimeoutsLive({ run, strategy: fixedTimeout(250), timeScale: 0.1 });
 * ```
 */
export async function evaluateTimeoutsLive(
  options: Readonly<LiveTimeoutEvaluationOptions>,
): Promise<LiveTimeoutEvaluation> {
  const { run, strategy, timeScale, now, onProgress } = options;
  const app2 = await startApp2({ scenario: run.scenario, noise: run.noise, timeScale });
  try {
    return await runApp1({
      url: app2.url,
      scenario: run.scenario,
      strategy,
      timeScale,
      maxAttempts: run.maxAttempts,
      ...(now && { now }),
      ...(onProgress && { onProgress }),
    });
  } finally {
    await app2.close();
  }
}
