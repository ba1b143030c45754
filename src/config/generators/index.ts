/**
 * Seeded network generators: pure functions from options (and a seed or an injected random
 * source) to a valid `NetworkSpec`, for analysing networks beyond the hand-written ones.
 *
 * Common to every kind: all external arrivals enter at `frontend` (300 requests/s by default,
 * split 1 : 5 between `high` and `low`, or evenly among `c1` … `cP`); retry limits fall from 5
 * by 2 per class (5, 3, 1, 0, …, the lowest of several classes at most 1); no backoff (the
 * default applies); each service gets a queue m from {10, 20, 50, 100} and a capacity
 * μ = visits × arrival rate / u for a target utilisation u drawn in [0.3, 1.6], so the network is
 * moderately loaded and some services are overloaded; `model: mixed`; numbers have 4
 * significant digits.
 *
 * @example
 * ```ts
 * import { stringify } from 'yaml';
 * import { compactNetwork, generateNetwork } from './spec/generators/index.js';
 * const text = stringify(compactNetwork(generateNetwork('mubench', { services: 20, seed: 3 })));
 * ```
 * @module
 */

export { QUEUE_SIZES, UTILISATION_RANGE } from './assembleNetwork.js';
export { compactNetwork } from './compactNetwork.js';
export { DGG_MAX_DEPTH, DGG_MAX_FAN_OUT } from './dggTopology.js';
export { ROUTE_SUM_RANGE } from './edgeWeights.js';
export {
  DEFAULT_ARRIVAL_RATE,
  EDGE_FORMS,
  type EdgeForm,
  type FormOptions,
  MAX_GENERATED_CLASSES,
  MAX_GENERATED_SERVICES,
  type NetworkGeneratorOptions,
} from './GeneratorOptions.js';
export { CYCLIC_MAX_ROUTE_SUM, type CyclicOptions, generateCyclic } from './generateCyclic.js';
export { DGG_SERVICE_RANGE, type DggOptions, generateDgg } from './generateDgg.js';
export { generateMuBench, type MuBenchOptions } from './generateMuBench.js';
export {
  type GenerateNetworkOptions,
  generateNetwork,
  isNetworkKind,
  NETWORK_KINDS,
  type NetworkKind,
} from './generateNetwork.js';
