import { describe, expect, it } from 'vitest';
import { type AttemptTrace, evaluateTimeouts } from '../../../src/experiments/timeouts/evaluate.js';
import { evaluateTimeoutSuite } from '../../../src/experiments/timeouts/evaluateSuite.js';
import {
  attemptNoise,
  heavyTailedNoise,
  noNoise,
} from '../../../src/experiments/timeouts/latencyNoise.js';
import { scenarioRun } from '../../../src/experiments/timeouts/scenarioRun.js';
import {
  measuredCurveIntegral,
  TIMEOUT_SCENARIO_NAMES,
  timeoutScenario,
} from '../../../src/experiments/timeouts/scenarios.js';
import { VirtualClock } from '../../../src/experiments/timeouts/VirtualClock.js';
import { seededRandom } from '../../../src/model/random.js';
import {
  fixedTimeout,
  type TimeoutObservation,
  type TimeoutStrategy,
} from '../../../src/policy/timeouts/TimeoutStrategy.js';

const flat = (requests = 2000, attempts = 20) =>
  attemptNoise(noNoise, { requests, attempts, random: seededRandom(1) });

/** A stand-in strategy recording what it is asked and told. */
function recording(timeoutMs: number) {
  const calls: string[] = [];
  const strategy: TimeoutStrategy = {
    next(attempt) {
      calls.push(`next ${attempt}`);
      return timeoutMs;
    },
    observe(outcome: TimeoutObservation, latencyMs: number) {
      calls.push(`${outcome} ${latencyMs}`);
    },
  };
  return { strategy, calls };
}

