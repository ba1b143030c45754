/**
 * difftry/model: the analytical DiffTry model, pure math with no I/O.
 * @packageDocumentation
 */
export type { BackoffDescription } from './backoff/BackoffDescription.js';
export { DEFAULT_BACKOFF } from './backoff/BackoffDescription.js';
export {
  checkBackoff,
  type DelayLaw,
  drawRetryDelay,
  exponentialCap,
  MAX_DELAY_MS,
  retryDelayLaw,
} from './backoff/retryDelay.js';
export * from './distributions/index.js';
export {
  type AnalyzeOptions,
  analyzeNetwork,
  usesCallSolver,
  usesTimedRouting,
} from './network/analyzeNetwork.js';
export type { BranchesAlongSweep, SweptBranches } from './network/branchSweep.js';
export {
  type CallEquilibria,
  type CallEquilibrium,
  callEquilibria,
  DISTINCT_STATE,
} from './network/callEquilibria.js';
export type {
  NetworkBranch,
  NetworkCall,
  NetworkClass,
  NetworkModel,
  NetworkRoute,
  NetworkService,
} from './network/NetworkModel.js';
export type {
  EndToEndAnalysis,
  Equilibrium,
  NetworkLoad,
  NetworkReport,
  ServiceAnalysis,
  ServiceClassAnalysis,
} from './network/NetworkReport.js';
export { nominalLoads } from './network/nominalLoads.js';
export type { Swing } from './network/relaxCalls.js';
export {
  type RoutingEquilibria,
  type RoutingEquilibriaOptions,
  type RoutingEquilibrium,
  routingEquilibria,
} from './network/routingEquilibria.js';
export { type CallSolution, type CallSolveOptions, solveCalls } from './network/solveCalls.js';
export {
  INNER_TOLERANCE,
  type RoutingSolution,
  type RoutingSolveOptions,
  solveRouting,
} from './network/solveRouting.js';
export {
  type RoutingStructure,
  routingRows,
  routingStructure,
  type UniquenessGuarantee,
} from './network/structure.js';
export {
  type SweepEquilibria,
  type SweepEquilibriaOptions,
  type SweptEquilibria,
  sweepEquilibria,
} from './network/sweepEquilibria.js';
export {
  routingEquilibriaAt,
  type SweepRoutingEquilibriaOptions,
  sweepRoutingEquilibria,
} from './network/sweepRoutingEquilibria.js';
export type { TimedRoutingSolution } from './network/timedRoutingState.js';
export { sweepOrder, topologicalOrder } from './network/topology.js';
export { brentRoot, type RootResult } from './numeric/brent.js';
export { integrate } from './numeric/integrate.js';
export * from './phi/index.js';
export { mm1mMeanSojourn, mm1mSojournTail } from './queue/mm1mSojourn.js';
export {
  type TimedServiceLoad,
  timedOfferedLoad,
  timedServiceLoad,
} from './queue/timedServiceLoad.js';
export { type RandomSource, seededRandom } from './random.js';
export { residualAlpha } from './residual.js';
export { attemptsPerRequest, type RetryFlow, retryFlow } from './retryFlow.js';
export {
  attemptRejection,
  FIXED_POINT_TOLERANCE,
  type ResidualClosure,
  type ServiceClassLoad,
  type ServiceClassReport,
  type ServiceLoad,
  type ServiceReport,
  solveService,
} from './service.js';
export { erfc, normalCdf } from './special.js';
export * from './timeouts/index.js';
export * from './tune/index.js';
export * from './uniqueness/index.js';
