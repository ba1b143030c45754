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

/**
 * The strongly connected components of a directed graph (Tarjan's algorithm, iterative), in
 * topological order of the condensation: every edge between two components goes from an earlier
 * component to a later one. A component is `cyclic` when it has more than one node or a
 * self-loop.
 */
export function stronglyConnectedComponents(
  successors: readonly (readonly number[])[],
): { nodes: number[]; cyclic: boolean }[] {
  const n = successors.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: { nodes: number[]; cyclic: boolean }[] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1] as [number, number];
      const [v, next] = frame;
      const list = successors[v] ?? [];
      if (next < list.length) {
        frame[1] = next + 1;
        const w = list[next] as number;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w]) {
          low[v] = Math.min(low[v] as number, index[w] as number);
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent[0]] = Math.min(low[parent[0]] as number, low[v] as number);
      if (low[v] === index[v]) {
        const nodes: number[] = [];
        let w: number;
        do {
          w = stack.pop() as number;
          onStack[w] = 0;
          nodes.push(w);
        } while (w !== v);
        const cyclic = nodes.length > 1 || (successors[v] ?? []).includes(v);
        components.push({ nodes: nodes.reverse(), cyclic });
      }
    }
  }
  // Tarjan emits components in reverse topological order.
  return components.reverse();
}

/**
 * Every service's distinct successors, in first-seen order, from its routes with p > 0 (and,
 * when `withCalls`, its calls and branch calls). One shared helper so the solvers and the
 * structure report see the same graph.
 */
export function successorLists(
  services: readonly {
    readonly routes: readonly { readonly to: number; readonly p: number }[];
    readonly calls?: readonly { readonly to: number }[];
    readonly branches?: readonly { readonly calls: readonly { readonly to: number }[] }[];
  }[],
  include: { routes: boolean; calls: boolean },
): number[][] {
  return services.map((service) => {
    const list: number[] = [];
    const add = (to: number) => {
      if (!list.includes(to)) list.push(to);
    };
    if (include.routes) for (const r of service.routes) if (r.p > 0) add(r.to);
    if (include.calls) {
      for (const c of service.calls ?? []) add(c.to);
      for (const b of service.branches ?? []) for (const c of b.calls) add(c.to);
    }
    return list;
  });
}
