/**
 * The numerical check of uniqueness of a routing network's fixed point (`difftry
 * verify-uniqueness`): random configurations of cyclic networks, each solved from many initial
 * points, and the comparison of what they converge to. Pure: no I/O, no clock, seeded draws.
 */
export {
  backEdgeCount,
  configurationSeed,
  GRAPH_SIZE_RANGE,
  type GraphPlan,
  graphPlan,
} from './casePlan.js';
export {
  type CheckOptions,
  type ConfigurationCheck,
  checkConfiguration,
  INITIAL_SPREAD,
  type RoutingSolver,
} from './checkConfiguration.js';
export {
  DISTINCT_TOLERANCE,
  type DistinctFixedPoints,
  type FixedPointRun,
  findDistinctFixedPoints,
  fixedPointDifference,
} from './compareFixedPoints.js';
export { deriveSeed } from './deriveSeed.js';
export {
  type ConfigurationOptions,
  DEFAULT_MAX_CLASSES,
  DRAWN_QUEUES,
  drawConfiguration,
  MAX_CLASSES,
  MAX_DRAWN_RETRIES,
} from './drawConfiguration.js';
export { addCheck, EMPTY_TALLY, tallyChecks, type UniquenessTally } from './UniquenessTally.js';
