/** Longest rendering of a value in an error message, in characters, before it is cut with `…`. */
const MAX_VALUE_LENGTH = 40;

/**
 * Renders a value found in a network file compactly for an error message: strings quoted,
 * numbers as they are (`NaN`, `-Infinity`), `nothing` for an absent value, and lists and mappings
 * as JSON cut to about 40 characters.
 *
 * @example
 * ```ts
 * formatValue('mm2'); // '"mm2"'
 * formatValue(-3); // '-3'
 * ```
 */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return truncate(JSON.stringify(value));
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint' || typeof value === 'boolean' || value === null) {
    return String(value);
  }
  return truncate(toJson(value));
}

/** A number rounded to 12 significant digits, so that `0.1 + 0.2` prints as `0.3`. */
export function formatNumber(value: number): string {
  return String(Number(value.toPrecision(12)));
}

function toJson(value: unknown): string {
  try {
    // JSON would print NaN and Infinity as null, which would hide the very problem reported.
    const json = JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
    );
    return json ?? String(value);
  } catch {
    // A YAML alias can make a value refer to itself.
    return Array.isArray(value) ? '[…]' : '{…}';
  }
}

function truncate(text: string): string {
  return text.length <= MAX_VALUE_LENGTH ? text : `${text.slice(0, MAX_VALUE_LENGTH - 1)}…`;
}
