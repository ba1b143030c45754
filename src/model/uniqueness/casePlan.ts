import { seededRandom } from '../random.js';
import { deriveSeed } from './deriveSeed.js';

/** Fewest and most services of a generated graph. */
export const GRAPH_SIZE_RANGE = [3, 30] as const;

/** What each derived seed is for, so that no two purposes share a stream. */
const GRAPH_TAG = 1;
const GENERATOR_TAG = 2;
const CONFIGURATION_TAG = 3;
const CALL_GRAPH_TAG = 4;

/** How graph number `graph` of a run is generated: its size, back edges and generator seed. */
export interface GraphPlan {
  /** Number of services, uniform in {@link GRAPH_SIZE_RANGE}. */
  readonly services: number;
  /** Seed to hand the cyclic-network generator. */
  readonly generatorSeed: number;
  /**
   * Where the number of back edges falls in its range, uniform in [0, 1): see
   * {@link backEdgeCount}, which needs the generator's tree size.
   */
  readonly backEdgeShare: number;
}

/**
 * The plan of graph `graph` in a run seeded with `seed`. Depends only on the two, so every thread
 * that handles a job of this graph builds the same network.
 */
export function graphPlan(seed: number, graph: number): GraphPlan {
  const random = seededRandom(deriveSeed(seed, GRAPH_TAG, graph));
  const [least, most] = GRAPH_SIZE_RANGE;
  return {
    services: least + Math.floor(random() * (most - least + 1)),
    generatorSeed: deriveSeed(seed, GENERATOR_TAG, graph),
    backEdgeShare: random(),
  };
}

/**
 * Number of back edges for a graph whose generator tree has `treeSize` services (the entry
 * included): from 1 to ⌊(treeSize − 1)/2⌋ (at least 1), chosen by `share` ∈ [0, 1). Many back
 * edges give many interlocking cycles; the generator allows at most treeSize − 1.
 */
export function backEdgeCount(share: number, treeSize: number): number {
  const most = Math.max(1, Math.floor((treeSize - 1) / 2));
  return 1 + Math.min(most - 1, Math.floor(share * most));
}

/**
 * Seed of configuration `configuration` of graph `graph` in a run seeded with `seed`: it drives
 * the configuration's draw and then its initial points.
 */
export function configurationSeed(seed: number, graph: number, configuration: number): number {
  return deriveSeed(seed, CONFIGURATION_TAG, graph, configuration);
}

/** Fewest and most services of a generated call graph of each kind. */
export const CALL_GRAPH_SIZE_RANGE = { mubench: [3, 30], dgg: [2, 7] } as const;

/** How call graph number `graph` of a run is generated: its generator, size and seed. */
export interface CallGraphPlan {
  /** `mubench` (a µBench-like tree with shared databases) or `dgg` (a small DGG-like DAG). */
  readonly kind: 'mubench' | 'dgg';
  /** Number of services, uniform in the kind's {@link CALL_GRAPH_SIZE_RANGE}. */
  readonly services: number;
  /** Seed to hand the generator. */
  readonly generatorSeed: number;
}

/**
 * The plan of call graph `graph` in a run seeded with `seed`: either generator with probability
 * 1/2, then a size uniform in its range. A stream of its own, so the call-graph form of a seed
 * shares nothing with its routing form. Depends only on the two.
 */
export function callGraphPlan(seed: number, graph: number): CallGraphPlan {
  const random = seededRandom(deriveSeed(seed, CALL_GRAPH_TAG, graph));
  const kind = random() < 0.5 ? 'mubench' : 'dgg';
  const [least, most] = CALL_GRAPH_SIZE_RANGE[kind];
  return {
    kind,
    services: least + Math.floor(random() * (most - least + 1)),
    generatorSeed: deriveSeed(seed, GENERATOR_TAG, graph),
  };
}
