import type { RandomSource } from '../../model/random.js';
import type { NetworkSpec } from '../schema.js';
import { assembleNetwork } from './assembleNetwork.js';
import { countOf, randomSourceName } from './describeGenerated.js';
import { weighGraph } from './edgeWeights.js';
import {
  checkIntegerIn,
  MAX_GENERATED_SERVICES,
  type NetworkGeneratorOptions,
  resolveGeneratorOptions,
} from './GeneratorOptions.js';
import { databaseCount, muBenchTopology } from './muBenchTopology.js';
import type { ServiceGraph, WeightedEdge } from './ServiceGraph.js';

/** The most a cyclic network's service routes onwards, over all its routes. */
export const CYCLIC_MAX_ROUTE_SUM = 0.95;

/** Least and greatest probability of a back edge, before the service's routes are scaled. */
const BACK_EDGE_RANGE = [0.05, 0.3] as const;

/** Options of {@link generateCyclic}: `services` at least 2; always routes form. */
export interface CyclicOptions extends NetworkGeneratorOptions {
  /**
   * Number of back edges (default: about 10 % of the services, at least 1), from 1 to the number
   * of tree services other than the entry; each starts at a different service.
   * @default about a tenth of the services (rounded), at least 1
   */
  readonly backEdges?: number;
}

/**
 * A routing network with cycles: the routes-form µBench-like DAG of `generateMuBench` plus back
 * edges, each from a tree service (not the entry, not a database) to one of its ancestors, so
 * each closes a cycle (a request can come back to a service it has passed, as when a service
 * calls back into a gateway). At a service with a back edge all route probabilities are scaled, when needed, so
 * that they sum to at most 0.95; every service's sum is at most 0.95, so the routing matrix F
 * has ‖F‖∞ ≤ 0.95 and spectral radius below 1 (the flow equations have a unique solution).
 * Calls must stay acyclic, so there is no calls form. Capacities use the visits of the cyclic
 * routes.
 *
 * Pure: the same options (and seed) always give the same network.
 *
 * @param options - `services` 2 to 10 000; `classes`, `seed`, `random`, `arrivalRate` as for
 *   `generateMuBench`; `backEdges` (default about `services / 10`, at least 1).
 * @throws {RangeError} naming the option and the bad value.
 * @example
 * ```ts
 * const network = generateCyclic({ services: 30, classes: 3, seed: 7, backEdges: 4 });
 * ```
 */
export function generateCyclic(options: CyclicOptions): NetworkSpec {
  const resolved = resolveGeneratorOptions(options, 2, MAX_GENERATED_SERVICES, 'cyclic');
  const { services, random } = resolved;
  // The tree needs a service below the entry for a back edge to start from.
  const databases = databaseCount(services, 2);
  const treeSize = services - databases;
  const backEdges = options.backEdges ?? Math.max(1, Math.round(services / 10));
  checkIntegerIn('backEdges', backEdges, 1, treeSize - 1, ` for ${countOf(services, 'service')}`);

  const topology = muBenchTopology(services, databases, random);
  const dag = weighGraph(topology.names, topology.children, 'routes', random);
  const graph = addBackEdges(dag, topology.parents, treeSize, backEdges, random);
  return assembleNetwork(graph, {
    name: 'cyclic',
    description: `µBench-like service graph with ${countOf(backEdges, 'back edge')}: ${countOf(services, 'service')} (${countOf(databases, 'shared database')}), ${countOf(resolved.classes, 'class')}, ${randomSourceName(resolved.seed)}, routes`,
    form: 'routes',
    classes: resolved.classes,
    arrivalRate: resolved.arrivalRate,
    random,
  });
}

/**
 * Adds `count` back edges to a routes graph, from distinct tree services 1 … treeSize − 1 (chosen
 * uniformly) to a uniformly chosen proper ancestor, with probability drawn in [0.05, 0.3]; then
 * scales the source's routes so they sum to at most {@link CYCLIC_MAX_ROUTE_SUM}.
 */
function addBackEdges(
  graph: ServiceGraph,
  parents: readonly number[],
  treeSize: number,
  count: number,
  random: RandomSource,
): ServiceGraph {
  const edges = graph.edges.map((list) => [...list]);
  // A partial Fisher–Yates shuffle picks the sources without repeats.
  const candidates = Array.from({ length: treeSize - 1 }, (_, i) => i + 1);
  for (let k = 0; k < count; k++) {
    const pick = k + Math.floor(random() * (candidates.length - k));
    const source = candidates[pick] ?? 1;
    candidates[pick] = candidates[k] ?? source;
    candidates[k] = source;

    const ancestors: number[] = [];
    for (let a = parents[source] ?? -1; a >= 0; a = parents[a] ?? -1) ancestors.push(a);
    const target = ancestors[Math.floor(random() * ancestors.length)] ?? 0;
    const [least, greatest] = BACK_EDGE_RANGE;
    const backEdge: WeightedEdge = { to: target, weight: least + (greatest - least) * random() };
    edges[source] = scaleToAtMost([...(edges[source] ?? []), backEdge], CYCLIC_MAX_ROUTE_SUM);
  }
  return { names: graph.names, edges };
}

/** Route probabilities scaled down, if needed, so that they sum to at most `limit`. */
function scaleToAtMost(routes: readonly WeightedEdge[], limit: number): WeightedEdge[] {
  const sum = routes.reduce((total, route) => total + route.weight, 0);
  if (sum <= limit) return [...routes];
  return routes.map((route) => ({ to: route.to, weight: (route.weight * limit) / sum }));
}
