/**
 * The M/M/1/m blocking by integer powers (the uniqueness check's φ) against `mm1mBlocking`, the
 * law's reference form (logs and expm1), which it hands over to near saturation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mm1mBlocking } from '../../../src/model/phi/mm1m.js';
import {
  mm1mBlockingByPowers,
  POWERS_FROM,
} from '../../../src/model/uniqueness/mm1mBlockingByPowers.js';

/** Relative difference, with probabilities under 1e-290 (subnormal powers) counted absolutely. */
const relative = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-290);

describe('mm1mBlockingByPowers', () => {
  it('agrees with mm1mBlocking to 1e-13 relative for ρ from 1e-4 to 1e4, m from 1 to 100', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -4, max: 4, noNaN: true }),
        fc.constantFrom(1, 2, 3, 5, 10, 20, 50, 64, 100),
        (exponent, m) => {
          const rho = 10 ** exponent;
          expect(
            relative(mm1mBlockingByPowers(rho, m), mm1mBlocking(rho, m)),
            `ρ = ${rho}, m = ${m}`,
          ).toBeLessThanOrEqual(1e-13);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('is mm1mBlocking itself near saturation, and exact at the ends', () => {
    for (const rho of [1, 1 + 1e-12, 1 - 1e-9, 1 + POWERS_FROM / 2, 1 - POWERS_FROM / 2]) {
      expect(mm1mBlockingByPowers(rho, 7)).toBe(mm1mBlocking(rho, 7));
    }
    expect(mm1mBlockingByPowers(0, 5)).toBe(0);
    expect(mm1mBlockingByPowers(Number.POSITIVE_INFINITY, 5)).toBe(1);
    expect(mm1mBlockingByPowers(1e300, 5)).toBe(mm1mBlocking(1e300, 5));
    // m = 1: P = ρ / (1 + ρ).
    expect(mm1mBlockingByPowers(3, 1)).toBeCloseTo(0.75, 15);
    expect(mm1mBlockingByPowers(0.5, 1)).toBeCloseTo(1 / 3, 15);
  });
});
