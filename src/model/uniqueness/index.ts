/**
 * The numerical check of uniqueness of a network's fixed point (`difftry verify-uniqueness`):
 * random configurations of cyclic routing networks (or of call graphs), each solved from many
 * initial points, and the comparison of what they converge to. Pure: no I/O, no clock, seeded draws.
 */
export {
  backEdgeCount,
  CALL_GRAPH_SIZE_RANGE,
  type CallGraphPlan,
  callGraphPlan,
  configurationSeed,
  GRAPH_SIZE_RANGE,
  type GraphPlan,
  graphPlan,
} from './casePlan.js';
export {
  type CallCheckOptions,
  type CallConfigurationCheck,
  type CallFixedPointRun,
  type CallSolver,
  CONGESTED_START,
  checkCallConfiguration,
  type DistinctCallFixedPoints,
} from './checkCallConfiguration.js';
export {
  type CheckOptions,
  type ConfigurationCheck,
  checkConfiguration,
  INITIAL_SPREAD,
  type RoutingSolver,
} from './checkConfiguration.js';
export {
  checkStarts,
  type StartRun,
  type StartSolve,
  type StartsCheck,
  type StartsOptions,
} from './checkStarts.js';
export {
  DISTINCT_TOLERANCE,
  type DistinctFixedPoints,
  type DistinctPair,
  distinctPairFinder,
  type FixedPointRun,
  findDistinctFixedPoints,
  fixedPointDifference,
  largestRelativeDifference,
} from './compareFixedPoints.js';
export {
  type ConfigurationOptions,
  DEFAULT_MAX_CLASSES,
  DRAWN_QUEUES,
  MAX_CLASSES,
  MAX_DRAWN_RETRIES,
} from './configurationDraw.js';
export { deriveSeed } from './deriveSeed.js';
export { drawCallConfiguration } from './drawCallConfiguration.js';
export { drawConfiguration, drawConfigurationWithGuarantee } from './drawConfiguration.js';
export {
  addCheck,
  type CheckSummary,
  combineTallies,
  EMPTY_TALLY,
  tallyChecks,
  type UniquenessTally,
} from './UniquenessTally.js';
export {
  loadPolynomial,
  PHI_LAW_CODE,
  rejectionResidual,
  type WarmRejectionSolver,
  warmRejectionRoot,
  warmRejectionSolver,
} from './warmRejectionSolver.js';
export {
  FINAL_INNER_TOLERANCE,
  INNER_TOLERANCE_RATIO,
  WARM_INNER_TOLERANCE,
  WARM_LOOSEST_TOLERANCE,
  type WarmRoutingOptions,
  type WarmRoutingSolver,
  warmRoutingSolver,
} from './warmRoutingSolver.js';
