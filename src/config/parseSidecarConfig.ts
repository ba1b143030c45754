import { parseSpecDocument, type SpecKind, validateSpecValue } from './parseSpecDocument.js';
import { readSpecFile } from './readSpecFile.js';
import { SpecError } from './SpecError.js';
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

/** Where {@link parseEdgeValueList} read its text, for its one-line error. */
export interface EdgeValueListSource {
  /** How the message names the config (its file). */
  readonly file: string;
  /** The place in the config: `inbound.edge.rules[1].valueEnv`. */
  readonly path: string;
  /** The environment variable that held the text: `PREMIUM_KEYS`. */
  readonly variable: string;
}

/**
 * Splits the accepted values of an edge rule's `valueEnv` (API keys, comma-separated, spaces
 * around each trimmed). A blank entry (`k1,k2,`, `" "`, `k1, ,k2`) is refused rather than
 * skipped: it would accept a request whose header is present and empty, and a list written with
 * one is more likely a mistake (an unset variable spliced in) than a wish.
 *
 * The values are secrets, so the error names the variable and the entry's position (1-based),
 * never a value.
 * @throws {SpecError} `DIFFTRY_SPEC_INVALID` for a blank entry.
 * @example
 * ```ts
 * const at = { file: 'a.yaml', path: 'inbound.edge.rules[0].valueEnv', variable: 'KEYS' };
 * parseEdgeValueList('k1, k2', at); // ['k1', 'k2']
 * parseEdgeValueList('k1,,k2', at);
 * // throws SpecError: a.yaml: inbound.edge.rules[0].valueEnv: environment variable KEYS has a
 * // blank entry at position 2 of 3, expected comma-separated non-blank values
 * ```
 */
export function parseEdgeValueList(text: string, source: EdgeValueListSource): readonly string[] {
  const values = text.split(',').map((value) => value.trim());
  const blank = values.indexOf('');
  if (blank >= 0) {
    throw SpecError.of({
      code: 'DIFFTRY_SPEC_INVALID',
      file: source.file,
      path: source.path,
      expected: 'comma-separated non-blank values',
      problem: `environment variable ${source.variable} has a blank entry at position ${blank + 1} of ${values.length}, expected comma-separated non-blank values`,
    });
  }
  return values;
}
