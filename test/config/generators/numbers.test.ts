import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectedVisits } from '../../../src/config/generators/expectedVisits.js';
import {
  floorSignificant,
  roundSignificant,
} from '../../../src/config/generators/roundSignificant.js';

describe('roundSignificant and floorSignificant', () => {
  it('keep 4 significant digits; the floor never exceeds its input and stays positive', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 1e12, noNaN: true }), (x) => {
        const floor = floorSignificant(x);
        expect(floor).toBeGreaterThan(0);
        expect(floor).toBeLessThanOrEqual(x);
        expect(Number(floor.toPrecision(4))).toBe(floor);
        expect((x - floor) / x).toBeLessThan(2e-3);
        expect(Math.abs(roundSignificant(x) - x) / x).toBeLessThanOrEqual(5e-4 + 1e-15);
      }),
      { numRuns: 2000 },
    );
  });

  it('round as written', () => {
    expect(roundSignificant(143.2857)).toBe(143.3);
    expect(floorSignificant(0.299999)).toBe(0.2999);
    expect(floorSignificant(0.0999996)).toBeLessThanOrEqual(0.0999996);
    expect(floorSignificant(0.3)).toBe(0.3);
  });
});

describe('expectedVisits', () => {
  it('counts call paths weighted by n on a diamond', () => {
    const visits = expectedVisits({
      names: ['a', 'b', 'c', 'd'],
      edges: [
        [
          { to: 1, weight: 2 },
          { to: 2, weight: 1 },
        ],
        [{ to: 3, weight: 2 }],
        [{ to: 3, weight: 1 }],
        [],
      ],
    });
    expect(visits).toEqual([1, 2, 1, 5]);
  });

  it('solves the flow equations with a cycle: v₀ = 1 + ½ v₁, v₁ = ½ v₀', () => {
    const [v0, v1] = expectedVisits({
      names: ['a', 'b'],
      edges: [[{ to: 1, weight: 0.5 }], [{ to: 0, weight: 0.5 }]],
    });
    expect(v0).toBeCloseTo(4 / 3, 12);
    expect(v1).toBeCloseTo(2 / 3, 12);
  });

  it('fails loudly when the routes do not let requests leave', () => {
    expect(() =>
      expectedVisits({
        names: ['a', 'b'],
        edges: [[{ to: 1, weight: 1 }], [{ to: 0, weight: 1 }]],
      }),
    ).toThrow(/did not converge/);
  });
});
