import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DelayLaw,
  deterministicDistribution,
  exponentialDistribution,
  hyperexponentialDistribution,
  lognormalDistribution,
  residualAlpha,
  retryDelayLaw,
  type ServiceTimeDistribution,
} from '../../src/model/index.js';
import {
  expectClose,
  h2Parameters,
  lognormalExpectation,
  lognormalResidualCdf,
} from './reference.js';

const rate = fc.double({ min: 1, max: 1000, noNaN: true });
const delayMs = fc.double({ min: 0, max: 5000, noNaN: true });

/** Midpoint rule of f over [a, b] with n points: the "average over a fine grid". */
function gridAverage(f: (x: number) => number, a: number, b: number, n = 100_000): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += f(a + ((i + 0.5) * (b - a)) / n);
  return sum / n;
}

describe('residualAlpha: closed forms', () => {
  it('exponential service (rate μ), fixed delay d ms ⇒ 1 − e^(−μ d)', () => {
    fc.assert(
      fc.property(rate, delayMs, (mu, d) => {
        const alpha = residualAlpha(exponentialDistribution(1 / mu), { kind: 'fixed', ms: d });
        // 1 − e^(−y) cancels for small y; 1e-15 absolute covers the reference's own rounding.
        expectClose(alpha, 1 - Math.exp((-mu * d) / 1000), { rel: 1e-12, abs: 1e-15 }, { mu, d });
      }),
      { numRuns: 300 },
    );
    expect(residualAlpha(exponentialDistribution(0.01), { kind: 'fixed', ms: 0 })).toBe(0);
  });

  it('exponential service (rate μ), exponential delay of mean δ ⇒ μδ/(1 + μδ)', () => {
    // P(R ≤ D) for independent R ~ Exp(μ), D ~ Exp(1/δ) is μ/(μ + 1/δ).
    fc.assert(
      fc.property(rate, fc.double({ min: 1e-3, max: 5000, noNaN: true }), (mu, meanMs) => {
        const alpha = residualAlpha(exponentialDistribution(1 / mu), {
          kind: 'exponential',
          meanMs,
        });
        const md = (mu * meanMs) / 1000;
        expectClose(alpha, md / (1 + md), { rel: 1e-13 }, { mu, meanMs });
      }),
      { numRuns: 300 },
    );
    expect(residualAlpha(exponentialDistribution(0.01), { kind: 'exponential', meanMs: 0 })).toBe(
      0,
    );
  });

  it('deterministic service T, fixed delay d ⇒ min(d, T)/T', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-4, max: 10, noNaN: true }), delayMs, (T, d) => {
        const alpha = residualAlpha(deterministicDistribution(T), { kind: 'fixed', ms: d });
        expectClose(alpha, Math.min(d / 1000, T) / T, { rel: 1e-14 }, { T, d });
      }),
      { numRuns: 300 },
    );
  });

  it('deterministic service T, exponential delay mean δ ⇒ (δ/T)(1 − e^(−T/δ))', () => {
    // E[e^(−R/δ)] with R ~ U(0, T).
    for (const [T, meanMs] of [
      [0.01, 5],
      [0.01, 100],
      [1, 1],
    ] as const) {
      const delta = meanMs / 1000;
      const expected = (delta / T) * (1 - Math.exp(-T / delta));
      const alpha = residualAlpha(deterministicDistribution(T), { kind: 'exponential', meanMs });
      expectClose(alpha, expected, { rel: 1e-13 }, { T, meanMs });
    }
  });

  it('hyperexponential (balanced means), fixed delay ⇒ Σ pᵢ (1 − e^(−μᵢ d))/μᵢ / mean', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1, noNaN: true }),
        fc.double({ min: 1.01, max: 100, noNaN: true }),
        delayMs,
        (mean, scv, d) => {
          const { p1, p2, rate1, rate2 } = h2Parameters(mean, scv);
          const x = d / 1000;
          const expected =
            ((p1 * (1 - Math.exp(-rate1 * x))) / rate1 +
              (p2 * (1 - Math.exp(-rate2 * x))) / rate2) /
            mean;
          const alpha = residualAlpha(hyperexponentialDistribution(mean, scv), {
            kind: 'fixed',
            ms: d,
          });
          expectClose(alpha, expected, { rel: 1e-12, abs: 1e-15 }, { mean, scv, d });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hyperexponential, exponential delay ⇒ ½ Σ μᵢ/(μᵢ + 1/δ)', () => {
    for (const [mean, scv, meanMs] of [
      [0.01, 4, 5],
      [0.01, 10, 100],
      [0.5, 2, 20],
    ] as const) {
      const { rate1, rate2 } = h2Parameters(mean, scv);
      const theta = 1000 / meanMs;
      const expected = 0.5 * (rate1 / (rate1 + theta) + rate2 / (rate2 + theta));
      const alpha = residualAlpha(hyperexponentialDistribution(mean, scv), {
        kind: 'exponential',
        meanMs,
      });
      expectClose(alpha, expected, { rel: 1e-13 }, { mean, scv, meanMs });
    }
  });
});

