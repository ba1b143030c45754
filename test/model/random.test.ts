import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/model/index.js';
import { compensatedSum } from './reference.js';

const take = (random: () => number, n: number) => Array.from({ length: n }, () => random());

describe('seededRandom', () => {
  it('the same seed and stream give the same sequence', () => {
    for (const seed of [0, 1, 42, 2 ** 40 + 3, -7]) {
      for (const stream of [0, 1, 5]) {
        expect(take(seededRandom(seed, stream), 1000), JSON.stringify({ seed, stream })).toEqual(
          take(seededRandom(seed, stream), 1000),
        );
      }
    }
  });

  it('different streams of one seed differ (no shared values among the first 1000)', () => {
    const streams = [0, 1, 2, 3, 100].map(
      (stream) => new Set(take(seededRandom(42, stream), 1000)),
    );
    for (let i = 0; i < streams.length; i++) {
      for (let j = i + 1; j < streams.length; j++) {
        const shared = [...(streams[i] ?? [])].filter((v) => streams[j]?.has(v));
        expect(shared, JSON.stringify({ seed: 42, i, j })).toEqual([]);
      }
    }
  });

  it('nearby non-negative seeds give different sequences', () => {
    const firsts = new Set<string>();
    for (let seed = 0; seed < 1000; seed++) firsts.add(take(seededRandom(seed), 3).join(','));
    expect(firsts.size).toBe(1000);
  });

  it('negative seeds differ from non-negative ones (seed −1 ≡ seed 0)', () => {
    // mixSeed: (seed ^ Math.floor(seed / 2^32)) | 0; for seed = −(n + 1), ToInt32(seed) is
    // ~n and Math.floor(seed / 2^32) is −1 = ~0, so the XOR gives n: seed −1 ≡ 0, −2 ≡ 1, ….
    // Likewise seed 2^32 + 1 ≡ 0. "any safe integer" is accepted, so callers expect distinct
    // sequences.
    for (const [a, b] of [
      [-1, 0],
      [-2, 1],
      [2 ** 32 + 1, 0],
    ] as const) {
      expect(take(seededRandom(a), 5), JSON.stringify({ a, b })).not.toEqual(
        take(seededRandom(b), 5),
      );
    }
  });

  it('gives values in [0, 1) with mean ≈ 1/2 and variance ≈ 1/12', () => {
    // 200k draws: standard error of the mean √(1/12/n) = 6.5e-4; 5 SE = 3.2e-3.
    for (const seed of [0, 1, 123_456_789]) {
      const values = take(seededRandom(seed), 200_000);
      const message = JSON.stringify({ seed });
      expect(
        values.every((v) => v >= 0 && v < 1),
        message,
      ).toBe(true);
      const mean = compensatedSum(values) / values.length;
      expect(Math.abs(mean - 0.5), message).toBeLessThan(3.2e-3);
      const variance = compensatedSum(values.map((v) => (v - mean) ** 2)) / (values.length - 1);
      expect(Math.abs(variance - 1 / 12), message).toBeLessThan(1e-3);
      // Ten equal bins: each 20000 ± 5·√(20000·0.9) ≈ 670.
      const bins = new Array<number>(10).fill(0);
      for (const v of values) bins[Math.floor(v * 10)] = (bins[Math.floor(v * 10)] ?? 0) + 1;
      for (const count of bins) expect(Math.abs(count - 20_000), message).toBeLessThan(670);
    }
  });

  it('validates seed and stream', () => {
    expect(() => seededRandom(1.5)).toThrow(TypeError);
    expect(() => seededRandom(Number.NaN)).toThrow('NaN');
    expect(() => seededRandom(2 ** 53)).toThrow(TypeError);
    expect(() => seededRandom(1, -1)).toThrow(RangeError);
    expect(() => seededRandom(1, 1.5)).toThrow('1.5');
    expect(() => seededRandom(1, 100_001)).toThrow(RangeError);
  });
});
