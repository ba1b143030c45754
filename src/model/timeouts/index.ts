/**
 * Sequential timeouts (docs/design.md "Timeouts"): latency laws, the cost of a timeout sequence and
 * the Optimizer that chooses one.
 */
export {
  bestSingleTimeout,
  geometricPoints,
  type SingleTimeoutOptimum,
} from './bestSingleTimeout.js';
export {
  CEILING_OBSERVED_FACTOR,
  CEILING_PERCENTILE_FACTOR,
  ceilingTimeout,
} from './ceilingTimeout.js';
export {
  type EmpiricalLatency,
  type EmpiricalLatencyOptions,
  empiricalLatency,
  FALLBACK_BANDWIDTH,
  logSilvermanBandwidth,
} from './empiricalLatency.js';
export { exponentialLatency } from './exponentialLatency.js';
export { type KaplanMeierEstimate, kaplanMeier } from './kaplanMeier.js';
export type { AttemptCost, LatencyDistribution, LatencySample } from './LatencyDistribution.js';
export { DEFAULT_COST_SLOPE, linearCost } from './linearCost.js';
export {
  DEFAULT_GRID_SIZE,
  type LogKernelLatency,
  type LogKernelOptions,
  logKernelLatency,
  MIN_BANDWIDTH_STEPS,
} from './logKernelLatency.js';
export { type LognormalLatencyOptions, lognormalLatency } from './lognormalLatency.js';
export { type LatencyComponent, mixtureLatency } from './mixtureLatency.js';
export {
  DEFAULT_SEEDS,
  type OptimizedTimeouts,
  type OptimizeTimeoutsOptions,
  optimizeTimeouts,
  type TimeoutNode,
} from './optimizeTimeouts.js';
export { checkSequence, type SequenceLatency, sequenceLatency } from './sequenceLatency.js';
export { type AttemptOutcomeCost, singleTimeout } from './singleTimeout.js';
