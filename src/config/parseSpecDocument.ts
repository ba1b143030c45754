import {
  type Document,
  isAlias,
  isCollection,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
} from 'yaml';
import type { z } from 'zod';
import { describeIssue } from './describeIssue.js';
import { formatPath } from './formatPath.js';
import { SpecError, type SpecIssue, specIssue } from './SpecError.js';
import { sourceRange } from './sourceRange.js';

/** What a kind of file is, for the messages about it as a whole. */
export interface SpecKind {
  /** The whole file as expected: `a sidecar config: a mapping with service and classes`. */
  readonly expected: string;
  /** The file in a short phrase: `a sidecar config`. */
  readonly noun: string;
}

/**
 * Parses the text of a YAML or JSON file with a zod schema and reports its problems as the network
 * files do: one {@link SpecError} whose message is one line naming the file, the line and column,
 * the place and what was expected, the first problem in document order first. `parseNetwork`
 * and `parseSidecarConfig` are this with their schemas; any schema built with `described`
 * fields works.
 *
 * @throws {SpecError} `DIFFTRY_SPEC_SYNTAX` if the text is not YAML or JSON,
 *   `DIFFTRY_SPEC_INVALID` if it does not satisfy the schema.
 */
export function parseSpecDocument<S extends z.ZodType>(
  schema: S,
  kind: SpecKind,
  text: string,
  fileName: string,
): z.output<S> {
  const lineCounter = new LineCounter();
  // logLevel 'error': the yaml library must never print a warning of its own on stderr (a key
  // that converts to an object, `!!binary k: 1`), where the CLI promises one line.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'error' });
  const place = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const syntaxError = (reason: string, offset: number | undefined, cause: unknown) =>
    SpecError.of(
      {
        code: 'DIFFTRY_SPEC_SYNTAX',
        file: fileName,
        ...place(offset),
        expected: 'valid YAML or JSON',
        problem: `not valid YAML or JSON: ${shortReason(reason)}`,
      },
      { cause },
    );

  const [firstSyntaxError] = doc.errors;
  if (firstSyntaxError !== undefined) {
    const reason =
      firstSyntaxError.code === 'MULTIPLE_DOCS'
        ? `more than one document (${kind.noun} holds one)`
        : firstSyntaxError.message;
    throw syntaxError(reason, firstSyntaxError.pos[0], firstSyntaxError);
  }
  if (doc.contents === null) {
    throw SpecError.of({
      code: 'DIFFTRY_SPEC_INVALID',
      file: fileName,
      ...place(0),
      expected: kind.expected,
      problem: `expected ${kind.expected}, got an empty file`,
    });
  }
  const collectionKey = firstCollectionKey(doc);
  if (collectionKey !== undefined) {
    // toJS would stringify the key and print a Node warning on stderr besides the one line.
    throw SpecError.of({
      code: 'DIFFTRY_SPEC_INVALID',
      file: fileName,
      ...place(collectionKey.offset),
      expected: 'a plain key (a name)',
      problem: `expected a plain key (a name), got a ${collectionKey.kind} as a key`,
    });
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // An alias to an anchor that does not exist, or too many aliases (a "billion laughs").
    const reason = error instanceof Error ? error.message : String(error);
    throw syntaxError(reason, firstAliasOffset(doc), error);
  }
  return validate(schema, data, fileName, (path, at) => {
    const range = sourceRange(doc, path, at === 'key' ? 'key' : 'value');
    // A missing field is shown at the start of its mapping but ranked at its end, after the
    // problems inside it: a misspelt field explains a missing one, not the reverse. A problem
    // of the whole file (a rule across sections) ranks after every problem of a part of it.
    const rank =
      range === undefined || path.length === 0 ? undefined : range[at === 'missing' ? 1 : 0];
    return { ...place(range?.[0]), rank };
  });
}

/**
 * Validates a value built in code (not read from a file) with a zod schema, reporting problems
 * like {@link parseSpecDocument} but without lines: `sidecar config: inbound.capacity: expected …`.
 * @throws {SpecError} `DIFFTRY_SPEC_INVALID`.
 */
export function validateSpecValue<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: string,
): z.output<S> {
  return validate(schema, value, source, () => ({ rank: undefined }));
}

interface Placement {
  readonly line?: number;
  readonly column?: number;
  /** Where the problem sorts in the document; undefined sorts last. */
  readonly rank: number | undefined;
}

function validate<S extends z.ZodType>(
  schema: S,
  data: unknown,
  fileName: string,
  placeOf: (path: readonly PropertyKey[], at: 'key' | 'value' | 'missing') => Placement,
): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const located = result.error.issues
    .flatMap((issue) => describeIssue(issue, schema, data))
    .map((described, order) => ({
      described,
      order,
      placement: placeOf(described.path, described.at),
    }))
    // Document order; a problem without a place goes last, and ties keep the schema's order.
    .sort(
      (a, b) =>
        (a.placement.rank ?? Number.POSITIVE_INFINITY) -
          (b.placement.rank ?? Number.POSITIVE_INFINITY) || a.order - b.order,
    );
  const issues: SpecIssue[] = located.map(({ described, placement }) =>
    specIssue({
      code: 'DIFFTRY_SPEC_INVALID',
      file: fileName,
      line: placement.line,
      column: placement.column,
      path: formatPath(described.path),
      expected: described.expected,
      problem: described.problem,
    }),
  );
  const [first, ...rest] = issues;
  // zod reports at least one issue whenever it fails; this keeps the type honest.
  if (first === undefined) throw new Error('difftry: schema failed without an issue');
  throw new SpecError([first, ...rest], { cause: result.error });
}

/** The first line of a parser message, without a trailing period. */
function shortReason(message: string): string {
  return (message.split('\n', 1)[0] ?? message).replace(/\.$/, '').trim();
}

/**
 * The first mapping key that is itself a list or a mapping (`? [a]: 1`, `{[a]: 1}`, an alias to
 * one), which no JSON object can hold, with where it starts; undefined when every key is plain.
 */
function firstCollectionKey(
  doc: Document,
): { readonly offset: number | undefined; readonly kind: 'list' | 'mapping' } | undefined {
  let found: { offset: number | undefined; kind: 'list' | 'mapping' } | undefined;
  visit(doc, {
    Pair(_key, pair) {
      const key = isAlias(pair.key) ? pair.key.resolve(doc) : pair.key;
      if (!isCollection(key)) return undefined;
      const offset = (isAlias(pair.key) ? pair.key.range : key.range)?.[0];
      found = { offset, kind: isSeq(key) ? 'list' : 'mapping' };
      return visit.BREAK;
    },
  });
  return found;
}

function firstAliasOffset(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) === undefined) {
        offset = node.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}
