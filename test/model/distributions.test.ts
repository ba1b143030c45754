import { describe, expect, it } from 'vitest';
import {
  deterministicDistribution,
  exponentialDistribution,
  hyperexponentialDistribution,
  lognormalDistribution,
  type ServiceTimeDistribution,
  seededRandom,
  serviceTimeDistribution,
} from '../../src/model/index.js';
import {
  expectClose,
  h2Parameters,
  lognormalParameters,
  lognormalResidualCdf,
  meanAndScv,
  normalPdf,
  simpson,
} from './reference.js';

const DRAWS = 200_000;

function samples(distribution: ServiceTimeDistribution, seed = 1): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: DRAWS }, () => distribution.sample(random));
}

describe('service-time distributions: sampling (200k draws, seededRandom(1))', () => {
  // Mean tolerance: 5 standard errors, 5 √(scv / n) relative. SCV tolerances are looser for the
  // heavy-tailed laws because the variance of the sample variance grows with E[S⁴].
  const cases: [ServiceTimeDistribution, number][] = [
    [exponentialDistribution(0.01), 0.05],
    [exponentialDistribution(3), 0.05],
    [hyperexponentialDistribution(0.01, 4), 0.12],
    [hyperexponentialDistribution(2, 1.5), 0.1],
    [lognormalDistribution(0.01, 1), 0.12],
    [lognormalDistribution(0.01, 0.25), 0.08],
    [lognormalDistribution(0.5, 4), 0.3],
  ];
  for (const [distribution, scvTolerance] of cases) {
    it(`${distribution.kind}(mean ${distribution.mean}, scv ${distribution.scv})`, () => {
      const values = samples(distribution);
      const { mean, scv } = meanAndScv(values);
      const inputs = { kind: distribution.kind, mean: distribution.mean, scv: distribution.scv };
      expectClose(
        mean,
        distribution.mean,
        { rel: 5 * Math.sqrt(distribution.scv / DRAWS) },
        inputs,
      );
      expectClose(scv, distribution.scv, { rel: scvTolerance }, inputs);
      expect(
        values.every((v) => Number.isFinite(v) && v >= 0),
        JSON.stringify(inputs),
      ).toBe(true);
    });
  }

  it('deterministic draws are the mean', () => {
    const d = deterministicDistribution(0.25);
    const random = seededRandom(1);
    for (let i = 0; i < 100; i++) expect(d.sample(random)).toBe(0.25);
    expect(d.scv).toBe(0);
  });

  it('the same seed gives the same draws', () => {
    const d = lognormalDistribution(0.01, 2);
    const a = seededRandom(7);
    const b = seededRandom(7);
    for (let i = 0; i < 100; i++) expect(d.sample(a)).toBe(d.sample(b));
  });
});

