import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sweepOrder, topologicalOrder } from '../../../src/model/network/topology.js';

/** Random directed graphs on 1..8 nodes as adjacency lists (self-loops allowed). */
const graphs = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }), {
    minLength: n,
    maxLength: n,
  }),
);

/** Random DAGs: edges only go from a lower to a higher position of a random permutation. */
const dags = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc
    .record({
      order: fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
      edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 20 }),
    })
    .map(({ order, edges }) => {
      const successors: number[][] = Array.from({ length: n }, () => []);
      for (const [a, b] of edges) {
        const from = a % n;
        const to = b % n;
        if (from === to) continue;
        const [lo, hi] = from < to ? [from, to] : [to, from];
        const u = order[lo] as number;
        const v = order[hi] as number;
        if (!(successors[u] as number[]).includes(v)) (successors[u] as number[]).push(v);
      }
      return successors;
    }),
);

/** Whether the graph has a cycle, by a depth-first search with colours. */
function hasCycle(successors: readonly (readonly number[])[]): boolean {
  const colour = new Array<number>(successors.length).fill(0);
  const visit = (i: number): boolean => {
    colour[i] = 1;
    for (const j of successors[i] ?? []) {
      if (colour[j] === 1) return true;
      if (colour[j] === 0 && visit(j)) return true;
    }
    colour[i] = 2;
    return false;
  };
  return successors.some((_, i) => colour[i] === 0 && visit(i));
}

function isPermutation(order: readonly number[], n: number): boolean {
  return order.length === n && [...order].sort((a, b) => a - b).every((x, i) => x === i);
}

function isTopological(
  order: readonly number[],
  successors: readonly (readonly number[])[],
): boolean {
  const position = new Map(order.map((node, k) => [node, k]));
  return successors.every((list, i) =>
    list.every((j) => (position.get(i) as number) < (position.get(j) as number)),
  );
}

describe('topologicalOrder', () => {
  it('is undefined exactly when the graph has a cycle, else a permutation with every edge forward', () => {
    fc.assert(
      fc.property(fc.oneof(graphs, dags), (successors) => {
        const order = topologicalOrder(successors);
        const message = JSON.stringify({ successors, order });
        expect(order === undefined, message).toBe(hasCycle(successors));
        if (order !== undefined) {
          expect(isPermutation(order, successors.length), message).toBe(true);
          expect(isTopological(order, successors), message).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('sweepOrder', () => {
  it('visits every node once, and on a DAG is a topological order whatever the roots', () => {
    fc.assert(
      fc.property(
        fc.oneof(graphs, dags).chain((successors) =>
          fc.record({
            successors: fc.constant(successors),
            roots: fc.uniqueArray(fc.integer({ min: 0, max: successors.length - 1 })),
          }),
        ),
        ({ successors, roots }) => {
          const order = sweepOrder(successors, roots);
          const message = JSON.stringify({ successors, roots, order });
          expect(isPermutation(order, successors.length), message).toBe(true);
          if (!hasCycle(successors)) expect(isTopological(order, successors), message).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('handles a 10,000-node chain (iterative, no stack overflow)', () => {
    const n = 10_000;
    const successors = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : []));
    const order = sweepOrder(successors, [0]);
    expect(order).toStrictEqual(Array.from({ length: n }, (_, i) => i));
  });
});
