import {
  createEvalStrategy,
  evaluateTimeoutSuite,
  type StrategyEvaluation,
  TIMEOUT_EVAL_RUN_DEFAULTS,
  type TimeoutEvalStrategy,
  type TimeoutScenarioName,
} from 'difftry/experiments';

/** Requests in Fig 3's trace, the first 10 % initialising (as `timeouts eval --requests 800`). */
export const TRACE_REQUESTS = 800;

/** One attempt of a traced request, seconds. */
export interface TracedAttempt {
  /** The server's latency for the attempt (curve × noise). */
  readonly latencyS: number;
  /** The timeout the strategy set, or undefined when the attempt waited without one. */
  readonly timeoutS: number | undefined;
  readonly timedOut: boolean;
}

/** One request of the trace. */
export interface TracedRequest {
  /** The scenario's noise-free latency for the request (s). */
  readonly curveS: number;
  /** Whether it counts in the figures (false during the initialisation). */
  readonly measured: boolean;
  readonly attempts: readonly TracedAttempt[];
}

/** Fig 3's run: the evaluation `timeouts eval` prints for it, and every request's attempts. */
export interface TimeoutTrace {
  readonly evaluation: StrategyEvaluation;
  readonly requests: readonly TracedRequest[];
}

/**
 * Runs one strategy through one scenario for {@link TRACE_REQUESTS} requests in virtual time,
 * exactly as `difftry timeouts eval --scenario S --strategies K --requests 800` does (the same
 * suite, strategies and seed), and keeps every attempt. About 10 ms of CPU, so it runs on the
 * page's thread.
 * @example
 * ```ts
 * timeoutTrace('spikes', 'combined').evaluation.timeFraction;
 * ```
 */
export function timeoutTrace(
  scenario: TimeoutScenarioName,
  strategy: TimeoutEvalStrategy,
): TimeoutTrace {
  const requests: { curveS: number; measured: boolean; attempts: TracedAttempt[] }[] = [];
  const [evaluation] = evaluateTimeoutSuite({
    seed: TIMEOUT_EVAL_RUN_DEFAULTS.seed,
    requests: TRACE_REQUESTS,
    scenarios: [scenario],
    strategies: [strategy],
    createStrategy: createEvalStrategy,
    onAttempt: (_run, attempt) => {
      if (attempt.attempt === 0) {
        requests.push({ curveS: attempt.curveS, measured: attempt.measured, attempts: [] });
      }
      requests[attempt.request]?.attempts.push({
        latencyS: attempt.latencyMs / 1000,
        timeoutS: attempt.timeoutMs === undefined ? undefined : attempt.timeoutMs / 1000,
        timedOut: attempt.timedOut,
      });
    },
  });
  return { evaluation: evaluation as StrategyEvaluation, requests };
}