describe('service-time distributions: survival and residual laws', () => {
  it('exponential: F̄(x) = e^(−x/mean), F_e = 1 − e^(−x/mean), residual Laplace μ/(μ + θ)', () => {
    const d = exponentialDistribution(0.02);
    expectClose(d.survival(d.mean), Math.exp(-1), { rel: 1e-15 }, { mean: 0.02 });
    for (const x of [1e-9, 1e-4, 0.01, 0.02, 0.1, 1]) {
      expectClose(d.survival(x), Math.exp(-x / 0.02), { rel: 1e-14 }, { x });
      // 1 − e^(−y) loses digits for small y in the reference itself: add 1e-16 absolute.
      expectClose(d.residualCdf(x), 1 - Math.exp(-x / 0.02), { rel: 1e-12, abs: 1e-16 }, { x });
    }
    expect(d.survival(0)).toBe(1);
    expect(d.survival(-1)).toBe(1);
    expect(d.residualCdf(0)).toBe(0);
    expect(d.residualCdf(-1)).toBe(0);
  });

  it('deterministic: F̄ steps at T and F_e(x) = min(x, T)/T', () => {
    const d = deterministicDistribution(0.5);
    expect(d.survival(0.4999)).toBe(1);
    expect(d.survival(0.5)).toBe(0);
    expect(d.survival(d.mean)).toBe(0);
    for (const x of [0, 0.1, 0.25, 0.5, 0.7, 10]) {
      expectClose(d.residualCdf(x), Math.min(x, 0.5) / 0.5, { abs: 1e-16 }, { x });
    }
  });

  it('hyperexponential: balanced-means p₁ = (1 + √((c² − 1)/(c² + 1)))/2 and its moments', () => {
    for (const [mean, scv] of [
      [0.01, 4],
      [1, 1.5],
      [0.007, 10],
      [2, 100],
    ] as const) {
      const d = hyperexponentialDistribution(mean, scv);
      const { p1, p2, rate1, rate2 } = h2Parameters(mean, scv);
      const inputs = { mean, scv };
      // The law itself, pointwise.
      for (const x of [0, 0.1 * mean, mean, 3 * mean, 20 * mean]) {
        const survival = p1 * Math.exp(-rate1 * x) + p2 * Math.exp(-rate2 * x);
        expectClose(d.survival(x), survival, { rel: 1e-13 }, { ...inputs, x });
      }
      // Its moments from the survival function: E[S] = ∫F̄, E[S²] = 2∫x F̄ = (1 + scv) mean².
      const upper = 60 / Math.min(rate1, rate2);
      const grid = (f: (x: number) => number) =>
        simpson(f, 0, mean, 20_000) + simpson(f, mean, upper, 200_000);
      expectClose(grid(d.survival), mean, { rel: 1e-7 }, inputs);
      expectClose(
        grid((x) => 2 * x * d.survival(x)),
        (1 + scv) * mean * mean,
        { rel: 1e-6 },
        inputs,
      );
      // The closed form of the moments of the fitted H2, as a check on the p₁ formula.
      const second = 2 * (p1 / rate1 ** 2 + p2 / rate2 ** 2);
      expectClose(second / mean ** 2 - 1, scv, { rel: 1e-12 }, inputs);
      expectClose(p1 / rate1, p2 / rate2, { rel: 1e-12 }, inputs);
      expect(d.survival(d.mean), JSON.stringify(inputs)).toBeLessThan(1);
      expect(d.survival(d.mean), JSON.stringify(inputs)).toBeGreaterThan(0);
    }
  });

  it('lognormal: F̄ against a normal-density integral', () => {
    for (const [mean, scv] of [
      [0.01, 1],
      [0.01, 4],
      [1, 0.25],
      [0.2, 20],
    ] as const) {
      const d = lognormalDistribution(mean, scv);
      const { sigma, mu } = lognormalParameters(mean, scv);
      for (const z of [-6, -3, -1, 0, 0.5, 1, 2, 4, 7]) {
        const x = Math.exp(mu + sigma * z);
        // P(Z > z) = ∫_z^(max(z, 0)+12) φ (the rest is below 1e-32). Simpson's relative error
        // is about (h·max(1, z))⁴/180; with h ≤ 1.8e-4 that is < 1e-14.
        const reference = simpson(normalPdf, z, Math.max(z, 0) + 12, 100_000);
        expectClose(d.survival(x), reference, { rel: 1e-11 }, { mean, scv, z, x });
      }
      // Median e^μ: survival 1/2; the mean lies above the median.
      expectClose(d.survival(Math.exp(mu)), 0.5, { abs: 1e-15 }, { mean, scv });
      expect(d.survival(d.mean), JSON.stringify({ mean, scv })).toBeLessThan(0.5);
    }
  });

  it('lognormal: F_e against E[min(S, x)]/E[S] and against ∫₀ˣ F̄ / E[S]', () => {
    for (const [mean, scv] of [
      [0.01, 1],
      [0.01, 4],
      [1, 0.25],
    ] as const) {
      const d = lognormalDistribution(mean, scv);
      for (const factor of [0.01, 0.1, 0.5, 1, 2, 5, 50]) {
        const x = factor * mean;
        const inputs = { mean, scv, x };
        // (a) z-space expectation, independent of erfc: 1e-10 absolute.
        expectClose(d.residualCdf(x), lognormalResidualCdf(mean, scv, x), { abs: 1e-10 }, inputs);
        // (b) Simpson on the survival function over [0, x], 100k panels: the integrand is smooth
        // and bounded by 1, so 1e-9 absolute.
        const direct = simpson((u) => d.survival(u), 0, x, 100_000) / mean;
        expectClose(d.residualCdf(x), direct, { abs: 1e-9 }, inputs);
      }
      expectClose(d.residualCdf(1e6 * mean), 1, { abs: 1e-12 }, { mean, scv });
    }
  });

  it('residualCdf tends to 1 far out and is non-decreasing', () => {
    const laws = [
      exponentialDistribution(0.01),
      deterministicDistribution(0.01),
      hyperexponentialDistribution(0.01, 10),
      lognormalDistribution(0.01, 4),
    ];
    for (const d of laws) {
      expectClose(d.residualCdf(1e300), 1, { abs: 1e-15 }, { kind: d.kind, x: 1e300 });
      expectClose(d.residualCdf(1e4), 1, { abs: 1e-12 }, { kind: d.kind, x: 1e4 });
      let previous = 0;
      for (let i = 0; i <= 400; i++) {
        const x = 1e-6 * 1.05 ** i;
        const value = d.residualCdf(x);
        expect(value, JSON.stringify({ kind: d.kind, x })).toBeGreaterThanOrEqual(previous);
        expect(value, JSON.stringify({ kind: d.kind, x })).toBeLessThanOrEqual(1);
        previous = value;
      }
    }
    for (const d of laws.slice(0, 3)) {
      expect(d.residualCdf(Number.POSITIVE_INFINITY), d.kind).toBe(1);
      expect(d.survival(Number.POSITIVE_INFINITY), d.kind).toBe(0);
    }
  });

  it('lognormal residualCdf(Infinity) is 1, not NaN', () => {
    // x · F̄(x) = Infinity · 0 = NaN in the closed form, and Math.min(1, NaN) is NaN.
    expect(lognormalDistribution(0.01, 4).residualCdf(Number.POSITIVE_INFINITY)).toBe(1);
  });

  it('residualLaplace equals ∫ e^(−θx) F̄(x) dx / E[S] where it exists', () => {
    const laws = [
      exponentialDistribution(0.01),
      deterministicDistribution(0.01),
      hyperexponentialDistribution(0.01, 4),
      hyperexponentialDistribution(0.5, 30),
    ];
    for (const d of laws) {
      expect(d.residualLaplace, d.kind).toBeDefined();
      const laplace = d.residualLaplace?.bind(d);
      if (laplace === undefined) continue;
      expect(laplace(0), d.kind).toBe(1);
      for (const theta of [0.1, 1, 10, 100, 1e4]) {
        // The integrand decays at least like e^(−θx)·F̄(x); cut at 60 e-folds of the slower.
        const slowestRate = d.kind === 'hyperexponential' ? 1 / (d.mean * (1 + d.scv)) : 1 / d.mean;
        const upper = d.kind === 'deterministic' ? d.mean : 60 / (theta + slowestRate / 2);
        const integrand = (x: number) => (Math.exp(-theta * x) * d.survival(x)) / d.mean;
        const reference =
          d.kind === 'deterministic'
            ? simpson(integrand, 0, d.mean * (1 - 1e-15), 20_000)
            : simpson(integrand, 0, upper, 200_000);
        expectClose(laplace(theta), reference, { rel: 1e-8 }, { kind: d.kind, scv: d.scv, theta });
      }
    }
    expect(lognormalDistribution(0.01, 4).residualLaplace).toBeUndefined();
  });
});

