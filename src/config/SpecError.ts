import { DifftryError } from '../core/DifftryError.js';

/**
 * The stable codes of a {@link SpecError}:
 * - `DIFFTRY_SPEC_INVALID`: the file parses but is not a valid network (wrong, missing or unknown
 *   field, broken cross-field rule);
 * - `DIFFTRY_SPEC_SYNTAX`: the text is not valid YAML or JSON;
 * - `DIFFTRY_SPEC_UNREADABLE`: the file (or built-in example) cannot be read.
 */
export type SpecErrorCode =
  | 'DIFFTRY_SPEC_INVALID'
  | 'DIFFTRY_SPEC_SYNTAX'
  | 'DIFFTRY_SPEC_UNREADABLE';

/** One problem with a network file, placed in the file. */
export interface SpecIssue {
  /** What kind of problem it is. */
  readonly code: SpecErrorCode;
  /** The file as it was named to the parser; empty for a problem not tied to a file. */
  readonly file: string;
  /** 1-based line of the problem, when known. */
  readonly line?: number;
  /** 1-based column of the problem, when known. */
  readonly column?: number;
  /** Where in the document, as a reader writes it: `services[0].capacity`; empty for the whole file. */
  readonly path: string;
  /** What would have been valid, in domain words: `a positive number (requests/s)`. */
  readonly expected: string;
  /** The problem without its place: `expected a positive number (requests/s), got -3`. */
  readonly problem: string;
  /** The one-line message: `net.yaml:7:15: services[0].capacity: expected …, got -3`. */
  readonly message: string;
}

/** What the parser knows about a problem; {@link specIssue} turns it into a {@link SpecIssue}. */
export interface SpecIssueInit {
  readonly code: SpecErrorCode;
  readonly file: string;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
  readonly path?: string;
  readonly expected: string;
  readonly problem: string;
}

/**
 * Builds a {@link SpecIssue} and its one-line message `FILE:LINE:COL: PATH: PROBLEM`, leaving out
 * `:LINE:COL` when the position is unknown, `PATH: ` for the whole file and `FILE: ` when no
 * file is involved.
 */
export function specIssue(init: SpecIssueInit): SpecIssue {
  const path = init.path ?? '';
  const position =
    init.line === undefined
      ? ''
      : `:${init.line}${init.column === undefined ? '' : `:${init.column}`}`;
  const place = init.file === '' ? '' : `${init.file}${position}: `;
  const message = `${place}${path === '' ? '' : `${path}: `}${init.problem}`;
  return {
    code: init.code,
    file: init.file,
    ...(init.line === undefined ? {} : { line: init.line }),
    ...(init.column === undefined ? {} : { column: init.column }),
    path,
    expected: init.expected,
    problem: init.problem,
    message,
  };
}

const SPEC_ERROR_BRAND = Symbol.for('difftry.SpecError');

/**
 * A network file that cannot be used: unreadable, not YAML or JSON, or not a valid network. A
 * {@link DifftryError} whose `code` is a {@link SpecErrorCode}.
 *
 * Its `message` is one line naming the first problem in document order, e.g.
 * `net.yaml:7:15: services[0].capacity: expected a positive number (requests/s), got -3`;
 * `issues` holds every problem found, in document order. The fields repeat the first issue's.
 *
 * @example
 * ```ts
 * try {
 *   await loadNetworkFile('net.yaml');
 * } catch (error) {
 *   if (!isSpecError(error)) throw error;
 *   console.error(error.message); // one line; exit 2
 * }
 * ```
 */
export class SpecError extends DifftryError {
  /** Which kind of problem the first issue is. */
  declare readonly code: SpecErrorCode;
  /** The file, as named to the parser. */
  readonly file: string;
  /** 1-based line of the first problem, when known. */
  readonly line: number | undefined;
  /** 1-based column of the first problem, when known. */
  readonly column: number | undefined;
  /** Where the first problem is: `services[0].capacity`; empty for the whole file. */
  readonly path: string;
  /** What was expected at the first problem, in domain words. */
  readonly expected: string;
  /** Every problem found, in document order; never empty. */
  readonly issues: readonly SpecIssue[];

  /** @param issues every problem found, first one first; must not be empty. */
  constructor(issues: readonly [SpecIssue, ...SpecIssue[]], options?: ErrorOptions) {
    const [first] = issues;
    super(first.code, first.message, options);
    this.name = 'SpecError';
    this.file = first.file;
    this.line = first.line;
    this.column = first.column;
    this.path = first.path;
    this.expected = first.expected;
    this.issues = Object.freeze([...issues]);
  }

  /** A {@link SpecError} with a single problem. */
  static of(init: SpecIssueInit, options?: ErrorOptions): SpecError {
    return new SpecError([specIssue(init)], options);
  }

  /**
   * Whether `error` is a {@link SpecError}, even one from another copy of this module: the check
   * looks at a registered brand rather than at the class.
   */
  static isSpecError(error: unknown): error is SpecError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { [SPEC_ERROR_BRAND]?: unknown })[SPEC_ERROR_BRAND] === true
    );
  }

  /** The brand {@link SpecError.isSpecError} looks for. */
  get [SPEC_ERROR_BRAND](): true {
    return true;
  }
}

/** Whether `error` is a {@link SpecError}; see {@link SpecError.isSpecError}. */
export const isSpecError = (error: unknown): error is SpecError => SpecError.isSpecError(error);