describe('evaluateTimeouts without noise (hand-computable)', () => {
  it('a timeout above the curve gives Time Fraction exactly 1 in every scenario', () => {
    for (const name of TIMEOUT_SCENARIO_NAMES) {
      const scenario = timeoutScenario(name);
      const result = evaluateTimeouts({ scenario, strategy: fixedTimeout(1000), noise: flat() });
      expect(result, name).toMatchObject({
        scenario: name,
        requests: 1800,
        attempts: 1800,
        timedOutAttempts: 0,
        timeoutPercentage: 0,
        diagnosticRequests: 0,
        cappedRequests: 0,
        recomputeTimeMs: undefined,
      });
      expect(result.timeFraction, name).toBeCloseTo(1, 12);
      expect(result.curveIntegralS, name).toBeCloseTo(measuredCurveIntegral(scenario), 12);
      expect(result.totalTimeS, name).toBeCloseTo(result.curveIntegralS, 9);
      // Σ 1 s / Σ curve.
      expect(result.timeoutCloseness, name).toBeCloseTo(1800 / result.curveIntegralS, 9);
    }
  });

  it('a timeout below the curve times out 19 times, then waits out the 20th attempt', () => {
    // Stable, 100 ms per attempt, 50 ms timeouts: 19 × 50 + 100 = 1 050 ms per request.
    const result = evaluateTimeouts({
      scenario: timeoutScenario('stable'),
      strategy: fixedTimeout(50),
      noise: flat(),
    });
    expect(result).toMatchObject({
      attempts: 1800 * 20,
      timedOutAttempts: 1800 * 19,
      timeoutPercentage: 95,
      cappedRequests: 1800,
    });
    expect(result.totalTimeS).toBeCloseTo(1800 * 1.05, 9);
    expect(result.timeFraction).toBeCloseTo(10.5, 12);
    expect(result.timeoutCloseness).toBeNaN();
  });

  it('a timeout inside a ramp: requests below it succeed at once, the others hit the cap', () => {
    const scenario = timeoutScenario('slow-increase');
    const result = evaluateTimeouts({
      scenario,
      strategy: fixedTimeout(250),
      noise: flat(),
      maxAttempts: 4,
    });
    let expectedMs = 0;
    let capped = 0;
    for (let i = 200; i < 2000; i++) {
      const latencyMs = scenario.curve(i) * 1000;
      if (latencyMs <= 250) {
        expectedMs += latencyMs;
      } else {
        expectedMs += 3 * 250 + latencyMs;
        capped++;
      }
    }
    expect(result.cappedRequests).toBe(capped);
    expect(result.timedOutAttempts).toBe(3 * capped);
    expect(result.attempts).toBe(1800 + 3 * capped);
    expect(result.totalTimeS).toBeCloseTo(expectedMs / 1000, 9);
    expect(result.timeFraction).toBeCloseTo(expectedMs / 1000 / 450, 12);
  });

  it('tells the strategy each outcome: timeouts censored at the timeout, successes in full', () => {
    const scenario = timeoutScenario('stable', { requests: 3, initRequests: 1 });
    const { strategy, calls } = recording(60);
    const clock = new VirtualClock();
    evaluateTimeouts({ scenario, strategy, noise: flat(3, 3), maxAttempts: 3, clock });
    const oneRequest = ['next 0', 'timeout 60', 'next 1', 'timeout 60', 'success 100'];
    expect(calls).toEqual([...oneRequest, ...oneRequest, ...oneRequest]);
    // The initialisation runs in virtual time too: 3 requests × 220 ms.
    expect(clock.now()).toBeCloseTo(660, 9);
  });

  it('diagnostic requests wait out their first attempt uncensored', () => {
    const scenario = timeoutScenario('stable');
    let started = 0;
    const observed: string[] = [];
    const strategy = {
      beginRequest: () => ({ diagnostic: started++ % 10 === 0 }),
      next: () => 50,
      observe: (outcome: TimeoutObservation, latencyMs: number) => {
        if (outcome === 'success') observed.push(`${outcome} ${latencyMs}`);
      },
    };
    const result = evaluateTimeouts({ scenario, strategy, noise: flat() });
    expect(started).toBe(2000);
    expect(result.diagnosticRequests).toBe(180);
    expect(result.cappedRequests).toBe(1620);
    // 180 × 100 ms + 1 620 × (19 × 50 + 100) ms.
    expect(result.totalTimeS).toBeCloseTo(18 + 1620 * 1.05, 9);
    expect(new Set(observed)).toEqual(new Set(['success 100']));
  });

  it("sends a request's calls to the handle beginRequest() returns, when it is a strategy", () => {
    const calls: string[] = [];
    const strategy = {
      beginRequest: () => ({
        diagnostic: false,
        next: (attempt: number) => {
          calls.push(`handle next ${attempt}`);
          return 1000;
        },
        observe: (outcome: TimeoutObservation) => calls.push(`handle ${outcome}`),
      }),
      next: () => {
        calls.push('strategy next');
        return 1000;
      },
      observe: () => calls.push('strategy observe'),
    };
    const scenario = timeoutScenario('stable', { requests: 2, initRequests: 0 });
    evaluateTimeouts({ scenario, strategy, noise: flat(2) });
    expect(calls).toEqual(['handle next 0', 'handle success', 'handle next 0', 'handle success']);
  });

  it('with noise and a timeout above every latency, Time Fraction is Σ noise-weighted curve / Σ curve', () => {
    const run = scenarioRun('spikes', { seed: 4 });
    const result = evaluateTimeouts({
      scenario: run.scenario,
      strategy: fixedTimeout(1e9),
      noise: run.noise,
    });
    let weighted = 0;
    for (let i = 200; i < 2000; i++) weighted += run.scenario.curve(i) * run.noise(i, 0);
    expect(result.timedOutAttempts).toBe(0);
    expect(result.timeFraction).toBeCloseTo(weighted / measuredCurveIntegral(run.scenario), 12);
    // The noise has mean 1, so the no-timeout client is near the oracle's 1.00.
    expect(Math.abs(result.timeFraction - 1)).toBeLessThan(0.1);
  });

  it('reports the recompute time the strategy exposes over the measured requests only', () => {
    let requests = 0;
    const strategy = {
      recomputeTimeMs: 0,
      next() {
        return 1000;
      },
      observe() {
        requests++;
        this.recomputeTimeMs = requests * 2; // 2 ms per request
      },
    };
    const scenario = timeoutScenario('stable', { requests: 50, initRequests: 10 });
    const result = evaluateTimeouts({ scenario, strategy, noise: flat(50) });
    expect(result.recomputeTimeMs).toBe(80);
  });

  it('refuses a strategy timeout that is not a positive number, and a bad attempt cap', () => {
    const scenario = timeoutScenario('stable', { requests: 5, initRequests: 1 });
    const bad = { next: () => Number.NaN, observe: () => {} };
    expect(() => evaluateTimeouts({ scenario, strategy: bad, noise: flat(5) })).toThrow(
      /timeout for attempt 0 should be a positive number of ms, got NaN/,
    );
    expect(() =>
      evaluateTimeouts({ scenario, strategy: fixedTimeout(1), noise: flat(5), maxAttempts: 0 }),
    ).toThrow(/maxAttempts/);
  });

  it('reports progress up to 1', () => {
    const fractions: number[] = [];
    evaluateTimeouts({
      scenario: timeoutScenario('stable', { requests: 250, initRequests: 20 }),
      strategy: fixedTimeout(1000),
      noise: flat(250),
      onProgress: (f) => fractions.push(f),
    });
    expect(fractions).toEqual([0.4, 0.8, 1]);
  });
});

