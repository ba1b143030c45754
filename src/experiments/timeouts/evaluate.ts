import type { TimeoutStrategy } from '../../policy/timeouts/TimeoutStrategy.js';
import {
  attemptTimeoutMs,
  checkMaxAttempts,
  DEFAULT_MAX_ATTEMPTS,
  startRequest,
} from './attemptPlan.js';
import type { AttemptNoise } from './latencyNoise.js';
import { recomputeTimeMs } from './recomputeTime.js';
import type { TimeoutScenario } from './scenarios.js';
import { type TimeoutEvaluation, TimeoutTally } from './TimeoutTally.js';
import { VirtualClock } from './VirtualClock.js';

/** One attempt of a run, as {@link TimeoutEvaluationOptions.onAttempt} hears of it. */
export interface AttemptTrace {
  /** The request (0-based, the initialisation included). */
  readonly request: number;
  /** The attempt of that request (0 for the first try). */
  readonly attempt: number;
  /** Whether the request is measured (false during the initialisation). */
  readonly measured: boolean;
  /** The scenario's noise-free latency for the request, seconds. */
  readonly curveS: number;
  /** The server's latency for this attempt (curve × noise), ms. */
  readonly latencyMs: number;
  /** The attempt's timeout, ms, or `undefined` when it waited for its response without one. */
  readonly timeoutMs: number | undefined;
  /** Whether the attempt timed out (it then cost `timeoutMs`). */
  readonly timedOut: boolean;
}

/** Options of {@link evaluateTimeouts}. */
export interface TimeoutEvaluationOptions {
  readonly scenario: TimeoutScenario;
  /** A fresh strategy: the run teaches it the scenario from its first request on. */
  readonly strategy: TimeoutStrategy;
  /** The noise of every attempt, drawn for at least the scenario's requests and `maxAttempts`. */
  readonly noise: AttemptNoise;
  /** Attempts per request; the last waits without a timeout. Default {@link DEFAULT_MAX_ATTEMPTS}. */
  readonly maxAttempts?: number;
  /** The virtual clock to advance (pass the one the strategy reads); default a new one. */
  readonly clock?: VirtualClock;
  /** Called with the fraction of requests done, every 100 requests and at the end. */
  readonly onProgress?: (fraction: number) => void;
  /** Called after every attempt, for a trace of the run (the web UI draws one). */
  readonly onAttempt?: (attempt: AttemptTrace) => void;
}

/**
 * Runs one strategy through one scenario in virtual time. App1 sends the requests one after
 * another; each request tries attempts, with `strategy.next(attempt)` as their timeouts, until
 * one's latency (curve(request) × noise(request, attempt), so a retry draws fresh noise) is at
 * most its timeout. A timed-out attempt costs its timeout and the next attempt starts at once
 * (no backoff delay); the strategy observes `('timeout', timeout)` or `('success', latency)`
 * after each. The last attempt allowed, and the first attempt of a request the strategy marks
 * diagnostic (`beginRequest()`), wait for the response without a timeout.
 *
 * The initialisation requests run and are observed but are left out of every figure.
 * @example
 * ```ts
 * const scenario = timeoutScenario('spikes');
 * const noise = attemptNoise(heavyTailedNoise(), {
 *   requests: scenario.requests, attempts: 20, random: seededRandom(1, 2),
 * });
 * evaluateTimeouts({ scenario, strategy: fixedTimeout(250), noise }).timeFraction;
 * ```
 */
export function evaluateTimeouts(options: Readonly<TimeoutEvaluationOptions>): TimeoutEvaluation {
  const { scenario, strategy, noise, onProgress, onAttempt } = options;
  const maxAttempts = checkMaxAttempts(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const clock = options.clock ?? new VirtualClock();
  const tally = new TimeoutTally(scenario.name);
  let recomputeAtStart: number | undefined;
  for (let request = 0; request < scenario.requests; request++) {
    const measured = request >= scenario.initRequests;
    if (request === scenario.initRequests) recomputeAtStart = recomputeTimeMs(strategy);
    const curveS = scenario.curve(request);
    let elapsedMs = 0;
    const { diagnostic, timeouts } = startRequest(strategy);
    for (let attempt = 0; ; attempt++) {
      const latencyMs = curveS * noise(request, attempt) * 1000;
      const timeoutMs = attemptTimeoutMs(timeouts, attempt, { diagnostic, maxAttempts });
      const timedOut = timeoutMs !== undefined && latencyMs > timeoutMs;
      if (measured) tally.attempt(timeoutMs, timedOut, latencyMs);
      onAttempt?.({ request, attempt, measured, curveS, latencyMs, timeoutMs, timedOut });
      if (timedOut) {
        clock.advance(timeoutMs);
        elapsedMs += timeoutMs;
        timeouts.observe('timeout', timeoutMs);
        continue;
      }
      clock.advance(latencyMs);
      elapsedMs += latencyMs;
      timeouts.observe('success', latencyMs);
      if (measured) {
        tally.request(elapsedMs, curveS, {
          diagnostic,
          capped: attempt === maxAttempts - 1 && !(diagnostic && attempt === 0),
        });
      }
      break;
    }
    if (onProgress && ((request + 1) % 100 === 0 || request + 1 === scenario.requests)) {
      onProgress((request + 1) / scenario.requests);
    }
  }
  const recomputeAtEnd = recomputeTimeMs(strategy);
  return tally.result(
    recomputeAtEnd === undefined ? undefined : recomputeAtEnd - (recomputeAtStart ?? 0),
  );
}
