import { describe, expect, it } from 'vitest';
import { windowReading } from '../../../src/model/network/windowReading.js';

/** n! and binomials straight from their definitions (small n only). */
const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));
const choose = (n: number, x: number) => factorial(n) / (factorial(x) * factorial(n - x));

/** Σ_N Poisson(ν) · P(X > tN), X | N ~ Binomial(N, r) with r drawn from `share` (a density). */
function bruteForce(
  requests: number,
  threshold: number,
  tail: (n: number, x: number) => number,
  most = 60,
): number {
  let above = 0;
  for (let n = 1; n <= most; n++) {
    const weight = (Math.exp(-requests) * requests ** n) / factorial(n);
    let inner = 0;
    for (let x = 0; x <= n; x++) if (x > threshold * n) inner += tail(n, x);
    above += weight * inner;
  }
  return above;
}

describe('windowReading', () => {
  it('is a Poisson mixture of binomial tails where the share does not scatter', () => {
    for (const [requests, rejection, threshold] of [
      [6, 0.3, 0.5],
      [10, 0.5, 0.5],
      [3, 0.9, 0.25],
    ] as const) {
      const found = windowReading({ requests, rejection, shareVariance: 0, threshold });
      const reference = bruteForce(
        requests,
        threshold,
        (n, x) => choose(n, x) * rejection ** x * (1 - rejection) ** (n - x),
      );
      expect(found.above).toBeCloseTo(reference, 12);
      // A window with no request reads neither way.
      expect(found.above + found.atOrBelow).toBeCloseTo(1 - Math.exp(-requests), 12);
    }
  });

  it('mixes the binomial over a Beta share of the given mean and variance', () => {
    // The Beta law integrated numerically (midpoint rule, 20,000 cells), its own normalisation.
    const requests = 8;
    const rejection = 0.3;
    const shareVariance = 0.02;
    const total = (rejection * (1 - rejection)) / shareVariance - 1;
    const a = rejection * total;
    const b = (1 - rejection) * total;
    const cells = 20_000;
    const density: number[] = [];
    let norm = 0;
    for (let i = 0; i < cells; i++) {
      const r = (i + 0.5) / cells;
      const d = r ** (a - 1) * (1 - r) ** (b - 1);
      density.push(d);
      norm += d;
    }
    const moment = (n: number, x: number) => {
      let sum = 0;
      for (let i = 0; i < cells; i++) {
        const r = (i + 0.5) / cells;
        sum += (density[i] as number) * r ** x * (1 - r) ** (n - x);
      }
      return sum / norm;
    };
    // Windows of more than 40 requests weigh < 1e-16 at ν = 8.
    const reference = bruteForce(requests, 0.5, (n, x) => choose(n, x) * moment(n, x), 40);
    const found = windowReading({ requests, rejection, shareVariance, threshold: 0.5 });
    expect(found.above).toBeCloseTo(reference, 6);
    // A scattering share reads above ½ more often than a fixed one of the same mean.
    const fixed = windowReading({ requests, rejection, shareVariance: 0, threshold: 0.5 });
    expect(found.above).toBeGreaterThan(fixed.above);
  });

  it('reads a share of 0 or 1 for what it is, and stays finite for busy windows', () => {
    expect(
      windowReading({ requests: 5, rejection: 0, shareVariance: 0, threshold: 0.5 }).above,
    ).toBe(0);
    const all = windowReading({ requests: 5, rejection: 1, shareVariance: 0.1, threshold: 0.5 });
    expect(all.above).toBeCloseTo(1 - Math.exp(-5), 14);
    // A thousand requests a window, nearly all failing: (1 − r)^N would underflow from x = 0.
    const busy = windowReading({
      requests: 1000,
      rejection: 0.999,
      shareVariance: 1e-4,
      threshold: 0.5,
    });
    expect(busy.above).toBeGreaterThan(0.999);
    expect(busy.above + busy.atOrBelow).toBeCloseTo(1, 12);
  });

  it('refuses what is not a window', () => {
    const ok = { requests: 5, rejection: 0.2, shareVariance: 0, threshold: 0.5 };
    expect(() => windowReading({ ...ok, requests: -1 })).toThrow(RangeError);
    expect(() => windowReading({ ...ok, rejection: 1.5 })).toThrow(RangeError);
    expect(() => windowReading({ ...ok, shareVariance: -0.1 })).toThrow(RangeError);
    expect(() => windowReading({ ...ok, threshold: Number.NaN })).toThrow(RangeError);
  });
});
