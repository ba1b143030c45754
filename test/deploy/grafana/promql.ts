/**
 * A small reading of the PromQL the dashboard writes, for the tests: enough to find the metric
 * names, the labels each selector matches on, the functions called, and whether brackets
 * balance. Not a PromQL parser: it knows strings, selectors `{…}`, ranges `[…]`, `by (…)`.
 */

/** `expr` with every string literal's content removed (`"a(b"` → `""`), escapes included. */
export function withoutStrings(expr: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i += 1) {
    const c = expr[i] as string;
    if (quote === undefined) {
      out += c;
      if (c === '"' || c === "'" || c === '`') quote = c;
    } else if (c === '\\' && quote !== '`') {
      i += 1;
    } else if (c === quote) {
      out += c;
      quote = undefined;
    }
  }
  if (quote !== undefined) throw new Error(`unterminated string in ${expr}`);
  return out;
}

/** Whether `()`, `{}` and `[]` pair up, properly nested, outside string literals. */
export function isBalanced(expr: string): boolean {
  const closing: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  const stack: string[] = [];
  for (const c of withoutStrings(expr)) {
    if (c === '(' || c === '{' || c === '[') stack.push(c);
    else if (c in closing && stack.pop() !== closing[c]) return false;
  }
  return stack.length === 0;
}

/** One series selector: `metric{label="…",…}`. */
export interface Selector {
  readonly metric: string;
  /** The label names it matches on, in order. */
  readonly labels: readonly string[];
}

const IDENTIFIER = '[a-zA-Z_:][a-zA-Z0-9_:]*';

/** Every `metric{…}` selector of `expr`, in order. */
export function selectors(expr: string): Selector[] {
  const text = withoutStrings(expr);
  return [...text.matchAll(new RegExp(`(${IDENTIFIER})\\{([^}]*)\\}`, 'g'))].map((match) => ({
    metric: match[1] as string,
    labels: [...(match[2] as string).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map(
      (label) => label[1] as string,
    ),
  }));
}

/** The label names of every `by (…)` clause of `expr`. */
export function groupingLabels(expr: string): string[] {
  return [...withoutStrings(expr).matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((label) => label.trim())
      .filter((label) => label !== ''),
  );
}

/**
 * What is left of `expr` once strings, selectors' matchers, ranges and `by (…)` clauses are
 * gone: the identifiers followed by `(` (functions and aggregations) and every other one (which
 * should be none: a metric always comes with its selector here).
 */
export function identifiers(expr: string): { functions: string[]; bare: string[] } {
  const text = withoutStrings(expr)
    .replace(new RegExp(`${IDENTIFIER}\\{[^}]*\\}`, 'g'), ' SELECTOR ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\bby\s*\([^)]*\)/g, ' ');
  const functions: string[] = [];
  const bare: string[] = [];
  for (const match of text.matchAll(new RegExp(`(${IDENTIFIER})(\\s*\\()?`, 'g'))) {
    const name = match[1] as string;
    if (name === 'SELECTOR') continue;
    if (match[2] !== undefined) functions.push(name);
    else bare.push(name);
  }
  return { functions, bare };
}