describe('evaluateTimeoutSuite', () => {
  const options = {
    seed: 3,
    scenarios: ['stable', 'dips'] as const,
    strategies: ['tight', 'loose'],
    createStrategy: (name: string) => fixedTimeout(name === 'tight' ? 150 : 500),
  };

  it('runs every strategy on every scenario, reproducibly, on the same noise', () => {
    const rows = evaluateTimeoutSuite(options);
    expect(rows.map((r) => `${r.scenario}/${r.strategy}`)).toEqual([
      'stable/tight',
      'stable/loose',
      'dips/tight',
      'dips/loose',
    ]);
    expect(evaluateTimeoutSuite(options)).toEqual(rows);
    // Same scenario, same noise: two strategies that decide alike measure alike.
    const twins = evaluateTimeoutSuite({ ...options, createStrategy: () => fixedTimeout(150) });
    expect({ ...twins[0], strategy: '' }).toEqual({ ...twins[1], strategy: '' });
    expect(evaluateTimeoutSuite({ ...options, seed: 4 })).not.toEqual(rows);
  });

  it('gives each strategy a fresh clock and the same seeded random source', () => {
    const seen: number[] = [];
    evaluateTimeoutSuite({
      ...options,
      scenarios: ['stable'],
      requests: 20,
      createStrategy: (_name, { clock, random }) => {
        seen.push(clock(), random());
        return fixedTimeout(1000);
      },
    });
    expect(seen[0]).toBe(0);
    expect(seen[2]).toBe(0);
    expect(seen[1]).toBe(seen[3]);
  });

  it('traces every attempt of every run, adding up to the measured time and timeouts', () => {
    const traces = new Map<string, AttemptTrace[]>();
    const rows = evaluateTimeoutSuite({
      ...options,
      requests: 300,
      onAttempt: ({ scenario, strategy }, attempt) => {
        const key = `${scenario}/${strategy}`;
        traces.set(key, [...(traces.get(key) ?? []), attempt]);
      },
    });
    expect([...traces.keys()]).toEqual(rows.map((r) => `${r.scenario}/${r.strategy}`));
    for (const row of rows) {
      const trace = traces.get(`${row.scenario}/${row.strategy}`) ?? [];
      const measured = trace.filter((a) => a.measured);
      const spentMs = measured.reduce(
        (sum, a) => sum + (a.timedOut ? (a.timeoutMs as number) : a.latencyMs),
        0,
      );
      expect(trace[0]).toMatchObject({ request: 0, attempt: 0, measured: false });
      expect(measured[0]?.request).toBe(30);
      expect(measured.length, `${row.scenario}/${row.strategy}`).toBe(row.attempts);
      expect(measured.filter((a) => a.timedOut).length).toBe(row.timedOutAttempts);
      expect(spentMs / 1000).toBeCloseTo(row.totalTimeS, 9);
    }
  });

  it('a run of 20 requests initialises with 10 % of them', () => {
    const [row] = evaluateTimeoutSuite({ ...options, strategies: ['loose'], requests: 20 });
    expect(row?.requests).toBe(18);
  });
});

describe('heavy-tailed noise against a fixed timeout', () => {
  it('a timeout cutting the tail beats waiting it out on a stable curve', () => {
    const run = scenarioRun('stable', { seed: 9, noise: heavyTailedNoise() });
    const patient = evaluateTimeouts({
      scenario: run.scenario,
      strategy: fixedTimeout(1e9),
      noise: run.noise,
    });
    const cutting = evaluateTimeouts({
      scenario: run.scenario,
      strategy: fixedTimeout(180),
      noise: run.noise,
    });
    expect(cutting.timeFraction).toBeLessThan(patient.timeFraction);
  });
});
