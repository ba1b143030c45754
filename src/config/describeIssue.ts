import { z } from 'zod';
import { customIssueParams } from './customIssue.js';
import { expectationText, type FieldMeta, fieldMeta, missingFieldText } from './fieldMeta.js';
import { formatValue } from './formatValue.js';

/** One problem of a network file, in words, not yet placed at a line. */
export interface DescribedIssue {
  /** Where in the parsed value: `['services', 0, 'capacity']`. */
  readonly path: readonly PropertyKey[];
  /** The whole problem: `expected a positive number (requests/s), got -3`. */
  readonly problem: string;
  /** What would have been valid: `a positive number (requests/s)`. */
  readonly expected: string;
  /**
   * What the problem is about: the key at the end of `path` (an unknown field), its value, or a
   * field that is missing from the mapping `path` leads into.
   */
  readonly at: 'key' | 'value' | 'missing';
}

/**
 * Puts a zod issue raised by `schema` on `data` into domain words, from the {@link fieldMeta} of
 * the field it concerns and the value found there. An issue about several unknown keys becomes
 * one problem per key.
 */
export function describeIssue(
  issue: z.core.$ZodIssue,
  schema: z.core.$ZodType,
  data: unknown,
): DescribedIssue[] {
  const { path } = issue;
  switch (issue.code) {
    case 'custom': {
      const params = customIssueParams(issue.params);
      if (params !== undefined) {
        return [
          { path, problem: issue.message, expected: params.expected, at: params.at ?? 'value' },
        ];
      }
      break;
    }
    case 'unrecognized_keys': {
      const known = knownFields(schema, path, data);
      return issue.keys.map((key) => unknownField([...path, key], key, known));
    }
    case 'invalid_union':
      // A discriminated union whose discriminator matches no option: the path already ends at it.
      if (issue.discriminator !== undefined && 'options' in issue && issue.options !== undefined) {
        return [valueProblem(path, { expected: `one of ${issue.options.join(', ')}` }, data)];
      }
      break;
    default:
      break;
  }
  const meta = metaAt(schema, path, data);
  // Every field of the network schema is described; zod's own words are the last resort.
  if (meta === undefined)
    return [{ path, problem: issue.message, expected: issue.message, at: 'value' }];
  return [valueProblem(path, meta, data)];
}

function valueProblem(
  path: readonly PropertyKey[],
  meta: FieldMeta,
  data: unknown,
): DescribedIssue {
  const found = lookup(data, path);
  const field = path.at(-1);
  if (!found.present && field !== undefined) {
    const expected = missingFieldText(String(field), meta);
    return { path, problem: `missing field: expected ${expected}`, expected, at: 'missing' };
  }
  if (typeof found.value === 'number' && !Number.isFinite(found.value)) {
    const expected = 'a finite number';
    return {
      path,
      problem: `expected ${expected}, got ${formatValue(found.value)}`,
      expected,
      at: 'value',
    };
  }
  const expected = expectationText(meta);
  return {
    path,
    problem: `expected ${expected}, got ${formatValue(found.value)}`,
    expected,
    at: 'value',
  };
}

function unknownField(
  path: readonly PropertyKey[],
  key: string,
  known: readonly string[],
): DescribedIssue {
  const expected = `a known field (${known.join(', ')})`;
  const suggestion = closest(key, known);
  const problem =
    suggestion === undefined
      ? `unknown field ${formatValue(key)}, expected one of ${known.join(', ')}`
      : `unknown field ${formatValue(key)} (did you mean ${formatValue(suggestion)}?)`;
  return { path, problem, expected, at: 'key' };
}

/** The value at `path` in `data`, and whether it is there at all (a missing field is not). */
function lookup(data: unknown, path: readonly PropertyKey[]): { value: unknown; present: boolean } {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) {
      return { value: undefined, present: false };
    }
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return { value, present: true };
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let inner = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap();
  return inner;
}

/** The option of a discriminated union that `value`'s discriminator selects. */
function selectedOption(schema: z.core.$ZodType, value: unknown): z.core.$ZodType | undefined {
  if (!(schema instanceof z.ZodDiscriminatedUnion)) return schema;
  if (typeof value !== 'object' || value === null) return undefined;
  const { discriminator } = schema.def;
  const tag = (value as Record<string, unknown>)[discriminator];
  return schema.options.find(
    (option) =>
      option instanceof z.ZodObject && option.shape[discriminator]?.safeParse(tag).success === true,
  );
}

/** The schema of the field at `path`, following the value to pick union options. */
function schemaAt(
  root: z.core.$ZodType,
  path: readonly PropertyKey[],
  data: unknown,
): z.core.$ZodType | undefined {
  let schema: z.core.$ZodType | undefined = root;
  let value = data;
  for (const segment of path) {
    const current = selectedOption(unwrap(schema), value);
    if (current instanceof z.ZodObject && typeof segment === 'string') {
      schema = current.shape[segment];
    } else if (current instanceof z.ZodArray) schema = current.element;
    else if (current instanceof z.ZodRecord) schema = current.valueType;
    else return undefined;
    if (schema === undefined) return undefined;
    value = lookup(value, [segment]).value;
  }
  return schema;
}

function metaAt(
  root: z.core.$ZodType,
  path: readonly PropertyKey[],
  data: unknown,
): FieldMeta | undefined {
  let schema = schemaAt(root, path, data);
  while (schema !== undefined) {
    const meta = fieldMeta.get(schema);
    if (meta !== undefined) return meta;
    schema =
      schema instanceof z.ZodDefault || schema instanceof z.ZodOptional
        ? schema.unwrap()
        : undefined;
  }
  return undefined;
}

function knownFields(root: z.core.$ZodType, path: readonly PropertyKey[], data: unknown): string[] {
  const schema = schemaAt(root, path, data);
  const object = schema && selectedOption(unwrap(schema), lookup(data, path).value);
  return object instanceof z.ZodObject ? Object.keys(object.shape) : [];
}

/** The known field a typo most likely meant: at most two edits away, or equal ignoring case. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance =
      candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions each count 1. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution);
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}
