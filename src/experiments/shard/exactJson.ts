/**
 * JSON that gives back exactly the numbers it was given, for results written by one process and
 * read by another (`--shard I/N`, then `difftry merge`): plain JSON writes NaN and ±Infinity as
 * `null` and −0 as `0`, so a merged run would print differently from the whole run. Those four
 * values are written as `{ "$number": "NaN" }` (`"Infinity"`, `"-Infinity"`, `"-0"`); every other
 * number round-trips through JSON's shortest decimal form unchanged.
 * @example
 * ```ts
 * fromExactJson(toExactJson({ gap: Number.NaN })); // { gap: NaN }
 * ```
 */

/** The key of an encoded number: no result of difftry has an object with this key. */
const NUMBER_KEY = '$number';

const ENCODED: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
  '-0': -0,
};

function encode(_key: string, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  if (Number.isNaN(value)) return { [NUMBER_KEY]: 'NaN' };
  if (value === Number.POSITIVE_INFINITY) return { [NUMBER_KEY]: 'Infinity' };
  if (value === Number.NEGATIVE_INFINITY) return { [NUMBER_KEY]: '-Infinity' };
  if (Object.is(value, -0)) return { [NUMBER_KEY]: '-0' };
  return value;
}

function decode(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== NUMBER_KEY) return value;
  const text = (value as Record<string, unknown>)[NUMBER_KEY];
  return typeof text === 'string' && text in ENCODED ? ENCODED[text] : value;
}

/** `value` as JSON in which every number reads back exactly (see the module). */
export function toExactJson(value: unknown, space?: number): string {
  return JSON.stringify(value, encode, space);
}

/**
 * Reads {@link toExactJson}'s text back.
 * @throws {SyntaxError} when the text is not JSON.
 */
export function fromExactJson(text: string): unknown {
  return JSON.parse(text, decode);
}
