/**
 * Network files: one schema, parsed from YAML or JSON, with errors that name the file, the line,
 * the place and what was expected.
 *
 * @example
 * ```ts
 * import { loadNetworkFile, isSpecError } from 'difftry/spec';
 * const network = await loadNetworkFile('examples/two-tier.yaml');
 * ```
 * @module
 */
export { BUILTIN_EXAMPLE_NAMES, builtinExample } from './examples.js';
export * from './generators/index.js';
export { ROUTE_SUM_TOLERANCE } from './networkRules.js';
export { loadNetworkFile, parseNetwork } from './parseNetwork.js';
export {
  isSpecError,
  SpecError,
  type SpecErrorCode,
  type SpecIssue,
  type SpecIssueInit,
  specIssue,
} from './SpecError.js';
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
  networkSpecSchema,
  type RouteSpec,
  routeSchema,
  type ServiceSpec,
  type ServiceTimeSpec,
  serviceSchema,
  serviceTimeSchema,
} from './schema.js';
export { classBackoff, type NetworkOverrides, toNetworkModel } from './toNetworkModel.js';
