import { describe, expect, it } from 'vitest';
import {
  birthDeathFluctuation,
  windowAverageVariance,
} from '../../../src/model/numeric/birthDeathFluctuation.js';
import { seededRandom } from '../../../src/model/random.js';
import { gauss } from './gauss.js';

/**
 * σ² = 2 ⟨f̃, g⟩_π with Q g = −f̃ solved densely (one row replaced by π g = 0): the Poisson
 * equation of the whole generator, not the level-by-level sum under test.
 */
function denseAsymptoticVariance(births: number[], deaths: number[], f: number[]): number {
  const n = f.length;
  // π from detailed balance.
  const pi = [1];
  for (let i = 1; i < n; i++)
    pi.push(((pi[i - 1] as number) * (births[i - 1] as number)) / (deaths[i] as number));
  const total = pi.reduce((a, b) => a + b, 0);
  const p = pi.map((x) => x / total);
  const mean = f.reduce((a, x, i) => a + x * (p[i] as number), 0);
  const q: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    const row = q[i] as number[];
    if (i < n - 1) {
      row[i + 1] = births[i] as number;
      row[i] = (row[i] as number) - (births[i] as number);
    }
    if (i > 0) {
      row[i - 1] = deaths[i] as number;
      row[i] = (row[i] as number) - (deaths[i] as number);
    }
  }
  const rhs = f.map((x) => -(x - mean));
  q[0] = p.slice();
  rhs[0] = 0;
  const g = gauss(q, rhs);
  return 2 * f.reduce((a, x, i) => a + (p[i] as number) * (x - mean) * (g[i] as number), 0);
}

describe('birthDeathFluctuation', () => {
  it('gives the two-level walk its closed forms', () => {
    // 0 → 1 at a, 1 → 0 at b, f = level: V = ab/(a+b)², σ² = 2ab/(a+b)³.
    const a = 0.7;
    const b = 2.3;
    const found = birthDeathFluctuation([b, a], [a, 0], [0, 1]);
    expect(found.mean).toBeCloseTo(a / (a + b), 14);
    expect(found.variance).toBeCloseTo((a * b) / (a + b) ** 2, 14);
    expect(found.asymptoticVariance).toBeCloseTo((2 * a * b) / (a + b) ** 3, 14);
  });

  it('matches the dense Poisson equation on random walks', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 20; trial++) {
      const n = 2 + Math.floor(random() * 30);
      const births = Array.from({ length: n }, (_, i) => (i < n - 1 ? 0.1 + 3 * random() : 0));
      const deaths = Array.from({ length: n }, (_, i) => (i > 0 ? 0.1 + 3 * random() : 0));
      const f = Array.from({ length: n }, () => 10 * random() - 5);
      const pi = [1];
      for (let i = 1; i < n; i++)
        pi.push(((pi[i - 1] as number) * (births[i - 1] as number)) / (deaths[i] as number));
      const found = birthDeathFluctuation(pi, births, f).asymptoticVariance;
      const reference = denseAsymptoticVariance(births, deaths, f);
      expect(Math.abs(found - reference)).toBeLessThan(1e-9 * Math.max(1, reference));
    }
  });

  it("gives the M/M/1 queue length's asymptotic variance 2ρ(1 + ρ)/(μ(1 − ρ)⁴)", () => {
    // Whitt (1989), the M/M/1 queue length's time average; truncated far out in the tail.
    for (const rho of [0.3, 0.6, 0.8]) {
      const mu = 2;
      const levels = 800;
      const pi = Array.from({ length: levels }, (_, n) => (1 - rho) * rho ** n);
      const births = Array.from({ length: levels }, (_, n) => (n < levels - 1 ? rho * mu : 0));
      const f = Array.from({ length: levels }, (_, n) => n);
      const found = birthDeathFluctuation(pi, births, f);
      expect(found.mean).toBeCloseTo(rho / (1 - rho), 9);
      expect(
        found.asymptoticVariance / ((2 * rho * (1 + rho)) / (mu * (1 - rho) ** 4)),
      ).toBeCloseTo(1, 9);
    }
  });

  it('stays finite where the law has all but no mass (the tail summed from its own end)', () => {
    // A storm's law read on its side: its mass far above, levels below holding ~1e-300.
    const levels = 200;
    const pi = Array.from({ length: levels }, (_, n) => Math.exp(-((n - 150) ** 2) / 20));
    const births = new Array<number>(levels).fill(1);
    births[levels - 1] = 0;
    const f = Array.from({ length: levels }, (_, n) => n / levels);
    const found = birthDeathFluctuation(pi, births, f);
    // Only the well's levels count: the same walk cut to 120 … 180.
    const cut = birthDeathFluctuation(
      pi.slice(120, 181),
      births.slice(120, 181),
      f.slice(120, 181),
    );
    expect(Number.isFinite(found.asymptoticVariance)).toBe(true);
    expect(found.asymptoticVariance / cut.asymptoticVariance).toBeCloseTo(1, 6);
  });

  it('refuses arrays that do not match and a law with no mass', () => {
    expect(() => birthDeathFluctuation([1, 1], [1], [0, 1])).toThrow(RangeError);
    expect(() => birthDeathFluctuation([], [], [])).toThrow(RangeError);
    expect(() => birthDeathFluctuation([0, 0], [1, 0], [0, 1])).toThrow(RangeError);
  });
});

describe('windowAverageVariance', () => {
  it("is the two-level walk's exact variance of a window's average", () => {
    // Var((1/W)∫f) = (2V/W²) ∫_0^W (W − t) e^(−t(a+b)) dt for the telegraph process.
    const a = 0.4;
    const b = 1.1;
    const fluctuation = birthDeathFluctuation([b, a], [a, 0], [0, 1]);
    for (const seconds of [0.01, 1, 5, 100]) {
      const k = a + b;
      const V = fluctuation.variance;
      const exact =
        ((2 * V) / seconds ** 2) * (seconds / k - (1 - Math.exp(-k * seconds)) / (k * k));
      expect(windowAverageVariance(fluctuation, seconds) / exact).toBeCloseTo(1, 9);
    }
  });

  it('tends to V for short windows and σ²/W for long ones', () => {
    const fluctuation = { variance: 0.3, asymptoticVariance: 0.6 }; // τ = 1
    expect(windowAverageVariance(fluctuation, 1e-7)).toBeCloseTo(0.3, 6);
    expect(windowAverageVariance(fluctuation, 1e6) / (0.6 / 1e6)).toBeCloseTo(1, 5);
    expect(windowAverageVariance({ variance: 0, asymptoticVariance: 0 }, 5)).toBe(0);
    expect(() => windowAverageVariance(fluctuation, 0)).toThrow(RangeError);
  });
});
