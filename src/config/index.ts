/**
 * Network files and sidecar configs (`difftry/config`, also `difftry/spec`, its earlier name): one
 * schema module, parsed from YAML or JSON, with errors that name the file, the line, the place and
 * what was expected; the network generators; the analysis's model of a file (`toNetworkModel`)
 * and the one hop resolver (`resolveHops`). What a file deploys as (sidecar configs, mesh
 * configurations) is `difftry/deploy`.
 *
 * In a browser, a bundler takes it from its `browser` entry instead (`browser.ts`): the same but
 * for what reads files.
 *
 * @example
 * ```ts
 * import { loadNetworkFile, isSpecError } from 'difftry/config';
 * const network = await loadNetworkFile('examples/two-tier.yaml');
 * ```
 * @module
 */

export * from './browser.js';
export { BUILTIN_EXAMPLE_NAMES, builtinExample } from './examples.js';
export { loadNetworkFile } from './loadNetworkFile.js';
export { loadScheduleFile, parseSchedule } from './parseSchedule.js';
export {
  checkSidecarConfig,
  loadSidecarConfigFile,
  parseSidecarConfig,
} from './parseSidecarConfig.js';
