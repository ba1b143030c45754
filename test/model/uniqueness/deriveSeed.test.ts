import { describe, expect, it } from 'vitest';
import { backEdgeCount, deriveSeed, graphPlan } from '../../../src/model/uniqueness/index.js';

describe('deriveSeed', () => {
  it('is a safe integer that depends on every input and on their order', () => {
    const seeds = new Set<number>();
    for (let seed = 0; seed < 20; seed++) {
      for (let a = 0; a < 20; a++) {
        for (let b = 0; b < 5; b++) {
          const derived = deriveSeed(seed, a, b);
          expect(Number.isSafeInteger(derived) && derived >= 0, `${seed} ${a} ${b}`).toBe(true);
          seeds.add(derived);
        }
      }
    }
    expect(seeds.size).toBe(20 * 20 * 5);
    expect(deriveSeed(3, 1, 2)).not.toBe(deriveSeed(3, 2, 1));
    expect(deriveSeed(3, 1)).not.toBe(deriveSeed(3, 1, 0));
    expect(deriveSeed(2 ** 40 + 7, 5)).toBe(deriveSeed(2 ** 40 + 7, 5));
  });

  it('rejects what is not a seed or a part', () => {
    expect(() => deriveSeed(0.5)).toThrow(/seed should be a safe integer, got 0.5/);
    expect(() => deriveSeed(1, -1)).toThrow(/part should be an integer in \[0, 2\^32\), got -1/);
    expect(() => deriveSeed(1, 2 ** 32)).toThrow(RangeError);
  });
});

describe('graphPlan and backEdgeCount', () => {
  it('plans graphs of 3 to 30 services, the same for the same seed and index', () => {
    const sizes = new Set<number>();
    for (let graph = 0; graph < 400; graph++) {
      const plan = graphPlan(11, graph);
      expect(plan).toEqual(graphPlan(11, graph));
      expect(plan.services).toBeGreaterThanOrEqual(3);
      expect(plan.services).toBeLessThanOrEqual(30);
      expect(plan.backEdgeShare).toBeGreaterThanOrEqual(0);
      expect(plan.backEdgeShare).toBeLessThan(1);
      sizes.add(plan.services);
    }
    expect(sizes.size).toBe(28);
    expect(graphPlan(11, 0)).not.toEqual(graphPlan(12, 0));
  });

  it('keeps back edges within what the generator allows', () => {
    for (let treeSize = 2; treeSize <= 30; treeSize++) {
      for (const share of [0, 0.3, 0.5, 0.999999]) {
        const count = backEdgeCount(share, treeSize);
        expect(count).toBeGreaterThanOrEqual(1);
        expect(count).toBeLessThanOrEqual(Math.max(1, Math.floor((treeSize - 1) / 2)));
        expect(count).toBeLessThanOrEqual(treeSize - 1);
      }
    }
    expect(backEdgeCount(0.999999, 21)).toBe(10);
  });
});
