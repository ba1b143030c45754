import { type RandomSource, seededRandom } from '../../model/random.js';
import { checkMaxAttempts, DEFAULT_MAX_ATTEMPTS } from './attemptPlan.js';
import {
  type AttemptNoise,
  attemptNoise,
  heavyTailedNoise,
  type LatencyNoise,
} from './latencyNoise.js';
import {
  TIMEOUT_SCENARIO_NAMES,
  type TimeoutScenario,
  type TimeoutScenarioName,
  timeoutScenario,
} from './scenarios.js';

/** Options of {@link scenarioRun}. */
export interface ScenarioRunOptions {
  /** Seed of the random walk, of the noise and of the strategies' random sources. */
  readonly seed: number;
  /** Requests in the run, the initialisation included; default 2 000. */
  readonly requests?: number;
  /** Initialisation requests; default 200 (10 % of `requests` when only that is given). */
  readonly initRequests?: number;
  /** Attempts per request (the last without timeout); default 20. */
  readonly maxAttempts?: number;
  /** The noise law; default {@link heavyTailedNoise}(). */
  readonly noise?: LatencyNoise;
}

/** Everything one scenario's runs share, whichever strategy runs it (virtual or live). */
export interface ScenarioRun {
  readonly scenario: TimeoutScenario;
  /** The noise of every attempt: the same for every strategy (common random numbers). */
  readonly noise: AttemptNoise;
  readonly maxAttempts: number;
  /** A fresh random source for a strategy that needs one; the same sequence on every call. */
  strategyRandom(): RandomSource;
}

/**
 * Sets up one scenario for a seed. Random streams of `seededRandom(seed, …)`: 1 for the random
 * walk, 2 + k for the noise of the k-th scenario of {@link TIMEOUT_SCENARIO_NAMES}, 20 + k for
 * its strategies; so a scenario's numbers do not depend on which other scenarios run.
 */
export function scenarioRun(
  name: TimeoutScenarioName,
  options: Readonly<ScenarioRunOptions>,
): ScenarioRun {
  const { seed } = options;
  const requests = options.requests;
  const initRequests =
    options.initRequests ?? (requests === undefined ? undefined : Math.floor(requests / 10));
  const scenario = timeoutScenario(name, { seed, requests, initRequests });
  const maxAttempts = checkMaxAttempts(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const index = TIMEOUT_SCENARIO_NAMES.indexOf(name);
  const noise = attemptNoise(options.noise ?? heavyTailedNoise(), {
    requests: scenario.requests,
    attempts: maxAttempts,
    random: seededRandom(seed, 2 + index),
  });
  return {
    scenario,
    noise,
    maxAttempts,
    strategyRandom: () => seededRandom(seed, 20 + index),
  };
}
