/**
 * `difftry/config` (alias `difftry/spec`) in a browser: everything of it that reads no file,
 * which is what the package's `browser` export condition gives a bundler (vite, webpack, esbuild
 * for the browser). Left out, since they import `node:fs`: `loadNetworkFile`,
 * `loadScheduleFile`, `loadSidecarConfigFile` and `builtinExample` (with `BUILTIN_EXAMPLE_NAMES`),
 * and `parseSchedule`, `parseSidecarConfig` and `checkSidecarConfig`, whose modules hold a loader
 * too. A page parses the text it has with `parseNetwork` (the built-in examples' files are
 * {@link BUILTIN_EXAMPLE_FILES}).
 *
 * @example
 * ```ts
 * import { isSpecError, parseNetwork, toNetworkModel } from 'difftry/config';
 * const model = toNetworkModel(parseNetwork(text, 'network.yaml'));
 * ```
 * @module
 */

export { ROUTE_SUM_TOLERANCE } from '../model/network/routeSumTolerance.js';
export { BUILTIN_EXAMPLE_FILES } from './builtinExampleFiles.js';
export * from './generators/index.js';
export {
  applyOverrides,
  EVERY_CLASS,
  type NetworkOverrides,
} from './networkOverrides.js';
export { networkSpecSchema } from './networkSpecSchema.js';
export { parseLatencySamples } from './parseLatencySamples.js';
export { parseNetwork } from './parseNetwork.js';
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
export { toNetworkModel } from './toNetworkModel.js';
