/**
 * Adaptive per-try timeouts (docs/design.md, "Adaptive sequential timeouts"): the exponential baseline,
 * the Optimizer, the Controller, the Combined system and RFC 6298's RTO, each a
 * {@link TimeoutStrategy} from `policy/timeout`, and a factory from plain descriptions.
 */
export {
  type CombinedRequest,
  type CombinedState,
  type CombinedTimeouts,
  type CombinedTimeoutsOptions,
  combinedTimeouts,
} from './combinedTimeouts.js';
export {
  type ControllerPhase,
  type ControllerState,
  type ControllerTimeoutsOptions,
  controllerTimeouts,
} from './controllerTimeouts.js';
export {
  createTimeoutStrategy,
  type LinearCostDescription,
  type OptimizerDescription,
  type TimeoutEnvironment,
  type TimeoutStrategyDescription,
} from './createTimeoutStrategy.js';
export {
  type ExponentialBackoffState,
  type ExponentialBackoffTimeoutsOptions,
  exponentialBackoffTimeouts,
} from './exponentialBackoffTimeouts.js';
export type { InspectableTimeouts } from './InspectableTimeouts.js';
export {
  modelOptimizer,
  type OptimizeCost,
  type OptimizeRequest,
  type OptimizerState,
  type OptimizerTimeouts,
  type OptimizerTimeoutsOptions,
  optimizerTimeouts,
  type SampleWeights,
  type TimeoutOptimizer,
} from './optimizerTimeouts.js';
export { type RtoState, type RtoTimeoutsOptions, rtoTimeouts } from './rtoTimeouts.js';
