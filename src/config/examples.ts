import { readFileSync } from 'node:fs';
import { BUILTIN_EXAMPLE_FILES } from './builtinExampleFiles.js';
import { formatValue } from './formatValue.js';
import { SpecError } from './SpecError.js';

/** The names {@link builtinExample} accepts: `single`, `two-tier`, `hotel`, `hotel-calls`. */
export const BUILTIN_EXAMPLE_NAMES: readonly string[] = Object.freeze(
  Object.keys(BUILTIN_EXAMPLE_FILES),
);

/**
 * A network file shipped with difftry (the package's `examples/` folder, found relative to this
 * module, so it works wherever the package is installed), as text, for `--example NAME`. Parse
 * it with `parseNetwork(text, fileName)`.
 *
 * - `single`: `examples/single-service.yaml`, one service with two classes;
 * - `two-tier`: `examples/two-tier.yaml`, a commented three-service routing network;
 * - `hotel`: `examples/hotel.yaml`, DeathStarBench hotelReservation in routing form;
 * - `hotel-calls`: `examples/hotel-calls.yaml`, the same in call-graph form.
 *
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE`, listing the available names, for an unknown name.
 *
 * @example
 * ```ts
 * const { fileName, text } = builtinExample('single');
 * const network = parseNetwork(text, fileName);
 * ```
 */
export function builtinExample(name: string): { fileName: string; text: string } {
  const file = Object.hasOwn(BUILTIN_EXAMPLE_FILES, name) ? BUILTIN_EXAMPLE_FILES[name] : undefined;
  if (file !== undefined) {
    const text = readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8');
    return { fileName: `examples/${file}`, text };
  }
  const expected = `a built-in example (${BUILTIN_EXAMPLE_NAMES.join(', ')})`;
  throw SpecError.of({
    code: 'DIFFTRY_SPEC_UNREADABLE',
    file: '',
    expected,
    problem: `expected ${expected}, got ${formatValue(name)}`,
  });
}
