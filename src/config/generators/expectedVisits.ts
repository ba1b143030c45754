import type { ServiceGraph } from './ServiceGraph.js';

/** Visits are solved to this relative accuracy. */
const TOLERANCE = 1e-13;
/** Sweeps before giving up; with every route sum ≤ 0.95 about 600 reach {@link TOLERANCE}. */
const MAX_SWEEPS = 10_000;

/**
 * The expected number of visits to each service per external request entering at service 0:
 * the solution of v = e₀ + Wᵀ v, where W holds the edge weights. For routes (weights are
 * probabilities) these are the flow equations λ = γ + Fᵀλ per unit of arrivals; for calls
 * (weights are calls per request) they count call paths, each weighted by its product of n.
 *
 * Solved by Gauss–Seidel sweeps in depth-first topological order, so a DAG is exact after one
 * sweep (the second confirms it); with cycles the sweeps converge when the spectral radius of W
 * is below 1, which route sums ≤ 0.95 guarantee.
 *
 * @throws {Error} if the sweeps do not converge (weights with spectral radius ≥ 1).
 */
export function expectedVisits(graph: ServiceGraph): number[] {
  const count = graph.names.length;
  const incoming: { from: number; weight: number }[][] = graph.names.map(() => []);
  graph.edges.forEach((edges, from) => {
    for (const edge of edges) incoming[edge.to]?.push({ from, weight: edge.weight });
  });
  const order = topologicalOrder(graph);
  const visits = new Array<number>(count).fill(0);
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let change = 0;
    let largest = 0;
    for (const service of order) {
      let total = service === 0 ? 1 : 0;
      for (const edge of incoming[service] ?? []) total += (visits[edge.from] ?? 0) * edge.weight;
      change = Math.max(change, Math.abs(total - (visits[service] ?? 0)));
      largest = Math.max(largest, total);
      visits[service] = total;
    }
    if (change <= TOLERANCE * largest) return visits;
  }
  throw new Error(`expected visits did not converge in ${MAX_SWEEPS} sweeps`);
}

/**
 * Services in reverse post-order of a depth-first search from the entry (a topological order
 * when the graph is a DAG), then any service the entry does not reach.
 */
function topologicalOrder(graph: ServiceGraph): number[] {
  const count = graph.names.length;
  const seen = new Array<boolean>(count).fill(false);
  const postOrder: number[] = [];
  const stack: { service: number; next: number }[] = [{ service: 0, next: 0 }];
  seen[0] = true;
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { service: number; next: number };
    const edge = graph.edges[top.service]?.[top.next];
    if (edge === undefined) {
      postOrder.push(top.service);
      stack.pop();
      continue;
    }
    top.next++;
    if (!seen[edge.to]) {
      seen[edge.to] = true;
      stack.push({ service: edge.to, next: 0 });
    }
  }
  const order = postOrder.reverse();
  for (let i = 0; i < count; i++) if (!seen[i]) order.push(i);
  return order;
}
