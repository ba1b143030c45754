import { parseNetwork } from './parseNetwork.js';
import { readSpecFile } from './readSpecFile.js';
import type { NetworkSpec } from './schema.js';

/**
 * Reads a network file (UTF-8, YAML or JSON) and parses it with {@link parseNetwork}.
 *
 * @param path the file; error messages name it as given
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE` if the file cannot be read, or as
 *   {@link parseNetwork} throws.
 *
 * @example
 * ```ts
 * const network = await loadNetworkFile('examples/two-tier.yaml');
 * ```
 */
export async function loadNetworkFile(path: string): Promise<NetworkSpec> {
  return parseNetwork(await readSpecFile(path, 'a readable network file'), path);
}
