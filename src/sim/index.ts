/**
 * The discrete-event simulator: an engine in virtual time, the single-service
 * simulation of DiffTry's model with retries, the network simulator (routing and call-graph
 * modes, every hop driven by the runtime's policy objects), and confidence intervals over
 * replications.
 * @module
 */

export type {
  LoadChange,
  LoadSchedule,
  ScheduledMultiplier,
  ScheduleNetwork,
} from '../model/network/LoadSchedule.js';
export {
  type ResolvedLoadSchedule,
  resolveLoadSchedule,
  type ScheduleProblem,
} from '../model/network/resolveLoadSchedule.js';
export { type MeanWithCi95, meanWithCi95 } from '../stats/confidence.js';
export {
  type EventHandler,
  Simulation,
  type SimulationOptions,
  type SimulationProgress,
} from './engine/Simulation.js';
export type {
  NetworkSimulationResult,
  SimulatedEndToEnd,
  SimulatedLoad,
  SimulatedService,
  SimulatedServiceClass,
} from './network/NetworkSimulationResult.js';
export {
  type ReplicatedEndToEnd,
  type ReplicatedNetworkResult,
  type ReplicatedService,
  type ReplicatedServiceClass,
  replicateNetwork,
} from './network/replicateNetwork.js';
export { type ReplicatedWindow, replicateWindows } from './network/replicateWindows.js';
export { replicateWithProgress } from './network/replicateWithProgress.js';
export type {
  SimulatedWindow,
  WindowFigures,
  WindowServiceFigures,
} from './network/SimulatedWindow.js';
export {
  type NetworkPolicyOptions,
  type SimulateNetworkOptions,
  simulateNetwork,
} from './network/simulateNetwork.js';
export { NETWORK_STRATEGIES, type NetworkStrategy } from './network/strategy.js';
export {
  type ReplicatedClassMeasurement,
  type ReplicatedSingleServiceResult,
  type ReplicateOptions,
  replicateSingleService,
  type WithCi95,
} from './replicate.js';
export type { SingleServiceClass, SingleServiceConfig } from './SingleServiceConfig.js';
export type {
  ClassMeasurement,
  ServiceMeasurement,
  SingleServiceResult,
} from './SingleServiceResult.js';
export { type SimulateOptions, simulateSingleService } from './singleService.js';
