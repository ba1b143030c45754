import { describe, expect, it } from 'vitest';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import {
  DEFAULT_RETRY_RANGE,
  gridPoint,
  gridSize,
  resolveGrid,
  tuneRetryLimits,
} from '../../../src/model/tune/index.js';

/** One M/M/1/m service with the given external arrivals per class. */
function oneService(arrivals: readonly number[]): NetworkModel {
  return {
    classes: arrivals.map((_, p) => ({ name: `c${p}`, retryLimit: 1 })),
    services: [
      {
        name: 'api',
        capacity: 100,
        queue: 20,
        model: 'mixed',
        arrivals,
        retryLimits: arrivals.map(() => 1),
        routes: [],
      },
    ],
  };
}

describe('resolveGrid', () => {
  it('fills in 0..8 for classes the grid does not name', () => {
    expect(resolveGrid(undefined, ['a', 'b'])).toEqual([DEFAULT_RETRY_RANGE, DEFAULT_RETRY_RANGE]);
    expect(resolveGrid([undefined, { min: 2, max: 3 }], ['a', 'b'])).toEqual([
      { min: 0, max: 8 },
      { min: 2, max: 3 },
    ]);
  });

  it.each([
    [{ min: 3, max: 2 }, /grid\[0\] \(class a\).*got 3\.\.2/],
    [{ min: -1, max: 2 }, /got -1\.\.2/],
    [{ min: 0, max: 1.5 }, /got 0\.\.1\.5/],
    [{ min: 0, max: 1001 }, /≤ 1000/],
  ])('refuses %o', (range, message) => {
    expect(() => resolveGrid([range], ['a'])).toThrow(RangeError);
    expect(() => resolveGrid([range], ['a'])).toThrow(message);
  });

  it('refuses more ranges than classes', () => {
    expect(() => resolveGrid([DEFAULT_RETRY_RANGE, DEFAULT_RETRY_RANGE], ['a'])).toThrow(
      /one range per class \(1\), got 2/,
    );
  });
});

describe('grid enumeration', () => {
  it('counts the product of the ranges and lists every point once, first class slowest', () => {
    const grid = [
      { min: 1, max: 3 },
      { min: 0, max: 1 },
      { min: 5, max: 5 },
    ];
    expect(gridSize(grid)).toBe(6);
    const limits = [0, 0, 0];
    const points = Array.from({ length: 6 }, (_, i) => {
      gridPoint(grid, i, limits);
      return limits.join(',');
    });
    expect(points).toEqual(['1,0,5', '1,1,5', '2,0,5', '2,1,5', '3,0,5', '3,1,5']);
  });

  it('evaluates every point of the default grid: 9^P', () => {
    const result = tuneRetryLimits(oneService([30, 60]));
    expect(result.evaluated).toBe(81);
    expect(result.points).toHaveLength(81);
    expect(new Set(result.points.map((p) => p.limits.join(','))).size).toBe(81);
    expect(result.points[0]?.limits).toEqual([0, 0]);
    expect(result.points[80]?.limits).toEqual([8, 8]);
    expect(result.grid).toEqual([DEFAULT_RETRY_RANGE, DEFAULT_RETRY_RANGE]);
  });

  it('evaluates a narrowed grid', () => {
    const result = tuneRetryLimits(oneService([30, 60, 10]), {
      grid: [
        { min: 2, max: 4 },
        { min: 0, max: 1 },
        { min: 7, max: 7 },
      ],
    });
    expect(result.evaluated).toBe(6);
    expect(result.points.map((p) => p.limits)).toEqual([
      [2, 0, 7],
      [2, 1, 7],
      [3, 0, 7],
      [3, 1, 7],
      [4, 0, 7],
      [4, 1, 7],
    ]);
  });

  it('solves once per setting of the classes that have traffic', () => {
    // Class c1 has no external arrivals: its limit changes nothing, so one solve serves all 9.
    const result = tuneRetryLimits(oneService([150, 0]));
    expect(result.evaluated).toBe(81);
    expect(result.analyses).toBe(9);
    const byHigh = (k: number) => result.points.filter((p) => p.limits[0] === k);
    for (const k of [0, 4, 8]) {
      const group = byHigh(k);
      expect(group).toHaveLength(9);
      for (const point of group) expect(point.metrics).toBe(group[0]?.metrics);
    }
    // Every limit of c1 ties on everything: the tie goes to fewer retries.
    expect(result.best?.limits[1]).toBe(0);
  });

  it('refuses a grid larger than maxPoints with a RangeError that says how large', () => {
    const network = oneService([10, 10, 10, 10, 10, 10]);
    expect(() => tuneRetryLimits(network)).toThrow(RangeError);
    expect(() => tuneRetryLimits(network)).toThrow(
      /531441 points \(9 × 9 × 9 × 9 × 9 × 9\), more than maxPoints \(100000\)/,
    );
    expect(() => tuneRetryLimits(oneService([10, 10]), { maxPoints: 80 })).toThrow(
      /81 points.*maxPoints \(80\)/,
    );
    expect(() => tuneRetryLimits(oneService([10]), { maxPoints: 0 })).toThrow(/maxPoints/);
  });

  it('reports progress up to 1, in order', () => {
    const fractions: number[] = [];
    tuneRetryLimits(oneService([30, 60]), { onProgress: (f) => fractions.push(f) });
    expect(fractions.length).toBeGreaterThan(10);
    expect(fractions.at(-1)).toBe(1);
    for (let i = 1; i < fractions.length; i++) {
      expect(fractions[i]).toBeGreaterThan(fractions[i - 1] as number);
    }
  });
});
