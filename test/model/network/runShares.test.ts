import { describe, expect, it } from 'vitest';
import { runShares } from '../../../src/model/network/runShares.js';
import { seededRandom } from '../../../src/model/random.js';

/** The storm's share of [from, to] in seeded paths of the two-state process started healthy. */
function simulatedStormShare(
  healthyEscape: number,
  stormEscape: number,
  from: number,
  to: number,
  paths: number,
): number {
  const random = seededRandom(25, 7);
  const exponential = (mean: number) =>
    Number.isFinite(mean) ? -mean * Math.log(1 - random()) : Number.POSITIVE_INFINITY;
  let total = 0;
  for (let i = 0; i < paths; i++) {
    let t = 0;
    let storm = false;
    let inStorm = 0;
    while (t < to) {
      const next = Math.min(t + exponential(storm ? stormEscape : healthyEscape), to);
      if (storm) inStorm += Math.max(0, next - Math.max(t, from));
      t = next;
      storm = !storm;
    }
    total += inStorm / (to - from);
  }
  return total / paths;
}

describe('runShares', () => {
  it('is the closed form of a storm never left', () => {
    // P(storm at t) = 1 − e^{−t/100}; its mean over [30, 300] by hand.
    const expected = 1 - (100 * (Math.exp(-0.3) - Math.exp(-3))) / 270;
    expect(runShares(100, Number.POSITIVE_INFINITY, 30, 300).storm).toBeCloseTo(expected, 12);
  });

  it('agrees with seeded paths of the two-state process', () => {
    for (const [h, s] of [
      [100, 50],
      [20, 400],
      [1000, 10],
    ] as const) {
      const found = runShares(h, s, 30, 300);
      expect(found.storm).toBeCloseTo(simulatedStormShare(h, s, 30, 300, 40_000), 2);
      expect(found.healthy + found.storm).toBeCloseTo(1, 12);
    }
  });

  it('tends to the stationary weights on a long window and to healthy on a short one', () => {
    // Time shares ∝ the mean sojourns: 300 / (100 + 300).
    expect(runShares(100, 300, 0, 1e7).storm).toBeCloseTo(0.75, 4);
    expect(runShares(1e6, 10, 0, 1).storm).toBeLessThan(1e-6);
  });

  it('keeps the limits: never left, left at once', () => {
    expect(runShares(Number.POSITIVE_INFINITY, 5, 0, 300)).toEqual({ healthy: 1, storm: 0 });
    expect(runShares(0, Number.POSITIVE_INFINITY, 0, 300)).toEqual({ healthy: 0, storm: 1 });
  });

  it('refuses negative escape times and empty windows', () => {
    expect(() => runShares(-1, 5, 0, 300)).toThrow(/healthy escape time/);
    expect(() => runShares(1, Number.NaN, 0, 300)).toThrow(/storm escape time/);
    expect(() => runShares(1, 5, 300, 300)).toThrow(/window/);
  });
});
