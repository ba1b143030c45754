import { describe, expect, it } from 'vitest';
import {
  attemptNoise,
  heavyTailedNoise,
  noNoise,
} from '../../../src/experiments/timeouts/latencyNoise.js';
import { seededRandom } from '../../../src/model/random.js';

/** The q-quantile of a CDF by bisection on [0, 1000]. */
function quantile(cdf: (x: number) => number, q: number): number {
  let lo = 0;
  let hi = 1000;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < q) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

describe('heavyTailedNoise', () => {
  const noise = heavyTailedNoise();
  const random = seededRandom(11);
  const draws = Float64Array.from({ length: 200_000 }, () => noise.sample(random)).sort();

  it('has mean 1 (so 1.00 is the no-timeout oracle), a median near 0.73 and a long right tail', () => {
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    // The variance is 2.80 − 1 = 1.80 (finite for α = 2.5): a standard error of 0.003.
    expect(mean).toBeGreaterThan(0.98);
    expect(mean).toBeLessThan(1.02);
    expect(quantile(noise.cdf, 0.5)).toBeCloseTo(0.733, 2);
    expect(quantile(noise.cdf, 0.99)).toBeGreaterThan(5);
  });

  it('samples what its CDF says', () => {
    for (const x of [0.3, 0.5, 0.73, 1, 1.5, 2.84, 4, 8]) {
      let below = 0;
      while (below < draws.length && draws[below] <= x) below++;
      // Binomial standard error at most 0.0011: 0.006 is over five of them.
      expect(Math.abs(below / draws.length - noise.cdf(x)), `at ${x}`).toBeLessThan(0.006);
    }
  });

  it('the mean stays 1 for other shapes, and bad options are named', () => {
    const light = heavyTailedNoise({ sigma: 0.2, tailProbability: 0, tailScale: 1, tailIndex: 3 });
    expect(quantile(light.cdf, 0.5)).toBeCloseTo(Math.exp(-0.02), 6);
    expect(() => heavyTailedNoise({ tailIndex: 1 })).toThrow(/tailIndex .* got 1/);
    expect(() => heavyTailedNoise({ tailProbability: 2 })).toThrow(/tailProbability/);
    expect(() => heavyTailedNoise({ sigma: -1 })).toThrow(/sigma/);
    expect(() => heavyTailedNoise({ tailScale: 0 })).toThrow(/tailScale/);
  });
});

describe('attemptNoise', () => {
  it('draws a reproducible table per request and attempt', () => {
    const a = attemptNoise(heavyTailedNoise(), {
      requests: 5,
      attempts: 3,
      random: seededRandom(2),
    });
    const b = attemptNoise(heavyTailedNoise(), {
      requests: 5,
      attempts: 3,
      random: seededRandom(2),
    });
    const values = [a(0, 0), a(0, 2), a(4, 1)];
    expect([b(0, 0), b(0, 2), b(4, 1)]).toEqual(values);
    expect(new Set(values).size).toBe(3);
    expect(() => a(5, 0)).toThrow(/\(5, 0\)/);
    expect(() => a(0, 3)).toThrow(RangeError);
  });

  it('noNoise is 1 for every attempt', () => {
    const flat = attemptNoise(noNoise, { requests: 2, attempts: 2, random: seededRandom(1) });
    expect([flat(0, 0), flat(1, 1)]).toEqual([1, 1]);
  });
});