describe('residualAlpha: numerical references', () => {
  it('lognormal, fixed delay ⇒ F_e(d) by a z-space integral of E[min(S, d)]', () => {
    for (const [mean, scv, d] of [
      [0.01, 1, 1],
      [0.01, 4, 10],
      [0.01, 4, 100],
      [0.1, 0.5, 50],
    ] as const) {
      const alpha = residualAlpha(lognormalDistribution(mean, scv), { kind: 'fixed', ms: d });
      expectClose(
        alpha,
        lognormalResidualCdf(mean, scv, d / 1000),
        { abs: 1e-10 },
        {
          mean,
          scv,
          d,
        },
      );
    }
  });

  it('lognormal, exponential delay (no closed form) ⇒ (1 − E[e^(−S/δ)]) / (E[S]/δ)', () => {
    // α = E[e^(−R/δ)] = ∫ e^(−x/δ) F̄(x) dx / E[S] = (δ / E[S]) (1 − E[e^(−S/δ)]) by parts; the
    // expectation is a z-space integral independent of the code.
    for (const [mean, scv, meanMs] of [
      [0.01, 4, 5],
      [0.01, 1, 100],
    ] as const) {
      const delta = meanMs / 1000;
      const laplaceOfS = lognormalExpectation(mean, scv, (s) => Math.exp(-s / delta));
      const expected = (delta / mean) * (1 - laplaceOfS);
      const alpha = residualAlpha(lognormalDistribution(mean, scv), {
        kind: 'exponential',
        meanMs,
      });
      expectClose(alpha, expected, { abs: 1e-9 }, { mean, scv, meanMs });
    }
  });

  it('uniform delay law ⇒ the average of F_e over a fine grid', () => {
    // Midpoint rule with 1e5 points: error ≤ (b − a)² max|F_e''| / (24 n²), far below 1e-9 here
    // (and the deterministic law's kink costs at most one cell: (b − a)/n · 1/T ≈ 1e-6 · …).
    const laws: ServiceTimeDistribution[] = [
      exponentialDistribution(0.01),
      deterministicDistribution(0.01),
      hyperexponentialDistribution(0.01, 10),
      lognormalDistribution(0.01, 4),
    ];
    const delays: [number, number][] = [
      [0, 50],
      [5, 15],
      [25, 50],
      [0, 2000],
    ];
    for (const law of laws) {
      for (const [minMs, maxMs] of delays) {
        const alpha = residualAlpha(law, { kind: 'uniform', minMs, maxMs });
        const expected = gridAverage((x) => law.residualCdf(x), minMs / 1000, maxMs / 1000);
        const tolerance = law.kind === 'deterministic' ? 1e-7 : 1e-9;
        expectClose(alpha, expected, { abs: tolerance }, { kind: law.kind, minMs, maxMs });
      }
    }
    // Deterministic T = 10 ms over U(0, 50 ms): (1/50)(∫₀¹⁰ x/10 dx + 40) = (5 + 40)/50 = 0.9.
    expectClose(
      residualAlpha(deterministicDistribution(0.01), { kind: 'uniform', minMs: 0, maxMs: 50 }),
      0.9,
      { abs: 1e-12 },
      { T: 0.01, minMs: 0, maxMs: 50 },
    );
    // Exponential rate μ over U(a, b): 1 − (e^(−μa) − e^(−μb)) / (μ (b − a)).
    const mu = 100;
    const [a, b] = [0.005, 0.02];
    expectClose(
      residualAlpha(exponentialDistribution(1 / mu), { kind: 'uniform', minMs: 5, maxMs: 20 }),
      1 - (Math.exp(-mu * a) - Math.exp(-mu * b)) / (mu * (b - a)),
      { abs: 1e-12 },
      { mu, a, b },
    );
  });

  it('a degenerate uniform law is the fixed delay', () => {
    const law = hyperexponentialDistribution(0.01, 4);
    expect(residualAlpha(law, { kind: 'uniform', minMs: 7, maxMs: 7 })).toBe(
      residualAlpha(law, { kind: 'fixed', ms: 7 }),
    );
  });

  it('α lies in [0, 1] and rises with the delay', () => {
    const laws = [
      exponentialDistribution(0.01),
      deterministicDistribution(0.01),
      hyperexponentialDistribution(0.01, 10),
      lognormalDistribution(0.01, 4),
    ];
    for (const law of laws) {
      let previous = 0;
      for (const ms of [0, 0.1, 1, 5, 10, 50, 100, 1000, 1e5]) {
        const delay: DelayLaw = { kind: 'fixed', ms };
        const alpha = residualAlpha(law, delay);
        const message = JSON.stringify({ kind: law.kind, ms, alpha });
        expect(alpha, message).toBeGreaterThanOrEqual(previous);
        expect(alpha, message).toBeLessThanOrEqual(1);
        previous = alpha;
      }
      // 1e4 mean service times: 1 − F_e is below 1e-10 for all four (lognormal scv 4: ~3e-12).
      expectClose(previous, 1, { abs: 1e-10 }, { kind: law.kind, ms: 1e5 });
    }
  });

  it('composes with retryDelayLaw (the default 100 ms random delay, exponential service)', () => {
    const law = retryDelayLaw({ kind: 'random', meanMs: 100 }, 1);
    const alpha = residualAlpha(exponentialDistribution(1 / 143), law);
    expectClose(alpha, 14.3 / 15.3, { rel: 1e-13 }, { mu: 143, meanMs: 100 });
  });
});
