import { describe, expect, it } from 'vitest';
import {
  createEvalStrategy,
  TIMEOUT_EVAL_RUN_DEFAULTS,
} from '../../src/experiments/timeouts/evalStrategies.js';
import { evaluateTimeoutSuite } from '../../src/experiments/timeouts/evaluateSuite.js';
import { timeoutScenario } from '../../src/experiments/timeouts/scenarios.js';
import { TRACE_REQUESTS, timeoutTrace } from '../../web/src/timeouts/timeoutTrace.js';

describe('timeoutTrace (Fig 3)', () => {
  it('is the evaluation of timeouts eval for 800 requests, with every attempt kept', () => {
    const trace = timeoutTrace('spikes', 'combined');
    const [row] = evaluateTimeoutSuite({
      seed: TIMEOUT_EVAL_RUN_DEFAULTS.seed,
      requests: TRACE_REQUESTS,
      scenarios: ['spikes'],
      strategies: ['combined'],
      createStrategy: createEvalStrategy,
    });
    const { recomputeTimeMs: _real, ...evaluation } = trace.evaluation;
    const { recomputeTimeMs: _again, ...expected } = row ?? trace.evaluation;
    expect(evaluation).toEqual(expected);
    expect(trace.requests).toHaveLength(800);
    expect(trace.requests.findIndex((r) => r.measured)).toBe(80);
    const scenario = timeoutScenario('spikes', { requests: 800, initRequests: 80 });
    const measured = trace.requests.filter((r) => r.measured);
    const attempts = measured.flatMap((r) => r.attempts);
    expect(attempts).toHaveLength(trace.evaluation.attempts);
    expect(attempts.filter((a) => a.timedOut)).toHaveLength(trace.evaluation.timedOutAttempts);
    const spentS = attempts.reduce(
      (sum, a) => sum + (a.timedOut ? (a.timeoutS as number) : a.latencyS),
      0,
    );
    expect(spentS).toBeCloseTo(trace.evaluation.totalTimeS, 9);
    trace.requests.forEach((r, i) => {
      expect(r.curveS).toBe(scenario.curve(i));
      expect(r.attempts.at(-1)?.timedOut).toBe(false);
    });
  });
});
