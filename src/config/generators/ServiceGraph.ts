/**
 * A directed graph of services by index, before it becomes a network file: service 0 is the
 * entry, and each service lists its outgoing edges. An edge's `weight` is a route probability
 * (routes form) or a number of calls per request (calls form).
 */
export interface ServiceGraph {
  readonly names: readonly string[];
  readonly edges: readonly (readonly WeightedEdge[])[];
}

/** An edge to service `to`: probability `weight` (routes) or `weight` calls per request. */
export interface WeightedEdge {
  readonly to: number;
  readonly weight: number;
}
