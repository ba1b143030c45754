import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../../src/model/network/analyzeSweep.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { rampEscape } from '../../../src/model/network/rampEscape.js';
import { sweepRamp } from '../../../src/model/network/sweepRamp.js';
import { windowReading } from '../../../src/model/network/windowReading.js';
import { windowAverageVariance } from '../../../src/model/numeric/birthDeathFluctuation.js';

/** One service, μ = 100, m = 10, k = 5, T = 50 ms: healthy, then bistable, then a storm. */
const service: NetworkModel = {
  classes: [{ name: 'gold', retryLimit: 5, meanBackoffs: [0.1] }],
  services: [
    {
      name: 'api',
      capacity: 100,
      queue: 10,
      model: 'mm1m',
      arrivals: [50],
      retryLimits: [5],
      routes: [],
      timeouts: [0.05],
    },
  ],
};
const values = [20, 30, 40, 45, 50, 55, 60, 70, 80];
const swept = analyzeSweep(service, { serviceIndex: 0, field: 0 }, values, { law: 'orbit' });

describe('sweepRamp', () => {
  it('reads the escape rates off the sweep: the healthy state left at 1/escape time', () => {
    const ramp = sweepRamp(swept.points, 600, [1]);
    // The rates by hand from the reports: one state healthy (0) or storm (∞), two states 1/τ.
    const rates = swept.points.map(({ value, report }) => {
      const [first] = report.equilibria;
      if (report.equilibria.length > 1)
        return { load: value, rate: 1 / (first?.services.api?.escapeSeconds as number) };
      const storm = (first?.endToEnd.gold?.rejection ?? 0) > 0.5;
      return { load: value, rate: storm ? Number.POSITIVE_INFINITY : 0 };
    });
    expect(swept.points.some((p) => p.report.equilibria.length > 1)).toBe(true);
    expect(ramp.tipping).toEqual(rampEscape(rates, 20, 80, 600));
    expect(ramp.tipping.left).toBe(1);
    expect(ramp.tipping.meanLoad).toBeGreaterThan(20);
    expect(ramp.tipping.meanLoad).toBeLessThan(80);
  });

  it('tips lower on a slower ramp, with more time to escape at each load', () => {
    const slow = sweepRamp(swept.points, 6000, [1]);
    const fast = sweepRamp(swept.points, 60, [1]);
    expect(slow.tipping.meanLoad).toBeLessThan(fast.tipping.meanLoad);
    // Coming down, a slower ramp leaves the storm earlier: at a higher load.
    expect(slow.recovery.meanLoad).toBeGreaterThan(fast.recovery.meanLoad);
  });

  it('never leaves a healthy state that lasts across the sweep', () => {
    // At 20 and 30 requests/s the law has one state, healthy: nothing to tip into.
    const light = swept.points.slice(0, 2);
    expect(light.every((p) => p.report.equilibria.length === 1)).toBe(true);
    const ramp = sweepRamp(light, 600, [1]);
    expect(ramp.tipping.left).toBe(0);
    expect(Number.isNaN(ramp.tipping.meanLoad)).toBe(true);
  });

  it('with a window, also leaves a state when one of its windows reads the other side', () => {
    const ramp = sweepRamp(swept.points, 600, [1], true, { windowSeconds: 5 });
    expect(ramp.windowSeconds).toBe(5);
    // By hand: a lone service's swing counts one for one end to end; the count is γ · 5 s.
    const reading = (state: (typeof swept.points)[number]['report']['equilibria'][number]) => {
      const swing = state.services.api?.failedShares?.gold;
      const requests = (state.endToEnd.gold?.requests ?? 0) * 5;
      expect(swing?.endToEnd).toBeCloseTo(1, 12);
      return windowReading({
        requests,
        rejection: state.endToEnd.gold?.rejection ?? 0,
        shareVariance: swing === undefined ? 0 : windowAverageVariance(swing, 5),
        threshold: 0.5,
      });
    };
    const rates = swept.points.map(({ value, report }) => {
      const [first] = report.equilibria;
      const seconds = first?.services.api?.escapeSeconds;
      // A state with no escape time known is not left by escaping.
      const escapeRate = report.equilibria.length > 1 && seconds !== undefined ? 1 / seconds : 0;
      return {
        load: value,
        rate: escapeRate - Math.log1p(-reading(first as NonNullable<typeof first>).above) / 5,
      };
    });
    expect(ramp.tipping).toEqual(rampEscape(rates, 20, 80, 600));
    // At 40/s, one state failing 18 % of requests: about forty a window, swinging with the
    // orbit, so some windows read a storm — a rate escaping alone does not have.
    expect(rates[2]?.rate).toBeGreaterThan(0.001);
    expect(ramp.tipping.left).toBe(1);
  });

  it('judges one class alone when asked, and refuses a class it does not know', () => {
    const one = sweepRamp(swept.points, 600, [1], true, { windowSeconds: 5, className: 'gold' });
    expect(one).toEqual(sweepRamp(swept.points, 600, [1], true, { windowSeconds: 5 }));
    expect(() => sweepRamp(swept.points, 600, [1], true, { className: 'bronze' })).toThrow(
      /no class bronze; the classes are gold/,
    );
    expect(() => sweepRamp(swept.points, 600, [1], true, { windowSeconds: 0 })).toThrow(
      /window should last > 0 s/,
    );
  });

  it('is the orbit law’s alone, and needs two points', () => {
    expect(() =>
      analyzeSweep(service, { serviceIndex: 0, field: 0 }, [20, 40], { rampSeconds: 600 }),
    ).toThrow(/orbit law/);
    expect(() => sweepRamp(swept.points.slice(0, 1), 600, [1])).toThrow(/two values/);
    expect(() => sweepRamp(swept.points, 0, [1])).toThrow(/> 0 s/);
  });
});
