import type { NetworkModel } from 'difftry/model';

/** The node that stands for the network's outside clients (no service can be named so). */
export const CLIENTS = -1;

/** A node of the drawn graph: a service (its index), or {@link CLIENTS}. */
export interface GraphNode {
  readonly index: number;
  readonly name: string;
}

/**
 * An edge of the drawn graph: requests handed from one service to another (routes, or calls
 * of any branch, merged per pair), or external arrivals from {@link CLIENTS}.
 */
export interface GraphEdge {
  /** `from->to`, by node index: unique in the graph. */
  readonly id: string;
  readonly from: number;
  readonly to: number;
}

/** The graph of a network: its services and clients, and who sends requests to whom. */
export interface NetworkGraph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/**
 * The graph the view lays out: one node per service plus the clients, an edge from the clients
 * to every service with external arrivals, and one edge per pair of services that routes or
 * calls connect (whatever the class or branch).
 */
export function networkGraph(network: NetworkModel): NetworkGraph {
  const edges = new Map<string, GraphEdge>();
  const add = (from: number, to: number) => {
    const id = `${from}->${to}`;
    if (!edges.has(id)) edges.set(id, { id, from, to });
  };
  network.services.forEach((service, i) => {
    if (service.arrivals.some((rate) => rate > 0)) add(CLIENTS, i);
  });
  network.services.forEach((service, i) => {
    for (const route of service.routes) if (route.p > 0) add(i, route.to);
    for (const call of service.calls ?? []) add(i, call.to);
    for (const branch of service.branches ?? []) for (const call of branch.calls) add(i, call.to);
  });
  return {
    nodes: [
      { index: CLIENTS, name: 'clients' },
      ...network.services.map((service, index) => ({ index, name: service.name })),
    ],
    edges: [...edges.values()],
  };
}
