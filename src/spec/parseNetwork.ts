import { readFile } from 'node:fs/promises';
import { type Document, LineCounter, parseDocument, visit } from 'yaml';
import { describeIssue } from './describeIssue.js';
import { formatPath } from './formatPath.js';
import { SpecError, type SpecIssue, specIssue } from './SpecError.js';
import { type NetworkSpec, networkSpecSchema } from './schema.js';
import { sourceRange } from './sourceRange.js';

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
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
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
        ? 'more than one document (a network file holds one)'
        : firstSyntaxError.message;
    throw syntaxError(reason, firstSyntaxError.pos[0], firstSyntaxError);
  }
  if (doc.contents === null) {
    throw SpecError.of({
      code: 'DIFFTRY_SPEC_INVALID',
      file: fileName,
      ...place(0),
      expected: 'a network: a mapping with classes and services',
      problem: 'expected a network: a mapping with classes and services, got an empty file',
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

  const result = networkSpecSchema.safeParse(data);
  if (result.success) return result.data;

  const located = result.error.issues
    .flatMap((issue) => describeIssue(issue, networkSpecSchema, data))
    .map((described, order) => {
      const range = sourceRange(doc, described.path, described.at === 'key' ? 'key' : 'value');
      // A missing field is shown at the start of its mapping but ranked at its end, after the
      // problems inside it: a misspelt `capcity` explains a missing `capacity`, not the reverse.
      const rank = range === undefined ? undefined : range[described.at === 'missing' ? 1 : 0];
      return { described, order, offset: range?.[0], rank };
    })
    // Document order; a problem without a place goes last, and ties keep the schema's order.
    .sort(
      (a, b) =>
        (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
        a.order - b.order,
    );
  const issues: SpecIssue[] = located.map(({ described, offset }) =>
    specIssue({
      code: 'DIFFTRY_SPEC_INVALID',
      file: fileName,
      ...place(offset),
      path: formatPath(described.path),
      expected: described.expected,
      problem: described.problem,
    }),
  );
  const [first, ...rest] = issues;
  // zod reports at least one issue whenever it fails; this keeps the type honest.
  if (first === undefined) throw new Error('difftry: network schema failed without an issue');
  throw new SpecError([first, ...rest], { cause: result.error });
}

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
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : error instanceof Error
              ? error.message
              : String(error);
    throw SpecError.of(
      {
        code: 'DIFFTRY_SPEC_UNREADABLE',
        file: path,
        expected: 'a readable network file',
        problem: `cannot read the file: ${reason}`,
      },
      { cause: error },
    );
  }
  return parseNetwork(text, path);
}

/** The first line of a parser message, without a trailing period. */
function shortReason(message: string): string {
  return (message.split('\n', 1)[0] ?? message).replace(/\.$/, '').trim();
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
