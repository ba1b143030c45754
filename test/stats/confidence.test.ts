import { describe, expect, it } from 'vitest';
import { meanWithCi95, studentT975 } from '../../src/stats/confidence.js';

describe('studentT975', () => {
  // Published two-sided 95 % t values (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
  const published: [number, number][] = [
    [1, 12.706],
    [2, 4.303],
    [5, 2.571],
    [10, 2.228],
    [30, 2.042],
    [100, 1.984],
  ];
  it.each(published)('df = %i gives %f', (df, value) => {
    expect(Math.abs(studentT975(df) - value), `df=${df}`).toBeLessThan(5e-4);
  });

  it('is accurate to 1e-4 beyond the table (Cornish–Fisher)', () => {
    // t_{0.975} to 7 decimals from a statistics package, independent of the code under test.
    const reference: [number, number][] = [
      [31, 2.0395134],
      [40, 2.0210754],
      [60, 2.0002978],
      [100, 1.9839715],
      [1000, 1.9623391],
    ];
    for (const [df, value] of reference) {
      expect(Math.abs(studentT975(df) - value), `df=${df}`).toBeLessThan(1e-6);
    }
  });

  it('falls towards z = 1.96 as df grows', () => {
    let previous = Number.POSITIVE_INFINITY;
    for (let df = 1; df <= 500; df++) {
      const t = studentT975(df);
      expect(t, `df=${df}`).toBeLessThan(previous);
      expect(t).toBeGreaterThan(1.959963984540054);
      previous = t;
    }
  });

  it('rejects df that are not integers ≥ 1', () => {
    expect(() => studentT975(0)).toThrow(RangeError);
    expect(() => studentT975(2.5)).toThrow(RangeError);
    expect(() => studentT975(Number.NaN)).toThrow(RangeError);
  });
});

describe('meanWithCi95', () => {
  it('gives t · sd / √n', () => {
    // mean 3, sd √2.5, n 5: 2.7764451 · √2.5 / √5 = 1.9632432
    const { mean, ci95 } = meanWithCi95([1, 2, 3, 4, 5]);
    expect(mean).toBe(3);
    expect(ci95).toBeCloseTo(1.9632432, 6);
  });

  it('is zero for identical values', () => {
    expect(meanWithCi95([0.25, 0.25, 0.25, 0.25])).toEqual({ mean: 0.25, ci95: 0 });
  });

  it('has no half-width for fewer than two values', () => {
    expect(meanWithCi95([4])).toEqual({ mean: 4, ci95: Number.NaN });
    expect(meanWithCi95([])).toEqual({ mean: Number.NaN, ci95: Number.NaN });
  });
});
