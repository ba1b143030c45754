import { describe, expect, it } from 'vitest';
import { linearCost } from '../../src/model/timeouts/linearCost.js';
import type { OptimizedTimeouts, TimeoutNode } from '../../src/model/timeouts/optimizeTimeouts.js';
import { optimizeTimeouts } from '../../src/model/timeouts/optimizeTimeouts.js';
import { parametricLatency } from '../../web/src/timeouts/parametricLatency.js';
import { searchTreeLayout } from '../../web/src/timeouts/searchTreeLayout.js';
import { TIMEOUTS_DEFAULTS } from '../../web/src/timeouts/timeoutsSettings.js';

const node = (t: number, E: number, children: TimeoutNode[] = []): TimeoutNode => ({
  t,
  E,
  children,
});

describe('searchTreeLayout', () => {
  it('places every node by level, ids from the root, and marks the ladder’s path', () => {
    // t_z = 1 with two candidates for t_(z−1); the ladder 0.1, 0.5, 1 goes through the second.
    const tree = node(1, 0.4, [
      node(0.2, 0.35, [node(0.05, 0.5)]),
      node(0.5, 0.3, [node(0.1, 0.25)]),
    ]);
    const result = { sequence: [0.1, 0.5, 1], tree } as unknown as OptimizedTimeouts;
    const { dots, edges } = searchTreeLayout(result);
    expect(dots.map((d) => [d.id, d.t, d.level, d.optimal])).toEqual([
      ['', 1, 0, true],
      ['0', 0.2, 1, false],
      ['0.0', 0.05, 2, false],
      ['1', 0.5, 1, true],
      ['1.0', 0.1, 2, true],
    ]);
    expect(edges.map((e) => [e.id, e.parent.t, e.child.t, e.optimal])).toEqual([
      ['0', 1, 0.2, false],
      ['0.0', 0.2, 0.05, false],
      ['1', 1, 0.5, true],
      ['1.0', 0.5, 0.1, true],
    ]);
  });

  it('a node on a path that left the ladder is not optimal, even at a ladder timeout', () => {
    const tree = node(1, 0.4, [
      node(0.2, 0.35, [node(0.1, 0.5)]),
      node(0.5, 0.3, [node(0.1, 0.25)]),
    ]);
    const result = { sequence: [0.1, 0.5, 1], tree } as unknown as OptimizedTimeouts;
    const optimal = searchTreeLayout(result)
      .dots.filter((d) => d.optimal)
      .map((d) => d.id);
    expect(optimal).toEqual(['', '1', '1.0']);
  });

  it('on a branching Optimizer tree, the optimal dots are exactly the ladder', () => {
    const law = parametricLatency({
      ...TIMEOUTS_DEFAULTS.law,
      slowShare: 0.5,
      sigma: 0.5,
      sigma2: 0.5,
    });
    const result = optimizeTimeouts(law, { depth: 4, cost: linearCost({ c1: 0.1 }) });
    const { dots, edges } = searchTreeLayout(result);
    expect(dots.length).toBeGreaterThan(result.sequence.length);
    expect(edges).toHaveLength(dots.length - 1);
    const optimal = dots.filter((d) => d.optimal);
    expect(optimal.map((d) => d.t).reverse()).toEqual(result.sequence);
    expect(optimal.at(-1)?.E).toBe(result.E0);
  });
});
