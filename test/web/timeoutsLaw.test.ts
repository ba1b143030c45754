import { describe, expect, it } from 'vitest';
import { ceilingTimeout } from '../../src/model/timeouts/ceilingTimeout.js';
import { linearCost } from '../../src/model/timeouts/linearCost.js';
import { lognormalLatency } from '../../src/model/timeouts/lognormalLatency.js';
import { singleTimeout } from '../../src/model/timeouts/singleTimeout.js';
import { lawCurves, nearestCurvePoint } from '../../web/src/timeouts/lawCurves.js';
import { parametricLatency } from '../../web/src/timeouts/parametricLatency.js';
import { TIMEOUTS_DEFAULTS } from '../../web/src/timeouts/timeoutsSettings.js';
import { handleTimeout, timeRange } from '../../web/src/timeouts/timeRange.js';

const mixture = TIMEOUTS_DEFAULTS.law;

describe('the Timeouts view’s latency law', () => {
  it('a lognormal is the model’s; a mixture weighs its paths by the slow share', () => {
    const lognormal = parametricLatency({ ...mixture, kind: 'lognormal' });
    const reference = lognormalLatency({ median: 0.1, sigma: 0.25 });
    const slow = lognormalLatency({ median: 0.5, sigma: 0.25 });
    const law = parametricLatency(mixture);
    for (const t of [0.05, 0.1, 0.3, 0.5, 1]) {
      expect(lognormal.survival(t)).toBe(reference.survival(t));
      expect(law.survival(t)).toBeCloseTo(0.7 * reference.survival(t) + 0.3 * slow.survival(t), 14);
      expect(law.density(t)).toBeCloseTo(0.7 * reference.density(t) + 0.3 * slow.density(t), 12);
    }
  });

  it('the time axis reaches past 1.5 × the default ceiling, to a round number', () => {
    const law = lognormalLatency({ median: 0.1, sigma: 0.5 });
    const range = timeRange(law);
    expect(range.upperS).toBe(0.8);
    expect(range.upperS).toBeGreaterThanOrEqual(1.5 * ceilingTimeout(law));
    expect(range.minS).toBe(Math.max(law.minObserved, 0.008));
    expect(range.stepS).toBeCloseTo(0.004, 15);
  });

  it('a handle’s timeout is rounded to 4 significant digits and kept in range', () => {
    const range = { upperS: 0.8, minS: 0.0157, stepS: 0.004 };
    expect(handleTimeout(0.123456, range)).toBe(0.1235);
    expect(handleTimeout(0.30000000000000004, range)).toBe(0.3);
    expect(handleTimeout(5, range)).toBe(0.8);
    expect(handleTimeout(0.001, range)).toBe(0.0157);
  });

  it('curves: f, g and E(t) at evenly spaced timeouts, t = 0 left out', () => {
    const law = parametricLatency(mixture);
    const cost = linearCost({ c1: 0.1 });
    const curves = lawCurves(law, cost, 2, 4);
    expect(curves.map((p) => p.t)).toEqual([0.5, 1, 1.5, 2]);
    for (const p of curves) {
      expect(p.density).toBe(law.density(p.t));
      expect(p.cost).toBeCloseTo(0.1 * p.t, 15);
      expect(p.E).toBe(singleTimeout(law, p.t, cost).E);
    }
    expect(nearestCurvePoint(curves, 1.2)?.t).toBe(1);
    expect(nearestCurvePoint(curves, 0)?.t).toBe(0.5);
    expect(nearestCurvePoint([], 1)).toBeUndefined();
  });
});
