import { parseSpecDocument, type SpecKind, validateSpecValue } from './parseSpecDocument.js';
import { readSpecFile } from './readSpecFile.js';
import { type SidecarConfig, sidecarConfigSchema } from './sidecarSchema.js';

const SIDECAR: SpecKind = {
  expected: 'a sidecar config: a mapping with service, classes and inbound or outbound',
  noun: 'a sidecar config',
};

/**
 * Parses and validates the text of a sidecar config, YAML or JSON, with the network files'
 * machinery: every problem is one line naming the file, line, column, place and what was expected.
 * Defaults are applied as docs/mesh.md lists them.
 *
 * @param text the whole file
 * @param fileName how error messages name the file
 * @throws {SpecError} `DIFFTRY_SPEC_SYNTAX` if the text is not YAML or JSON,
 *   `DIFFTRY_SPEC_INVALID` if it is not a valid sidecar config.
 * @example
 * ```ts
 * const config = parseSidecarConfig(await readFile('sidecar.yaml', 'utf8'), 'sidecar.yaml');
 * parseSidecarConfig('service: a\nclasses: []', 'x.yaml');
 * // throws SpecError: x.yaml:2:10: classes: expected a non-empty list of classes, got []
 * ```
 */
export function parseSidecarConfig(text: string, fileName: string): SidecarConfig {
  return parseSpecDocument(sidecarConfigSchema, SIDECAR, text, fileName);
}

/**
 * Validates a sidecar config built in code and applies its defaults; problems are reported as by
 * {@link parseSidecarConfig}, without lines, the place named from `source`.
 * @throws {SpecError} `DIFFTRY_SPEC_INVALID`.
 */
export function checkSidecarConfig(value: unknown, source = 'sidecar config'): SidecarConfig {
  return validateSpecValue(sidecarConfigSchema, value, source);
}

/**
 * Reads a sidecar config file (UTF-8, YAML or JSON) and parses it with {@link parseSidecarConfig}.
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE` if the file cannot be read, or as
 *   {@link parseSidecarConfig} throws.
 */
export async function loadSidecarConfigFile(path: string): Promise<SidecarConfig> {
  return parseSidecarConfig(await readSpecFile(path, 'a readable sidecar config file'), path);
}
