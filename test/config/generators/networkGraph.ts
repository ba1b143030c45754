import type { NetworkSpec } from '../../../src/config/index.js';

/**
 * Test-side views of a generated network's graph, written independently of the generators:
 * edges by service index, cycle detection, depth, and visits from a dense linear solve.
 */
export interface Edge {
  readonly to: number;
  /** Route probability or calls per request. */
  readonly weight: number;
}

/** Outgoing edges of each service, by index. */
export function edgesOf(network: NetworkSpec): Edge[][] {
  const index = new Map(network.services.map((s, i) => [s.name, i]));
  return network.services.map((service) => [
    ...(service.routes ?? []).map((r) => ({ to: index.get(r.to) ?? -1, weight: r.p })),
    ...(service.calls ?? []).map((c) => ({ to: index.get(c.to) ?? -1, weight: c.n })),
  ]);
}

/** Whether the graph has a directed cycle (colouring depth-first search). */
export function hasCycle(edges: readonly (readonly Edge[])[]): boolean {
  const state = edges.map(() => 0); // 0 new, 1 on the stack, 2 done
  const visit = (i: number): boolean => {
    state[i] = 1;
    for (const { to } of edges[i] ?? []) {
      if (state[to] === 1) return true;
      if (state[to] === 0 && visit(to)) return true;
    }
    state[i] = 2;
    return false;
  };
  return edges.some((_, i) => state[i] === 0 && visit(i));
}

/** Longest path, in edges, from service 0 to each service of a DAG (−1 if unreachable). */
export function longestDepths(edges: readonly (readonly Edge[])[]): number[] {
  const depth = edges.map(() => -1);
  depth[0] = 0;
  // Bellman–Ford style relaxation: a DAG of n nodes settles within n rounds.
  for (let round = 0; round < edges.length; round++) {
    edges.forEach((list, from) => {
      const d = depth[from] ?? -1;
      if (d < 0) return;
      for (const { to } of list) depth[to] = Math.max(depth[to] ?? -1, d + 1);
    });
  }
  return depth;
}

/** Services reachable from service 0. */
export function reachable(edges: readonly (readonly Edge[])[]): Set<number> {
  const seen = new Set([0]);
  const stack = [0];
  while (stack.length > 0) {
    for (const { to } of edges[stack.pop() ?? 0] ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        stack.push(to);
      }
    }
  }
  return seen;
}

/**
 * Expected visits per request entering at service 0: the solution of (I − Wᵀ) v = e₀ by Gaussian
 * elimination with partial pivoting (dense, for small networks only).
 */
export function solveVisits(edges: readonly (readonly Edge[])[]): number[] {
  const n = edges.length;
  const a = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n + 1 }, (_, j) => (i === j ? 1 : 0) + (j === n && i === 0 ? 1 : 0)),
  );
  edges.forEach((list, from) => {
    for (const { to, weight } of list) (a[to] as number[])[from] -= weight;
  });
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) {
      if (Math.abs(a[r]?.[col] ?? 0) > Math.abs(a[pivot]?.[col] ?? 0)) pivot = r;
    }
    [a[col], a[pivot]] = [a[pivot] as number[], a[col] as number[]];
    const top = a[col] as number[];
    for (let r = 0; r < n; r++) {
      const row = a[r] as number[];
      if (r === col || row[col] === 0) continue;
      const factor = (row[col] ?? 0) / (top[col] ?? 1);
      for (let c = col; c <= n; c++) row[c] = (row[c] ?? 0) - factor * (top[c] ?? 0);
    }
  }
  return a.map((row, i) => (row[n] ?? 0) / (row[i] ?? 1));
}
