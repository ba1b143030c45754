/**
 * A topological order of a directed graph given as adjacency lists (Kahn's algorithm), or
 * `undefined` when the graph has a cycle.
 */
export function topologicalOrder(successors: readonly (readonly number[])[]): number[] | undefined {
  const n = successors.length;
  const indegree = new Int32Array(n);
  for (const list of successors) for (const j of list) indegree[j] = (indegree[j] ?? 0) + 1;
  const order: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) order.push(i);
  for (let head = 0; head < order.length; head++) {
    for (const j of successors[order[head] as number] ?? []) {
      indegree[j] = (indegree[j] ?? 0) - 1;
      if (indegree[j] === 0) order.push(j);
    }
  }
  return order.length === n ? order : undefined;
}

/**
 * A visiting order for Gauss–Seidel sweeps over a graph that may have cycles: depth-first
 * post-order reversed (a topological order where one exists, and as close to one as cycles
 * allow), starting from `roots` first so flows propagate downstream within one sweep.
 */
export function sweepOrder(
  successors: readonly (readonly number[])[],
  roots: readonly number[],
): number[] {
  const n = successors.length;
  const seen = new Uint8Array(n);
  const post: number[] = [];
  const visit = (start: number) => {
    // Iterative DFS: deep generated graphs would overflow the call stack.
    const stack: [number, number][] = [[start, 0]];
    seen[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [number, number];
      const [node, next] = top;
      const list = successors[node] ?? [];
      if (next < list.length) {
        top[1] = next + 1;
        const child = list[next] as number;
        if (!seen[child]) {
          seen[child] = 1;
          stack.push([child, 0]);
        }
      } else {
        post.push(node);
        stack.pop();
      }
    }
  };
  for (const r of roots) if (!seen[r]) visit(r);
  for (let i = 0; i < n; i++) if (!seen[i]) visit(i);
  return post.reverse();
}
