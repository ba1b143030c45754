/**
 * Choosing per-class retry limits: grid search over the network analysis, with constraints and
 * a Pareto frontier of objective against attempts per request.
 * @packageDocumentation
 */
export {
  type AssessContext,
  type AssessOptions,
  assessContext,
  assessMetrics,
  assessNetwork,
} from './assessNetwork.js';
export { paretoFrontier } from './paretoFrontier.js';
export {
  DEFAULT_RETRY_RANGE,
  gridPoint,
  gridSize,
  MAX_GRID_RETRY_LIMIT,
  type RetryRange,
  resolveGrid,
} from './RetryGrid.js';
export {
  CLASS_METRICS,
  CLASS_OR_TOTAL_METRICS,
  constraintExcess,
  constraintValue,
  describeConstraint,
  NETWORK_METRICS,
  needsClass,
  type ResolvedConstraint,
  relativeExcess,
  resolveConstraints,
  TUNE_METRICS,
  type TuneConstraint,
  type TuneMetric,
  takesClass,
} from './TuneConstraint.js';
export {
  externalRates,
  objectiveValue,
  type TuneMetrics,
  type TuneObjective,
  tuneMetrics,
} from './TuneMetrics.js';
export {
  comparable,
  compareByRetries,
  DEFAULT_SIGNIFICANT_DIGITS,
  type TunePoint,
  totalRetries,
} from './TunePoint.js';
export {
  DEFAULT_MAX_POINTS,
  type TuneOptions,
  type TuneResult,
  tuneRetryLimits,
} from './tuneRetryLimits.js';
