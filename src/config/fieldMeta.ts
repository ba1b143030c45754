import { z } from 'zod';

/**
 * What a field of a network file holds, in domain words, for error messages: the schema is the
 * one place that knows both the rule and how to explain it.
 *
 * @example
 * ```ts
 * const capacity = described(z.number().positive(), 'a positive number', 'requests/s');
 * // an error reads: "expected a positive number (requests/s), got -3"
 * ```
 */
export interface FieldMeta {
  /** What a valid value is: `a positive number`, `one of fluid, mm1m, mixed`. */
  readonly expected: string;
  /** Unit or role, shown in parentheses after `expected`: `requests/s`, `ms`. */
  readonly unit?: string;
}

/** The registry that holds a {@link FieldMeta} for every field schema of the network file. */
export const fieldMeta = z.registry<FieldMeta>();

/**
 * Registers how `schema` is explained in error messages and returns the same schema.
 *
 * Register the innermost schema (before `.optional()` or `.default()`): the message builder
 * unwraps those to find it.
 */
export function described<T extends z.ZodType>(schema: T, expected: string, unit?: string): T {
  fieldMeta.add(schema, unit === undefined ? { expected } : { expected, unit });
  return schema;
}

/** `a positive number (requests/s)`: the expectation as it follows "expected". */
export function expectationText(meta: FieldMeta): string {
  return meta.unit === undefined ? meta.expected : `${meta.expected} (${meta.unit})`;
}

/** `capacity (a positive number, requests/s)`: a missing field named with its expectation. */
export function missingFieldText(field: string, meta: FieldMeta | undefined): string {
  if (meta === undefined) return field;
  return meta.unit === undefined
    ? `${field} (${meta.expected})`
    : `${field} (${meta.expected}, ${meta.unit})`;
}