describe('serviceTimeDistribution and validation', () => {
  it('maps a description and a capacity to the law with mean 1/capacity', () => {
    expect(serviceTimeDistribution({ dist: 'exponential' }, 143).kind).toBe('exponential');
    expect(serviceTimeDistribution({ dist: 'exponential' }, 143).mean).toBe(1 / 143);
    expect(serviceTimeDistribution({ dist: 'deterministic' }, 4).mean).toBe(0.25);
    const h = serviceTimeDistribution({ dist: 'hyperexponential', scv: 10 }, 143);
    expect([h.kind, h.mean, h.scv]).toEqual(['hyperexponential', 1 / 143, 10]);
    const l = serviceTimeDistribution({ dist: 'lognormal', scv: 2 }, 10);
    expect([l.kind, l.mean, l.scv]).toEqual(['lognormal', 0.1, 2]);
  });

  it('throws RangeError naming the bad value', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => exponentialDistribution(bad), String(bad)).toThrow(RangeError);
      expect(() => deterministicDistribution(bad), String(bad)).toThrow(String(bad));
      expect(() => serviceTimeDistribution({ dist: 'exponential' }, bad)).toThrow(RangeError);
    }
    for (const bad of [1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => hyperexponentialDistribution(1, bad), String(bad)).toThrow(RangeError);
      expect(() => hyperexponentialDistribution(1, bad), String(bad)).toThrow(String(bad));
    }
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => lognormalDistribution(1, bad), String(bad)).toThrow(RangeError);
    }
  });
});
