/**
 * difftry: differential retries (DiffTry) for microservice networks.
 *
 * The package root gathers the entry points most users want; `difftry/model`, `difftry/sim` and
 * `difftry/spec` hold the rest.
 * @example
 * ```ts
 * import { solveService } from 'difftry';
 * solveService({ capacity: 143, queue: 50, classes: [{ arrivalRate: 50, retryLimit: 5 }] }).s;
 * ```
 * @packageDocumentation
 */
export type { BackoffDescription } from './model/backoff/BackoffDescription.js';
export { DEFAULT_BACKOFF } from './model/backoff/BackoffDescription.js';
export { analyzeNetwork } from './model/network/analyzeNetwork.js';
export type { NetworkModel } from './model/network/NetworkModel.js';
export type { NetworkReport } from './model/network/NetworkReport.js';
export type { ModelName } from './model/phi/Phi.js';
export { type RandomSource, seededRandom } from './model/random.js';
export { solveService } from './model/service.js';
export { replicateSingleService, simulateSingleService } from './sim/index.js';
export { isSpecError, loadNetworkFile, parseNetwork, SpecError } from './spec/index.js';
export { type NetworkOverrides, toNetworkModel } from './spec/toNetworkModel.js';
