import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fluidPhi,
  MODEL_NAMES,
  mixedPhi,
  mm1mBlocking,
  mm1mMeanInSystem,
  mm1mPhi,
  phiFor,
} from '../../src/model/index.js';
import {
  expectClose,
  fluidReference,
  meanInSystemReference,
  mixedReference,
  mm1mReference,
} from './reference.js';

/** ρ spread over (0, 3], denser near 0 and around 1 than a plain uniform would be. */
const rhoUpTo3 = fc.oneof(
  fc.double({ min: 1e-6, max: 3, noNaN: true }),
  fc.double({ min: 0.9, max: 1.1, noNaN: true }),
  fc.double({ min: Math.log(1e-6), max: Math.log(3), noNaN: true }).map(Math.exp),
);

/** ρ log-uniform over [1e-300, 1e300]. */
const rhoAnyScale = fc
  .double({ min: Math.log(1e-300), max: Math.log(1e300), noNaN: true })
  .map((x) => Math.exp(x));

describe('mm1m blocking P_m(ρ)', () => {
  // Tolerance: the reference sums ≤ 51 positive terms with a compensated sum and ρ^j by pow
  // (≤ 1 ulp each), the code uses expm1 ratios; both are within a few ulps, so 1e-13 relative,
  // plus the condition number of e^(m ln ρ): the rounding of ln ρ is amplified by |m ln ρ|
  // (e.g. ρ = 1.7e-5, m = 50: P ≈ 2e-239 to 1e-13 relative), so add 4ε |m ln ρ|.
  const tolerance = (rho: number, m: number) => ({
    rel: 1e-13 + (rho > 0 ? 4 * Number.EPSILON * Math.abs(m * Math.log(rho)) : 0),
  });
  for (const m of [1, 5, 50]) {
    it(`equals ρ^m / Σ_{j≤m} ρ^j for ρ in (0, 3], m = ${m}`, () => {
      fc.assert(
        fc.property(rhoUpTo3, (rho) => {
          expectClose(mm1mBlocking(rho, m), mm1mReference(rho, m), tolerance(rho, m), { rho, m });
        }),
        { numRuns: 400 },
      );
    });
  }

  it('equals the textbook (1 − ρ) ρ^m / (1 − ρ^(m+1)) away from ρ = 1', () => {
    // Away from ρ = 1 the textbook form has no cancellation: |1 − ρ| ≥ 0.05 keeps it to ~1e-14.
    for (const m of [1, 2, 5, 10, 50]) {
      for (const rho of [0.01, 0.1, 0.5, 0.9, 0.95, 1.05, 1.2, 2, 3]) {
        const textbook = ((1 - rho) * rho ** m) / (1 - rho ** (m + 1));
        expectClose(mm1mBlocking(rho, m), textbook, { rel: 1e-13 }, { rho, m });
      }
    }
  });

  it('P(2/3, 5) = 32/665 to 1e-15', () => {
    // (1/3)(2/3)^5 / (1 − (2/3)^6) = (32/729) / (665/729) = 32/665.
    expect(Math.abs(mm1mBlocking(2 / 3, 5) - 32 / 665)).toBeLessThanOrEqual(1e-15);
    expect(Math.abs(mm1mBlocking(2 / 3, 5) - 0.0481203007518797)).toBeLessThanOrEqual(1e-15);
    expect(Math.abs(phiFor('mm1m', 5)(2 / 3) - 32 / 665)).toBeLessThanOrEqual(1e-15);
  });

  it('P(1, m) = 1/(m + 1) exactly', () => {
    for (const m of [1, 2, 5, 50, 1000, 1_000_000]) {
      expect(mm1mBlocking(1, m), JSON.stringify({ m })).toBe(1 / (m + 1));
    }
  });

  it('is continuous across ρ = 1 (ρ = 1 ± 1e-12 within 1e-12 of 1/(m+1))', () => {
    // P'(1) = m / (2(m + 1)) < 1/2, so a 1e-12 step moves P by less than 5e-13.
    for (const m of [1, 2, 5, 50, 1000, 1_000_000]) {
      for (const rho of [1 - 1e-12, 1 + 1e-12, 1 - Number.EPSILON / 2, 1 + Number.EPSILON]) {
        expectClose(mm1mBlocking(rho, m), 1 / (m + 1), { abs: 1e-12 }, { rho, m });
      }
    }
    // Slope of the chord through 1 ± h against P'(1) = m / (2(m + 1)), from both sides.
    for (const m of [1, 5, 50]) {
      const h = 1e-6;
      const slope = (mm1mBlocking(1 + h, m) - mm1mBlocking(1 - h, m)) / (2 * h);
      expectClose(slope, m / (2 * (m + 1)), { rel: 1e-6 }, { m, h });
    }
  });

  it('is finite, in [0, 1] and never NaN for ρ up to 1e300 and m up to 1e6', () => {
    fc.assert(
      fc.property(rhoAnyScale, fc.integer({ min: 1, max: 1_000_000 }), (rho, m) => {
        const p = mm1mBlocking(rho, m);
        const message = JSON.stringify({ rho, m, p });
        expect(Number.isFinite(p), message).toBe(true);
        expect(p, message).toBeGreaterThanOrEqual(0);
        expect(p, message).toBeLessThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
    for (const m of [1, 1_000_000]) {
      for (const rho of [Number.MIN_VALUE, 1e-300, 1e300, Number.MAX_VALUE]) {
        const p = mm1mBlocking(rho, m);
        expect(Number.isFinite(p), JSON.stringify({ rho, m, p })).toBe(true);
      }
    }
  });

  it('tends to 1 − 1/ρ for ρ > 1 and to 0 for ρ < 1 as m grows', () => {
    // For ρ > 1: P = (1 − 1/ρ)/(1 − ρ^(−(m+1))), and ρ^(−(m+1)) underflows for m = 1e6, ρ ≥ 1.001.
    // Reference (ρ − 1)/ρ: ρ − 1 is exact for ρ ≤ 2, so it is correctly rounded to ~1 ulp; the
    // code goes through ln and expm1, hence 2e-15 relative.
    for (const rho of [1.001, 1.5, 10, 1e10, 1e300]) {
      expectClose(mm1mBlocking(rho, 1_000_000), (rho - 1) / rho, { rel: 2e-15 }, { rho });
    }
    for (const rho of [1e-300, 0.5, 0.999]) {
      expect(mm1mBlocking(rho, 1_000_000), JSON.stringify({ rho })).toBe(0);
    }
  });

  it('has no step at 15/16 and 17/16, where the powers hand over to the logs', () => {
    // Neighbouring doubles either side of each switch differ by the law's own slope and a few
    // ulps of rounding (either formula's), not by a jump between formulas; 1e-9 apart either side
    // of it the law rises.
    const ulp = (x: number) => x * Number.EPSILON;
    for (const edge of [15 / 16, 17 / 16]) {
      const points = [edge - 2 * ulp(edge), edge - ulp(edge), edge, edge + ulp(edge)];
      for (const m of [...Array.from({ length: 300 }, (_, i) => i + 1), 1000, 65_536, 1_000_000]) {
        const where = JSON.stringify({ edge, m });
        for (let i = 1; i < points.length; i++) {
          const lo = mm1mBlocking(points[i - 1] as number, m);
          const hi = mm1mBlocking(points[i] as number, m);
          // (Where P underflows, as at m = 65,536 below saturation, both are 0 or subnormal.)
          expect(Math.abs(hi - lo), where).toBeLessThanOrEqual(
            (m + 20) * 2 * Number.EPSILON * hi + 1e-300,
          );
        }
        const below = mm1mBlocking(edge - 1e-9, m);
        const above = mm1mBlocking(edge + 1e-9, m);
        if (below > 0) expect(below, where).toBeLessThan(above);
      }
    }
  });

  it('is non-decreasing in ρ', () => {
    fc.assert(
      fc.property(rhoAnyScale, rhoAnyScale, fc.integer({ min: 1, max: 1_000_000 }), (a, b, m) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(mm1mBlocking(lo, m), JSON.stringify({ lo, hi, m })).toBeLessThanOrEqual(
          mm1mBlocking(hi, m),
        );
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(rhoUpTo3, rhoUpTo3, fc.integer({ min: 1, max: 200 }), (a, b, m) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(mm1mBlocking(lo, m), JSON.stringify({ lo, hi, m })).toBeLessThanOrEqual(
          mm1mBlocking(hi, m),
        );
      }),
      { numRuns: 2000 },
    );
    // Neighbouring doubles around the branch point ρ = 1.
    for (const m of [1, 5, 50, 1_000_000]) {
      const around = [1 - 2 * Number.EPSILON, 1 - Number.EPSILON / 2, 1, 1 + Number.EPSILON];
      const values = around.map((rho) => mm1mBlocking(rho, m));
      for (let i = 1; i < values.length; i++) {
        expect(values[i - 1], JSON.stringify({ m, around, values })).toBeLessThanOrEqual(
          values[i] as number,
        );
      }
    }
  });

  it('mm1mPhi and phiFor check m and carry the model name', () => {
    expect(mm1mPhi(5).model).toBe('mm1m');
    expect(mm1mPhi(5)(0.5)).toBe(mm1mBlocking(0.5, 5));
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => mm1mPhi(bad), String(bad)).toThrow(RangeError);
      expect(() => mixedPhi(bad), String(bad)).toThrow(RangeError);
      expect(() => phiFor('mm1m', bad), String(bad)).toThrow(String(bad));
    }
    expect(() => phiFor('nope' as never, 5)).toThrow(TypeError);
    expect(() => phiFor('nope' as never, 5)).toThrow('"nope"');
    expect(MODEL_NAMES.map((name) => phiFor(name, 5).model)).toEqual(['fluid', 'mm1m', 'mixed']);
  });
});

describe('mm1mMeanInSystem L(ρ, m)', () => {
  it('L(2/3, 5) = 1.42255639097744 (= 946/665)', () => {
    // Σ j ρ^j / Σ ρ^j with ρ = 2/3, m = 5: (Σ j 2^j 3^(5−j)) / (Σ 2^j 3^(5−j)) = 946/665.
    expect(Math.abs(mm1mMeanInSystem(2 / 3, 5) - 1.42255639097744)).toBeLessThanOrEqual(1e-14);
    expect(Math.abs(mm1mMeanInSystem(2 / 3, 5) - 946 / 665)).toBeLessThanOrEqual(1e-14);
  });

  it('L(1, m) = m/2 and L(0, m) = 0', () => {
    for (const m of [1, 5, 50, 1_000_000]) {
      expect(mm1mMeanInSystem(1, m)).toBe(m / 2);
      expect(mm1mMeanInSystem(0, m)).toBe(0);
    }
  });

  for (const m of [1, 5, 50]) {
    it(`equals Σ j ρ^j / Σ ρ^j for ρ in (0, 3] away from 1, m = ${m}`, () => {
      // |ln ρ| ≥ 1e-3 keeps the closed form's cancellation (ρ/(1 − ρ) against the second term)
      // below ~1e-12 relative; closer to 1 see the next test.
      fc.assert(
        fc.property(
          rhoUpTo3.filter((rho) => Math.abs(Math.log(rho)) >= 1e-3),
          (rho) => {
            expectClose(
              mm1mMeanInSystem(rho, m),
              meanInSystemReference(rho, m),
              { rel: 1e-11, abs: 1e-300 },
              { rho, m },
            );
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('stays within 5e-7 relative of the Taylor series close to ρ = 1 for small m', () => {
    // The closed form subtracts two terms of size 1/|ln ρ|: with |ln ρ| ~ 1e-9 that costs ~8
    // digits (e.g. m = 5, ρ = e^1.1e-9 gives 2.50000011920929 for 2.5000000032). Stated bound:
    // 5e-7 relative (≈ 3ε/|ln ρ|), what the current code meets for m ≤ 50; see the known-bug case below.
    for (const m of [1, 5, 50]) {
      for (const x of [-1e-5, -1e-7, -2e-9, -1.1e-9, -5e-10, 5e-10, 1.1e-9, 2e-9, 1e-7, 1e-5]) {
        const rho = Math.exp(x);
        // Second-order Taylor series at ρ = 1 in x = ln ρ: L = m/2 + m(m+2)/12 · x + O(x³)
        // (the O(x²) term vanishes by symmetry of the law of N on {0..m}).
        const taylor = m / 2 + ((m * (m + 2)) / 12) * x;
        expectClose(mm1mMeanInSystem(rho, m), taylor, { rel: 5e-7 }, { rho, x, m });
      }
    }
  });

  it('L(ρ, m) loses 7 digits to cancellation just beside ρ = 1', () => {
    // m = 1: L = ρ/(1 + ρ) exactly. ρ = 0.999999998 (ln ρ ≈ −2e-9, just outside the m/2
    // cut-off) gives 0.5000000596 for 0.4999999995: 1.2e-7 relative. Bound asked: 1e-10.
    const rho = 0.999999998;
    expectClose(mm1mMeanInSystem(rho, 1), rho / (1 + rho), { rel: 1e-10 }, { rho, m: 1 });
  });

  it('L(ρ, m) for large m just beside ρ = 1 returns m/2 (|ln ρ| < 1e-9 cut-off)', () => {
    // True value by the Taylor series at ρ = 1: m/2 + m(m+2)/12 · ln ρ = 500041.67 for m = 1e6,
    // ln ρ = 5e-10 (the next term is O(m⁴ x³) ~ 1e-4). The code returns exactly 500000, a
    // relative error of 8.3e-5, and jumps from there to 500091.7 at ln ρ = 1.1e-9.
    const m = 1_000_000;
    const x = 5e-10;
    const taylor = m / 2 + ((m * (m + 2)) / 12) * x;
    expectClose(mm1mMeanInSystem(Math.exp(x), m), taylor, { rel: 1e-9 }, { rho: Math.exp(x), m });
  });

  it('is finite for ρ up to 1e300 and m up to 1e6, and tends to m for large ρ', () => {
    fc.assert(
      fc.property(rhoAnyScale, fc.integer({ min: 1, max: 1_000_000 }), (rho, m) => {
        const L = mm1mMeanInSystem(rho, m);
        const message = JSON.stringify({ rho, m, L });
        expect(Number.isFinite(L), message).toBe(true);
        expect(L, message).toBeGreaterThanOrEqual(0);
        expect(L, message).toBeLessThanOrEqual(m * (1 + 1e-12));
      }),
      { numRuns: 1000 },
    );
    expectClose(mm1mMeanInSystem(1e300, 50), 50, { rel: 1e-15 }, { rho: 1e300, m: 50 });
  });
});

describe('fluid φ', () => {
  it('equals max(0, 1 − 1/ρ)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (rho) => {
        expect(fluidPhi(rho), JSON.stringify({ rho })).toBe(fluidReference(rho));
      }),
      { numRuns: 1000 },
    );
    expect(fluidPhi(0)).toBe(0);
    expect(fluidPhi(1)).toBe(0);
    expect(fluidPhi(2)).toBe(0.5);
    expect(fluidPhi(4)).toBe(0.75);
    expect(fluidPhi.model).toBe('fluid');
    expect(phiFor('fluid', 7)).toBe(fluidPhi);
  });
});

describe('mixed φ', () => {
  const queues = fc.integer({ min: 1, max: 200 });

  it('equals mm1m for ρ ≤ 1 and max(1 − 1/ρ, 1/(m+1)) above', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), queues, (rho, m) => {
        expect(mixedPhi(m)(rho), JSON.stringify({ rho, m })).toBe(mm1mBlocking(rho, m));
        // See the mm1m tolerance: e^(m ln ρ) amplifies the rounding of ln ρ by |m ln ρ|.
        const rel = 1e-13 + (rho > 0 ? 4 * Number.EPSILON * Math.abs(m * Math.log(rho)) : 0);
        expectClose(mixedPhi(m)(rho), mixedReference(rho, m), { rel }, { rho, m });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e6, noNaN: true }), queues, (rho, m) => {
        expect(mixedPhi(m)(rho), JSON.stringify({ rho, m })).toBe(mixedReference(rho, m));
      }),
      { numRuns: 500 },
    );
    // The two regimes meet where 1 − 1/ρ = 1/(m+1), i.e. ρ = (m+1)/m.
    expect(mixedPhi(4)(1.1)).toBe(0.2);
    expect(mixedPhi(4)(1.25)).toBeCloseTo(0.2, 15);
    expect(mixedPhi(4)(2)).toBe(0.5);
    expect(mixedPhi(4).model).toBe('mixed');
  });

  it('is continuous at ρ = 1 and non-decreasing', () => {
    for (const m of [1, 5, 50, 1_000_000]) {
      for (const rho of [1 - 1e-12, 1, 1 + 1e-12]) {
        expectClose(mixedPhi(m)(rho), 1 / (m + 1), { abs: 1e-12 }, { rho, m });
      }
    }
    fc.assert(
      fc.property(rhoAnyScale, rhoAnyScale, fc.integer({ min: 1, max: 1_000_000 }), (a, b, m) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const phi = mixedPhi(m);
        expect(phi(lo), JSON.stringify({ lo, hi, m })).toBeLessThanOrEqual(phi(hi));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(rhoUpTo3, rhoUpTo3, queues, (a, b, m) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const phi = mixedPhi(m);
        expect(phi(lo), JSON.stringify({ lo, hi, m })).toBeLessThanOrEqual(phi(hi));
      }),
      { numRuns: 1000 },
    );
  });

  it('lies between fluid and 1', () => {
    // φ < 1 holds only while 1 − 1/ρ is below 1 in doubles, i.e. ρ < 2^53; above, even the exact
    // value rounds to 1 (see the report on Phi's "φ(ρ) < 1 for every finite ρ").
    const belowTwoTo53 = fc
      .double({ min: Math.log(1e-300), max: Math.log(2 ** 52), noNaN: true })
      .map((x) => Math.exp(x));
    fc.assert(
      fc.property(belowTwoTo53, queues, (rho, m) => {
        const value = mixedPhi(m)(rho);
        const message = JSON.stringify({ rho, m, value });
        expect(value, message).toBeGreaterThanOrEqual(fluidPhi(rho));
        expect(value, message).toBeLessThan(1);
      }),
      { numRuns: 500 },
    );
  });
});
