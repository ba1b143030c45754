import { describe, expect, it } from 'vitest';
import { generateMuBench } from '../../../src/config/generators/index.js';
import { preferentialTree } from '../../../src/config/generators/preferentialTree.js';
import { type RandomSource, seededRandom } from '../../../src/model/random.js';

/** Reference: a random recursive tree, each new node attached to a uniformly chosen earlier one. */
function uniformTreeMaxChildren(size: number, random: RandomSource): number {
  const children = new Array<number>(size).fill(0);
  for (let node = 1; node < size; node++) {
    const parent = Math.floor(random() * node);
    children[parent] = (children[parent] ?? 0) + 1;
  }
  return Math.max(...children);
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('preferential attachment', () => {
  it('makes hubs: the busiest service calls far more services than under uniform attachment', () => {
    const services = 200;
    const seeds = Array.from({ length: 40 }, (_, i) => i);
    const preferential = seeds.map((seed) => {
      const network = generateMuBench({ services, seed });
      // Out-degree within the tree: calls to the shared databases are not attachment.
      return Math.max(
        ...network.services.map(
          (s) => (s.routes ?? []).filter((r) => !r.to.startsWith('db')).length,
        ),
      );
    });
    const treeSize = services - 20;
    const uniform = seeds.map((seed) => uniformTreeMaxChildren(treeSize, seededRandom(seed, 1)));
    // Measured: about 28 against 7.4 (the uniform tree's maximum grows like log₂ n, the
    // preferential one like √n); a factor of 2 leaves a wide margin over 40 seeds.
    expect(mean(preferential), `preferential ${preferential}, uniform ${uniform}`).toBeGreaterThan(
      2 * mean(uniform),
    );
  });

  it('grows a tree: every node but the root has an earlier parent', () => {
    const parents = preferentialTree(500, seededRandom(9));
    expect(parents[0]).toBe(-1);
    for (const [node, parent] of parents.entries()) {
      if (node > 0) {
        expect(parent).toBeGreaterThanOrEqual(0);
        expect(parent).toBeLessThan(node);
      }
    }
  });

  it('attaches with probability proportional to children + 1', () => {
    // After node 1 joins the root, the root has weight 2 and node 1 weight 1: node 2 picks the
    // root with probability 2/3.
    let root = 0;
    const trials = 3000;
    const random = seededRandom(5);
    for (let t = 0; t < trials; t++) if (preferentialTree(3, random)[2] === 0) root++;
    // 2/3 ± 5 standard deviations (√(2/9/3000) ≈ 0.0086).
    expect(Math.abs(root / trials - 2 / 3)).toBeLessThan(0.043);
  });
});
