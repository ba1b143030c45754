import { describe, expect, it } from 'vitest';
import { rampEscape } from '../../../src/model/network/rampEscape.js';

describe('rampEscape', () => {
  it('gives the exponential law’s median and truncated mean at a constant rate', () => {
    // r = 0.01/s over a 600 s ramp 0 → 600 (load = seconds): median 100 ln 2 · … = 69.3 s.
    const found = rampEscape([{ load: 0, rate: 0.01 }], 0, 600, 600);
    expect(found.medianLoad).toBeCloseTo(100 * Math.LN2, 1);
    const left = 1 - Math.exp(-6);
    expect(found.left).toBeCloseTo(left, 6);
    // E[T | T < D] for T ~ Exp(r): 1/r − D e^{−rD} / (1 − e^{−rD}).
    const mean = 100 - (600 * Math.exp(-6)) / left;
    expect(found.meanLoad).toBeCloseTo(mean, 1);
  });

  it('leaves at once where the state stops existing', () => {
    const found = rampEscape(
      [
        { load: 10, rate: 0 },
        { load: 59.99, rate: 0 },
        { load: 60, rate: Number.POSITIVE_INFINITY },
      ],
      10,
      80,
      600,
    );
    expect(found.left).toBe(1);
    expect(found.meanLoad).toBeCloseTo(60, 1);
    expect(found.medianLoad).toBeCloseTo(60, 1);
  });

  it('interpolates the rate log-linearly between points, and runs downwards too', () => {
    // Rate e^{load − 50} between 40 and 60; going down from 60, most leave near the top.
    const points = [40, 60].map((load) => ({ load, rate: Math.exp(load - 50) }));
    const down = rampEscape(points, 60, 40, 600);
    // ∫ r dt from 60 down to x, at 30 s per unit: 30 (e^{10} − e^{x − 50}) = ln 2 at the median.
    const median = 50 + Math.log(Math.exp(10) - Math.LN2 / 30);
    expect(down.medianLoad).toBeCloseTo(median, 2);
    expect(down.left).toBe(1);
  });

  it('refuses what it cannot integrate', () => {
    expect(() => rampEscape([], 0, 1, 1)).toThrow(RangeError);
    expect(() => rampEscape([{ load: 0, rate: -1 }], 0, 1, 1)).toThrow(RangeError);
    expect(() =>
      rampEscape(
        [
          { load: 1, rate: 1 },
          { load: 0, rate: 1 },
        ],
        0,
        1,
        1,
      ),
    ).toThrow(RangeError);
    expect(() => rampEscape([{ load: 0, rate: 1 }], 0, 1, 0)).toThrow(RangeError);
  });
});
