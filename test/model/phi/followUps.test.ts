import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { freshRejection } from '../../../src/model/phi/followUps.js';
import { phiFor } from '../../../src/model/phi/index.js';
import { phiReference } from '../reference.js';

/*
 * freshRejection(φ, ρ, ρ_f) is the smallest π ≥ φ(ρ) with π = φ(ρ − ρ_f + ρ_f/(1 − π))
 * (docs/model.md, "Follow-up calls"). Checked here against the equation itself (the laws from
 * test/model/reference.ts, written apart from src), against bisection for the smallest root,
 * and against the fluid queue's closed form.
 */
describe('freshRejection: a fresh attempt beside follow-ups', () => {
  it('is φ(ρ) without follow-ups', () => {
    for (const name of ['fluid', 'mm1m', 'mixed'] as const) {
      const phi = phiFor(name, 20);
      for (const rho of [0, 0.3, 0.99, 1, 1.7, 12])
        expect(freshRejection(phi, rho, 0)).toBe(phi(rho));
    }
  });

  it('solves π = φ(ρ_a + ρ_f/(1 − π)), and no smaller root lies above φ(ρ)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('fluid', 'mm1m', 'mixed' as const),
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0.05, max: 5, noNaN: true }),
        fc.double({ min: 0.01, max: 0.95, noNaN: true }),
        (name, m, rho, share) => {
          const follow = Math.min(share * rho, 0.95);
          const fresh = rho - follow;
          const law = (x: number) => phiReference(name, x, m);
          const pi = freshRejection(phiFor(name, m), rho, follow);
          const inputs = JSON.stringify({ name, m, rho, follow, pi });
          expect(Math.abs(pi - law(fresh + follow / (1 - pi))), inputs).toBeLessThan(1e-10);
          // g(π) = φ(…) − π stays positive from φ(ρ) up to just below π.
          const start = law(rho);
          for (let i = 0; i < 50; i++) {
            const x = start + ((pi - start) * i) / 50 - 1e-12;
            if (x < start) continue;
            expect(law(fresh + follow / (1 - x)) - x, inputs).toBeGreaterThan(-1e-12);
          }
        },
      ),
      { numRuns: 300, seed: 20261205 },
    );
  });

  it('in a saturated fluid queue the server’s throughput is unchanged: π = (ρ − 1)/(ρ − ρ_f)', () => {
    // Fluid φ(x) = 1 − 1/x above 1: (1 − π)(ρ_a + ρ_f/(1 − π)) = 1 gives π = 1 − (1 − ρ_f)/ρ_a,
    // so every attempt is rejected with π ρ_a/ρ = 1 − 1/ρ, as without follow-ups.
    const phi = phiFor('fluid', 50);
    for (const [rho, follow] of [
      [1.5, 0.2],
      [3, 0.6],
      [10, 0.9],
    ] as const) {
      const pi = freshRejection(phi, rho, follow);
      expect(pi).toBeCloseTo((rho - 1) / (rho - follow), 13);
      expect((pi * (rho - follow)) / rho).toBeCloseTo(1 - 1 / rho, 13);
    }
    // Follow-ups alone fill the server: every fresh attempt is turned away.
    expect(freshRejection(phi, 3, 1)).toBe(1);
  });
});
