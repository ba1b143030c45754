/**
 * Network files and sidecar configs: one schema module, parsed from YAML or JSON, with errors that
 * name the file, the line, the place and what was expected; one network file gives every
 * sidecar's config (`sidecarsFromNetwork`).
 *
 * In a browser, a bundler takes `difftry/spec` from its `browser` entry instead (`browser.ts`):
 * the same but for what reads files.
 *
 * @example
 * ```ts
 * import { loadNetworkFile, isSpecError } from 'difftry/spec';
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
