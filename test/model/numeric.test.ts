import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brentRoot } from '../../src/model/numeric/brent.js';
import { integrate } from '../../src/model/numeric/integrate.js';

import { expectClose } from './reference.js';

describe('brentRoot', () => {
  it('finds the root of x³ − 2x − 5 (Wallis) to 1e-12', () => {
    const f = (x: number) => x ** 3 - 2 * x - 5;
    const result = brentRoot(f, 2, 3);
    expectClose(result.root, 2.0945514815423265, { abs: 1e-12 }, { f: 'x^3-2x-5', lo: 2, hi: 3 });
    expect(Math.abs(result.value)).toBeLessThan(1e-10);
    expect(result.value).toBe(f(result.root));
    expect(result.evaluations).toBeLessThan(50);
  });

  it('finds the root of cos x − x (the Dottie number) to 1e-12', () => {
    const result = brentRoot((x) => Math.cos(x) - x, 0, 1);
    expectClose(result.root, 0.7390851332151607, { abs: 1e-12 }, { f: 'cos x - x', lo: 0, hi: 1 });
    // Either orientation of the bracket.
    const reversed = brentRoot((x) => x - Math.cos(x), 1, 0);
    expectClose(reversed.root, 0.7390851332151607, { abs: 1e-12 }, { f: 'x - cos x', lo: 1 });
  });

  it('finds (x − r)(x² + 1) = 0 within the stated tolerance for random r and brackets', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e3, max: 1e3, noNaN: true }),
        fc.double({ min: 1e-3, max: 100, noNaN: true }),
        fc.double({ min: 1e-3, max: 100, noNaN: true }),
        fc.constantFrom(1e-12, 1e-9, 1e-6),
        (r, left, right, tolerance) => {
          const { root } = brentRoot((x) => (x - r) * (x * x + 1), r - left, r + right, tolerance);
          // Stops once the bracket is below 2 (2ε|x| + tol/2): the root is within tol + 4ε|r|.
          expectClose(
            root,
            r,
            { abs: tolerance + 4 * Number.EPSILON * Math.abs(r) },
            {
              r,
              left,
              right,
              tolerance,
            },
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns an endpoint that is a root, exactly', () => {
    expect(brentRoot((x) => x - 1, 1, 5)).toEqual({ root: 1, value: 0, evaluations: 2 });
    expect(brentRoot((x) => x - 5, 1, 5).root).toBe(5);
  });

  it('throws RangeError when the root is not bracketed, naming the values', () => {
    expect(() => brentRoot((x) => x * x + 1, -1, 1)).toThrow(RangeError);
    expect(() => brentRoot((x) => x * x + 1, -1, 1)).toThrow('not bracketed');
    expect(() => brentRoot((x) => x * x + 1, -1, 1)).toThrow('f(-1) = 2');
    expect(() => brentRoot(() => Number.NaN, 0, 1)).toThrow(RangeError);
    expect(() => brentRoot((x) => x - 2, 0, 1)).toThrow(RangeError);
  });

  it('throws RangeError when it runs out of evaluations', () => {
    expect(() => brentRoot((x) => Math.cbrt(x - 0.3), 0, 1, 1e-15, 4)).toThrow(RangeError);
    expect(() => brentRoot((x) => Math.cbrt(x - 0.3), 0, 1, 1e-15, 4)).toThrow('converge');
  });
});

describe('integrate (adaptive Simpson)', () => {
  it('∫₀^π sin = 2, ∫₀¹ x⁴ = 0.2, ∫₀¹ √x = 2/3 to 1e-9', () => {
    expectClose(integrate(Math.sin, 0, Math.PI), 2, { abs: 1e-9 }, { f: 'sin', a: 0, b: 'pi' });
    expectClose(
      integrate((x) => x ** 4, 0, 1),
      0.2,
      { abs: 1e-9 },
      { f: 'x^4', a: 0, b: 1 },
    );
    expectClose(integrate(Math.sqrt, 0, 1), 2 / 3, { abs: 1e-9 }, { f: 'sqrt', a: 0, b: 1 });
  });

  it('∫ e^(−x²/2) over [−12, 12] = √(2π), ∫₀¹ 1/(1 + x²) = π/4, and a kink', () => {
    expectClose(
      integrate((x) => Math.exp((-x * x) / 2), -12, 12),
      Math.sqrt(2 * Math.PI),
      { abs: 1e-10 },
      { f: 'gauss' },
    );
    expectClose(
      integrate((x) => 1 / (1 + x * x), 0, 1),
      Math.PI / 4,
      { abs: 1e-12 },
      { f: 'atan' },
    );
    expectClose(
      integrate((x) => Math.abs(x - 0.3), 0, 1),
      0.29,
      { abs: 1e-10 },
      { f: '|x-0.3|' },
    );
  });

  it('is exact (to rounding) on cubics and signed on reversed intervals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        ([c0 = 0, c1 = 0, c2 = 0, c3 = 0], a, b) => {
          const f = (x: number) => c0 + c1 * x + c2 * x * x + c3 * x ** 3;
          const F = (x: number) =>
            c0 * x + (c1 * x * x) / 2 + (c2 * x ** 3) / 3 + (c3 * x ** 4) / 4;
          expectClose(integrate(f, a, b), F(b) - F(a), { abs: 1e-10 }, { c0, c1, c2, c3, a, b });
        },
      ),
      { numRuns: 300 },
    );
    expect(integrate((x) => x, 3, 3)).toBe(0);
    expectClose(
      integrate((x) => x, 1, 0),
      -0.5,
      { abs: 1e-15 },
      { f: 'x', a: 1, b: 0 },
    );
  });
});
