/** A call edge between two services (ids), with the calls made on it. */
export interface CallEdge {
  readonly caller: number;
  readonly callee: number;
  readonly calls: number;
}

/**
 * The call edges to drop so that the rest is acyclic, as a network file's calls must be: while a
 * cycle is left (a service calling itself is one), the edge on it with the fewest calls goes
 * (ties: the later caller, then callee). `edges` maps `"caller>callee"` to its calls.
 */
export function acyclicEdges(edges: ReadonlyMap<string, number>): {
  readonly dropped: readonly CallEdge[];
} {
  const live = new Map<string, CallEdge>();
  for (const [key, calls] of edges) {
    const [caller, callee] = key.split('>').map(Number) as [number, number];
    live.set(key, { caller, callee, calls });
  }
  const dropped: CallEdge[] = [];
  for (;;) {
    const cycle = findCycle(live);
    if (cycle === undefined) return { dropped };
    const weakest = cycle.reduce((a, b) =>
      b.calls < a.calls ||
      (b.calls === a.calls &&
        (b.caller > a.caller || (b.caller === a.caller && b.callee > a.callee)))
        ? b
        : a,
    );
    live.delete(`${weakest.caller}>${weakest.callee}`);
    dropped.push(weakest);
  }
}

/** One cycle of the graph, as its edges, or undefined (iterative depth-first search). */
function findCycle(edges: ReadonlyMap<string, CallEdge>): CallEdge[] | undefined {
  const out = new Map<number, CallEdge[]>();
  for (const edge of edges.values()) {
    const list = out.get(edge.caller) ?? [];
    list.push(edge);
    out.set(edge.caller, list);
  }
  for (const list of out.values()) list.sort((a, b) => a.callee - b.callee);
  const state = new Map<number, 1 | 2>(); // 1: on the path, 2: done
  const starts = [...out.keys()].sort((a, b) => a - b);
  for (const root of starts) {
    if (state.has(root)) continue;
    const path: CallEdge[] = [];
    const stack: { node: number; next: number }[] = [{ node: root, next: 0 }];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: number; next: number };
      const list = out.get(top.node) ?? [];
      if (top.next >= list.length) {
        state.set(top.node, 2);
        stack.pop();
        path.pop();
        continue;
      }
      const edge = list[top.next++] as CallEdge;
      const seen = state.get(edge.callee);
      if (seen === 1) {
        const from = path.findIndex((e) => e.caller === edge.callee);
        return [...(from === -1 ? [] : path.slice(from)), edge];
      }
      if (seen === 2) continue;
      state.set(edge.callee, 1);
      path.push(edge);
      stack.push({ node: edge.callee, next: 0 });
    }
  }
  return undefined;
}
