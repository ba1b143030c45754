import type { z } from 'zod';

/**
 * What a cross-field rule attaches to the issue it raises, so that it reads like the issues the
 * schema raises itself: the problem is the whole message, `expected` is kept apart.
 */
export interface CustomIssueParams {
  /** What would have been valid, in domain words: `a declared class (high, low)`. */
  readonly expected: string;
  /**
   * Point at the key of the last path element (a record key) rather than at its value; or, with
   * `missing`, report a field missing from the mapping at the path (placed at its start, ranked
   * after the problems inside it, as the schema's own missing fields are).
   */
  readonly at?: 'key' | 'value' | 'missing';
}

/** A problem found by a rule that spans several fields. */
export interface CustomIssue extends CustomIssueParams {
  /** Where, relative to the object the rule checks: `['services', 0, 'routes']`. */
  readonly path: readonly PropertyKey[];
  /** The whole problem in one line: `expected a declared class (high, low), got "medium"`. */
  readonly problem: string;
}

/** Raises `issue` on a refinement context as a zod `custom` issue carrying {@link CustomIssueParams}. */
export function reportIssue(ctx: z.RefinementCtx, issue: CustomIssue): void {
  const params: CustomIssueParams =
    issue.at === undefined
      ? { expected: issue.expected }
      : { expected: issue.expected, at: issue.at };
  ctx.addIssue({ code: 'custom', path: [...issue.path], message: issue.problem, params });
}

/** Reads the {@link CustomIssueParams} back from a finished issue, if a rule raised it. */
export function customIssueParams(params: unknown): CustomIssueParams | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const { expected, at } = params as { expected?: unknown; at?: unknown };
  if (typeof expected !== 'string') return undefined;
  return at === 'key' || at === 'value' || at === 'missing' ? { expected, at } : { expected };
}
