/**
 * Network files and sidecar configs: one schema module, parsed from YAML or JSON, with errors that
 * name the file, the line, the place and what was expected; one network file gives every
 * sidecar's config (`sidecarsFromNetwork`).
 *
 * @example
 * ```ts
 * import { loadNetworkFile, isSpecError } from 'difftry/spec';
 * const network = await loadNetworkFile('examples/two-tier.yaml');
 * ```
 * @module
 */

export { ROUTE_SUM_TOLERANCE } from '../model/network/routeSumTolerance.js';
export { BUILTIN_EXAMPLE_NAMES, builtinExample } from './examples.js';
export * from './generators/index.js';
export { loadNetworkFile } from './loadNetworkFile.js';
export {
  applyOverrides,
  EVERY_CLASS,
  type NetworkOverrides,
} from './networkOverrides.js';
export { networkSpecSchema } from './networkSpecSchema.js';
export { parseNetwork } from './parseNetwork.js';
export { loadScheduleFile, parseSchedule } from './parseSchedule.js';
export {
  checkSidecarConfig,
  loadSidecarConfigFile,
  parseSidecarConfig,
} from './parseSidecarConfig.js';
export {
  type ClassDefaults,
  classBackoff,
  type Hop,
  hopOf,
  type ResolvedHops,
  resolveHops,
  type ServiceHops,
} from './resolveHops.js';
export {
  isSpecError,
  SpecError,
  type SpecErrorCode,
  type SpecIssue,
  type SpecIssueInit,
  specIssue,
} from './SpecError.js';
export { type QueueSetting, scaleToBottleneck } from './scaleToBottleneck.js';
export {
  type ScheduleChangeSpec,
  type ScheduleSpec,
  scheduleChangeSchema,
  scheduleSchema,
} from './scheduleSchema.js';
export {
  type BackoffSpec,
  backoffSchema,
  type CallSpec,
  type ClassSpec,
  callSchema,
  classSchema,
  MAX_RETRIES,
  type ModelName,
  modelNameSchema,
  type NetworkSpec,
  type NetworkSpecInput,
  type RouteSpec,
  routeSchema,
  type ServiceSpec,
  type ServiceTimeSpec,
  serviceSchema,
  serviceTimeSchema,
} from './schema.js';
export {
  DEFAULT_SIDECAR_LIMITS,
  type SidecarConfig,
  type SidecarConfigInput,
  sidecarConfigSchema,
} from './sidecarSchema.js';
export { type SidecarsFromNetworkOptions, sidecarsFromNetwork } from './sidecarsFromNetwork.js';
export { toNetworkModel } from './toNetworkModel.js';
