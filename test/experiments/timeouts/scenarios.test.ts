import { describe, expect, it } from 'vitest';
import {
  EXCURSIONS,
  measuredCurveIntegral,
  RANDOM_WALK,
  TIMEOUT_SCENARIO_NAMES,
  type TimeoutScenario,
  timeoutScenario,
} from '../../../src/experiments/timeouts/scenarios.js';

const curveOf = (scenario: TimeoutScenario) =>
  Array.from({ length: scenario.requests }, (_, i) => scenario.curve(i));

describe('timeoutScenario', () => {
  it('has 2 000 requests with 200 to initialise by default, in the paper order', () => {
    expect(TIMEOUT_SCENARIO_NAMES).toEqual([
      'stable',
      'random-walk',
      'slow-increase',
      'fast-increase',
      'slow-decrease',
      'fast-decrease',
      'spikes',
      'dips',
    ]);
    for (const name of TIMEOUT_SCENARIO_NAMES) {
      const scenario = timeoutScenario(name);
      expect({ name, requests: scenario.requests, init: scenario.initRequests }).toEqual({
        name,
        requests: 2000,
        init: 200,
      });
    }
  });

  it('stable stays at 0.1 s', () => {
    const values = curveOf(timeoutScenario('stable'));
    expect(new Set(values)).toEqual(new Set([0.1]));
    expect(measuredCurveIntegral(timeoutScenario('stable'))).toBeCloseTo(180, 10);
  });

  it('the slow ramps go linearly from 0.1 s to 0.4 s (and back) over the measured requests', () => {
    const up = curveOf(timeoutScenario('slow-increase'));
    const down = curveOf(timeoutScenario('slow-decrease'));
    expect(up.slice(0, 201).every((v) => v === 0.1)).toBe(true);
    expect(down.slice(0, 201).every((v) => v === 0.4)).toBe(true);
    expect(up[1999]).toBeCloseTo(0.4, 12);
    expect(down[1999]).toBeCloseTo(0.1, 12);
    for (let i = 201; i < 2000; i++) {
      const step = 0.3 / 1799;
      expect(up[i] - up[i - 1], `up at ${i}`).toBeCloseTo(step, 12);
      expect(down[i] - down[i - 1], `down at ${i}`).toBeCloseTo(-step, 12);
    }
    // A linear ramp's mean is the mean of its ends: 1 800 × 0.25 s.
    expect(measuredCurveIntegral(timeoutScenario('slow-increase'))).toBeCloseTo(450, 9);
    expect(measuredCurveIntegral(timeoutScenario('slow-decrease'))).toBeCloseTo(450, 9);
  });

  it('the fast scenarios step once, at the measured run’s midpoint', () => {
    const up = curveOf(timeoutScenario('fast-increase'));
    const down = curveOf(timeoutScenario('fast-decrease'));
    const changes = (values: number[]) =>
      values.flatMap((v, i) => (i > 0 && v !== values[i - 1] ? [i] : []));
    expect(changes(up)).toEqual([1100]);
    expect(changes(down)).toEqual([1100]);
    expect([up[1099], up[1100], down[1099], down[1100]]).toEqual([0.1, 0.4, 0.4, 0.1]);
  });

  it('spikes and dips are periodic excursions between 0.1 s and 0.4 s', () => {
    const spikes = curveOf(timeoutScenario('spikes'));
    const dips = curveOf(timeoutScenario('dips'));
    const { period, width } = EXCURSIONS;
    for (let i = 0; i < 2000; i++) {
      expect(spikes[i], `spikes at ${i}`).toBe(i % period >= period - width ? 0.4 : 0.1);
      expect(spikes[i] + dips[i], `dips at ${i}`).toBeCloseTo(0.5, 12);
      if (i + period < 2000) expect(spikes[i + period]).toBe(spikes[i]);
    }
    expect(spikes.slice(200).filter((v) => v === 0.4)).toHaveLength(9 * width);
  });

  it('the random walk reverts to 0.125 s, is seeded and reproducible', () => {
    const walk = curveOf(timeoutScenario('random-walk', { seed: 7 }));
    expect(curveOf(timeoutScenario('random-walk', { seed: 7 }))).toEqual(walk);
    expect(curveOf(timeoutScenario('random-walk', { seed: 8 }))).not.toEqual(walk);
    expect(walk[0]).toBe(RANDOM_WALK.mean);
    const mean = walk.reduce((a, b) => a + b, 0) / walk.length;
    // Stationary sd 0.01/√0.51 ≈ 0.014; lag-1 correlation 0.7 leaves ≈ 350 effective samples,
    // so the mean's standard error is ≈ 0.00075 s: 0.004 is over five of them.
    expect(mean).toBeGreaterThan(0.121);
    expect(mean).toBeLessThan(0.129);
    const deviations = walk.map((v) => v - mean);
    let lag0 = 0;
    let lag1 = 0;
    for (let i = 0; i < deviations.length; i++) {
      lag0 += deviations[i] ** 2;
      if (i > 0) lag1 += deviations[i] * deviations[i - 1];
    }
    expect(lag1 / lag0).toBeCloseTo(1 - RANDOM_WALK.reversion, 1);
    expect(Math.sqrt(lag0 / walk.length)).toBeCloseTo(0.014, 2);
    expect(Math.min(...walk)).toBeGreaterThan(0.05);
    expect(Math.max(...walk)).toBeLessThan(0.2);
  });

  it('the deterministic curves do not depend on the seed; other sizes keep the shapes', () => {
    for (const name of TIMEOUT_SCENARIO_NAMES.filter((n) => n !== 'random-walk')) {
      expect(curveOf(timeoutScenario(name, { seed: 3 }))).toEqual(curveOf(timeoutScenario(name)));
    }
    const small = timeoutScenario('slow-increase', { requests: 30, initRequests: 5 });
    expect([small.curve(5), small.curve(29)]).toEqual([0.1, expect.closeTo(0.4, 12)]);
  });

  it('refuses unknown names, bad sizes and indices outside the run', () => {
    // @ts-expect-error: not a scenario
    expect(() => timeoutScenario('steady')).toThrow(/scenario should be one of stable, .*"steady"/);
    expect(() => timeoutScenario('stable', { requests: 1 })).toThrow(RangeError);
    expect(() => timeoutScenario('stable', { requests: 10, initRequests: 9 })).toThrow(
      /initRequests/,
    );
    expect(() => timeoutScenario('stable').curve(2000)).toThrow(/\[0, 2000\), got 2000/);
    expect(() => timeoutScenario('stable').curve(1.5)).toThrow(RangeError);
  });
});
