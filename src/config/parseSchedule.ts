import type { ScheduleNetwork } from '../model/network/LoadSchedule.js';
import { parseSpecDocument } from './parseSpecDocument.js';
import { readSpecFile } from './readSpecFile.js';
import { type ScheduleSpec, scheduleSchema } from './scheduleSchema.js';

/**
 * Parses and validates the text of a schedule file (YAML or JSON) for a network: changes of its
 * arrival rates and capacities over virtual time, as multipliers of the network file's own.
 *
 * ```yaml
 * changes:
 *   - { at: 100, until: 110, service: search, capacity: 0.3 }   # a step on [100 s, 110 s)
 *   - { at: 0, until: 300, service: frontend, class: low, arrivals: { from: 1, to: 2 } }  # a ramp
 * ```
 *
 * Times are seconds of virtual time since the run began (warm-up included); outside every
 * change a multiplier is 1. The names are checked against `network` (a `NetworkModel` will do).
 *
 * @param text the whole file
 * @param fileName how error messages name the file
 * @throws {SpecError} `DIFFTRY_SPEC_SYNTAX` if the text is not YAML or JSON,
 *   `DIFFTRY_SPEC_INVALID` if it is not a valid schedule for the network; its message is one line
 *   naming the file, line and column, the place and what was expected.
 *
 * @example
 * ```ts
 * const network = toNetworkModel(parseNetwork(networkText, 'net.yaml'));
 * const schedule = parseSchedule('changes: [{ at: 100, until: 110, service: serch, capacity: 0.3 }]', 'drop.yaml', network);
 * // throws SpecError: drop.yaml:1:48: changes[0].service: expected a service of the network
 * // (frontend, search), got "serch"
 * simulateNetwork(network, { duration: 300, seed: 1, schedule, windowSeconds: 10 });
 * ```
 */
export function parseSchedule(
  text: string,
  fileName: string,
  network: ScheduleNetwork,
): ScheduleSpec {
  return parseSpecDocument(
    scheduleSchema(network),
    { expected: 'a schedule: a mapping with changes', noun: 'a schedule file' },
    text,
    fileName,
  );
}

/**
 * Reads a schedule file (UTF-8, YAML or JSON) and parses it with {@link parseSchedule}.
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE` if the file cannot be read, or as
 *   {@link parseSchedule} throws.
 * @example
 * ```ts
 * const schedule = await loadScheduleFile('examples/capacity-drop.yaml', network);
 * ```
 */
export async function loadScheduleFile(
  path: string,
  network: ScheduleNetwork,
): Promise<ScheduleSpec> {
  return parseSchedule(await readSpecFile(path, 'a readable schedule file'), path, network);
}
