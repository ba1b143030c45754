import { normalizeRequestPath } from '../policy/request/normalizePath.js';

/** What an edge rule can look at in a request. */
export interface EdgeRequest {
  /** The method, as sent (compared case-insensitively). */
  readonly method: string;
  /**
   * The path without its query: `/reserve/42`. The inbound listener passes it normalised by
   * {@link normalizeRequestPath}, the form the application is then given.
   */
  readonly path: string;
  /** The value of a header (lower-case name), the first if repeated; undefined if absent. */
  header(name: string): string | undefined;
}

/**
 * One edge rule: a request matches when every condition given holds. The config's `valueEnv` is
 * resolved to `values` before the rules are compiled (the rules stay pure).
 */
export interface EdgeRule {
  /**
   * A path prefix, matched on segment boundaries: `/reserve` matches `/reserve/1`, not `/reserved`.
   * Normalised as request paths are (`/%7Euser` is `/~user`, `/café` is `/caf%C3%A9`), so a rule
   * and a request agree.
   */
  readonly path?: string;
  /** An HTTP method, case-insensitive. */
  readonly method?: string;
  /** A header that must be present (any case). */
  readonly header?: string;
  /** With `header`: the values (any one) the header must have, compared exactly. */
  readonly values?: readonly string[];
  /** The class of a matching request. */
  readonly class: string;
}

/**
 * Compiles edge rules into the function that classifies a request at the network's edge: the
 * class of the first rule that matches, else `fallback` (undefined: the policy's default class).
 * Nothing the client sends can name a class directly: only the conditions the operator wrote
 * decide it.
 * @example
 * ```ts
 * const classify = edgeClassifier([{ path: '/reserve', class: 'high' }], 'low');
 * classify({ method: 'GET', path: '/reserve/7', header: () => undefined }); // 'high'
 * ```
 */
export function edgeClassifier(
  rules: readonly EdgeRule[],
  fallback?: string,
): (request: EdgeRequest) => string | undefined {
  const compiled = rules.map((rule) => {
    const prefix = rule.path === undefined ? undefined : trimSlash(canonicalPrefix(rule.path));
    const method = rule.method?.toUpperCase();
    const header = rule.header?.toLowerCase();
    const values = rule.values === undefined ? undefined : new Set(rule.values);
    return (request: EdgeRequest): boolean => {
      if (method !== undefined && request.method.toUpperCase() !== method) return false;
      if (prefix !== undefined && !pathHasPrefix(request.path, prefix)) return false;
      if (header !== undefined) {
        const value = request.header(header);
        if (value === undefined) return false;
        if (values !== undefined && !values.has(value)) return false;
      }
      return true;
    };
  });
  const classes = rules.map((rule) => rule.class);
  const classify = (request: EdgeRequest): string | undefined => {
    for (let i = 0; i < compiled.length; i++) {
      if ((compiled[i] as (r: EdgeRequest) => boolean)(request)) return classes[i];
    }
    return fallback;
  };
  if (rules.every((rule) => rule.path === undefined)) pathFree.add(classify);
  return classify;
}

/** The classifiers {@link edgeClassifier} compiled from rules none of which has a `path`. */
const pathFree = new WeakSet<(request: EdgeRequest) => string | undefined>();

/**
 * Whether an edge classifier may decide on the request's path: false only for one
 * {@link edgeClassifier} compiled from rules without a `path` (headers and methods alone); true
 * for any other function, which may read anything. Where it is false the listener lets path
 * look-alikes of ASCII (`／`, `∕`) pass as received: no class depends on them.
 * @example
 * ```ts
 * classifierReadsPath(edgeClassifier([{ header: 'x-api-key', class: 'high' }])); // false
 * classifierReadsPath(edgeClassifier([{ path: '/premium', class: 'high' }])); // true
 * ```
 */
export function classifierReadsPath(
  classify: (request: EdgeRequest) => string | undefined,
): boolean {
  return !pathFree.has(classify);
}

/**
 * A rule's path in the form requests are matched in: non-ASCII text as its UTF-8 escapes (`/café`
 * is `/caf%C3%A9`, as a request for it arrives), then normalised. One the normaliser refuses
 * (`/a%2Fb`) is kept as written, since no request carrying it gets past the listener anyway.
 */
function canonicalPrefix(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: every character outside ASCII
  const escaped = path.replace(/[^\u0000-\u007f]+/gu, (text) => {
    try {
      return encodeURIComponent(text);
    } catch {
      // A lone surrogate has no UTF-8: leave it, and the normaliser refuses the rule's path.
      return text;
    }
  });
  const normalized = normalizeRequestPath(escaped);
  return normalized.ok ? normalized.path : path;
}

/** `/a/` → `/a`; `/` → `` (which every path has as a prefix). */
function trimSlash(prefix: string): string {
  return prefix.replace(/\/+$/, '');
}

/** Whether `path` is `prefix` or continues it with a new segment (`prefix` without a final `/`). */
export function pathHasPrefix(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  const next = path.charCodeAt(prefix.length);
  // End of the path, '/', or (for a target with a query) '?'.
  return Number.isNaN(next) || next === 47 || next === 63;
}
