import { networkSpecSchema } from './networkSpecSchema.js';
import { parseSpecDocument } from './parseSpecDocument.js';
import type { NetworkSpec } from './schema.js';

/**
 * Parses and validates the text of a network file, YAML or JSON (JSON is YAML, so one parser
 * reads both and gives every problem a line and column).
 *
 * Defaults are applied as described on {@link NetworkSpec}. Rates are in requests per second.
 *
 * @param text the whole file
 * @param fileName how error messages name the file
 * @returns the network, valid against the schema and its cross-field rules
 * @throws {SpecError} `DIFFTRY_SPEC_SYNTAX` if the text is not YAML or JSON,
 *   `DIFFTRY_SPEC_INVALID` if it is not a valid network; its message is one line naming the
 *   first problem in document order, its `issues` list them all.
 *
 * @example
 * ```ts
 * const text = [
 *   'classes: [{ name: high, retries: 5 }, { name: low, retries: 1 }]',
 *   'services:',
 *   '  - { name: frontend, capacity: 143, queue: 50, arrivals: { high: 50, low: 250 } }',
 * ].join('\n');
 * parseNetwork(text, 'net.yaml').model; // 'mixed', the default
 *
 * parseNetwork(text.replace('143', '-3'), 'net.yaml');
 * // throws SpecError: net.yaml:3:33: services[0].capacity: expected a positive number
 * // (requests/s), got -3
 * ```
 */
export function parseNetwork(text: string, fileName: string): NetworkSpec {
  return parseSpecDocument(
    networkSpecSchema,
    { expected: 'a network: a mapping with classes and services', noun: 'a network file' },
    text,
    fileName,
  );
}
