import { describe, expect, it } from 'vitest';
import type { LevelQbd } from '../../../src/model/numeric/levelQbd.js';
import {
  levelQbdHittingTimes,
  meanHittingTime,
} from '../../../src/model/numeric/levelQbdHitting.js';
import { seededRandom } from '../../../src/model/random.js';
import { gauss } from './gauss.js';

/** A birth–death chain as a one-phase QBD: births λ, deaths μ. */
function birthDeath(lambda: number, mu: number, levels: number): LevelQbd {
  return {
    phases: 1,
    levels,
    up: () => Float64Array.of(lambda),
    down: () => Float64Array.of(mu),
    within: () => new Float64Array(1),
  };
}

describe('levelQbdHittingTimes', () => {
  it('gives the birth–death chain’s closed-form passage times, up and down', () => {
    const lambda = 2;
    const mu = 3;
    const levels = 10;
    const pi = (i: number) => (lambda / mu) ** i;
    // Up from 0 to c: Σ_{j<c} (Σ_{i≤j} π_i) / (λ π_j).
    const c = 6;
    let up = 0;
    for (let j = 0; j < c; j++) {
      let below = 0;
      for (let i = 0; i <= j; i++) below += pi(i);
      up += below / (lambda * pi(j));
    }
    const h = levelQbdHittingTimes(birthDeath(lambda, mu, levels), c, 'up');
    expect(h[0]?.[0]).toBeCloseTo(up, 10);
    expect(h[c]).toBeUndefined();
    // Down from N to t: Σ_{t<j≤N} (Σ_{i≥j} π_i) / (μ π_j).
    const t = 3;
    let down = 0;
    for (let j = t + 1; j <= levels; j++) {
      let above = 0;
      for (let i = j; i <= levels; i++) above += pi(i);
      down += above / (mu * pi(j));
    }
    const g = levelQbdHittingTimes(birthDeath(lambda, mu, levels), t, 'down');
    expect(g[levels]?.[0]).toBeCloseTo(down, 10);
    expect(g[t]).toBeUndefined();
  });

  it('agrees with a dense solve of the whole generator on a random three-phase chain', () => {
    const random = seededRandom(7);
    const p = 3;
    const levels = 6;
    const block = () => Float64Array.from({ length: p * p }, () => random());
    const ups = Array.from({ length: levels + 1 }, block);
    const downs = Array.from({ length: levels + 1 }, block);
    const withins = Array.from({ length: levels + 1 }, () => {
      const b = block();
      for (let i = 0; i < p; i++) b[i * p + i] = 0;
      return b;
    });
    const qbd: LevelQbd = {
      phases: p,
      levels,
      up: (n) => ups[n] as Float64Array,
      down: (n) => downs[n] as Float64Array,
      within: (n) => withins[n] as Float64Array,
    };
    for (const [target, direction] of [
      [4, 'up'],
      [2, 'down'],
    ] as const) {
      const side = Array.from({ length: levels + 1 }, (_, n) => n).filter((n) =>
        direction === 'up' ? n < target : n > target,
      );
      const index = (n: number, i: number) => side.indexOf(n) * p + i;
      const size = side.length * p;
      const q = Array.from({ length: size }, () => new Array<number>(size).fill(0));
      for (const n of side) {
        for (let i = 0; i < p; i++) {
          let out = 0;
          const add = (to: number, j: number, rate: number) => {
            if (rate === 0) return;
            out += rate;
            if (side.includes(to)) (q[index(n, i)] as number[])[index(to, j)] = rate;
          };
          for (let j = 0; j < p; j++) {
            if (n < levels) add(n + 1, j, ups[n]?.[i * p + j] as number);
            if (n > 0) add(n - 1, j, downs[n]?.[i * p + j] as number);
            if (j !== i) add(n, j, withins[n]?.[i * p + j] as number);
          }
          (q[index(n, i)] as number[])[index(n, i)] = -out;
        }
      }
      const expected = gauss(q, new Array<number>(size).fill(-1));
      const h = levelQbdHittingTimes(qbd, target, direction);
      for (const n of side)
        for (let i = 0; i < p; i++)
          expect(h[n]?.[i]).toBeCloseTo(expected[index(n, i)] as number, 9);
    }
  });

  it('averages the times over the part of a law they are given on', () => {
    const h = [Float64Array.of(4, 2), Float64Array.of(1, 1), undefined];
    const pi = [Float64Array.of(0.1, 0.1), Float64Array.of(0.2, 0), Float64Array.of(0.6, 0)];
    expect(meanHittingTime(pi, h)).toBeCloseTo((0.4 + 0.2 + 0.2) / 0.4, 12);
  });

  it('refuses a target with no level on the side asked for', () => {
    expect(() => levelQbdHittingTimes(birthDeath(1, 1, 4), 0, 'up')).toThrow(RangeError);
    expect(() => levelQbdHittingTimes(birthDeath(1, 1, 4), 4, 'down')).toThrow(RangeError);
  });

  it('gives two wells sojourns in the ratio of their stationary masses (renewal)', () => {
    // A birth–death chain with wells at 5 and 35 and a barrier between: birth 1, death rate
    // shaped so the stationary law has two peaks. Leaving each well (passage to the other's
    // peak), averaged over the well's law, takes times in the ratio of the wells' masses.
    const levels = 40;
    const death = (n: number) => (n < 20 ? (n < 5 ? 0.5 : 1.6) : n < 35 ? 0.55 : 1.8);
    const qbd: LevelQbd = {
      phases: 1,
      levels,
      up: () => Float64Array.of(1),
      down: (n) => Float64Array.of(death(n)),
      within: () => new Float64Array(1),
    };
    const weights = [1];
    for (let n = 1; n <= levels; n++) weights.push((weights[n - 1] as number) / death(n));
    const total = weights.reduce((a, b) => a + b, 0);
    const pi = weights.map((w) => Float64Array.of(w / total));
    let trough = 5;
    for (let n = 5; n <= 35; n++)
      if ((weights[n] as number) < (weights[trough] as number)) trough = n;
    const up = levelQbdHittingTimes(qbd, 35, 'up').map((h, n) => (n < trough ? h : undefined));
    const down = levelQbdHittingTimes(qbd, 5, 'down').map((h, n) => (n > trough ? h : undefined));
    const low = pi.slice(0, trough).reduce((a, b) => a + (b[0] as number), 0);
    const high = pi.slice(trough + 1).reduce((a, b) => a + (b[0] as number), 0);
    const ratio = meanHittingTime(pi, up) / meanHittingTime(pi, down);
    expect(Math.abs(ratio / (low / high) - 1)).toBeLessThan(0.05);
  });
});
