/** A request target made canonical: the path every later reader sees the same way. */
export interface NormalizedTarget {
  readonly ok: true;
  /** The normalised path, always beginning with `/`: `/premium/../admin` → `/admin`. */
  readonly path: string;
  /** The query with its `?` as received, untouched; `` without one. */
  readonly query: string;
  /** An absolute-form target's authority (`host:port`), which replaces `Host`; else undefined. */
  readonly authority: string | undefined;
}

/** A request target that no two readers can be trusted to resolve alike: answered with 400. */
export interface RefusedTarget {
  readonly ok: false;
  /** Why, in a few words: `an encoded "/" (%2F) in the path`. */
  readonly reason: string;
}

/** Characters a path may hold as they are (RFC 3986 §3.3 pchar, and `/`), besides `%`. */
const PATH_CHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
/** The unreserved characters (RFC 3986 §2.3), the only ones an escape is decoded to. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;
const ABSOLUTE_FORM = /^(https?):\/\/([^/?#]*)/i;
/** Enough rounds of decoding to see through any escape nesting an application might undo. */
const DECODE_ROUNDS = 4;

/**
 * Makes a request target's path canonical before anything decides on it, so that the path an
 * edge rule classifies is, byte for byte, the path the application is given (and resolves to
 * itself): no reader can find a different resource behind it.
 *
 * - Percent-escapes of unreserved characters (ALPHA, DIGIT, `-`, `.`, `_`, `~`; hex in any case)
 *   are decoded; every other escape is kept, its hex in upper case (RFC 3986 §6.2.2.1–2).
 * - Repeated slashes are merged into one (as nginx's `merge_slashes`): applications and
 *   frameworks disagree on what an empty segment means, and `//x` is an authority to a URL
 *   parser.
 * - Dot segments are removed (RFC 3986 §5.2.4): `/a/./b/../c` → `/a/c`; `..` above the root stays
 *   at the root.
 * - The query (from the first `?`) is kept exactly as received.
 * - An absolute-form target (`http://host/path`, RFC 9112 §3.2.2) gives its path, normalised the
 *   same way, and its authority; other schemes are refused.
 *
 * Refused, with a reason (the listener answers 400): an encoded `/` (`%2F`) or `\` (`%5C`), a raw
 * `\`, a NUL (raw or `%00`), a malformed escape (`%zz`), a `#`, any character outside RFC 3986's
 * path grammar, a segment that becomes `.`, `..`, `/`, `\` or NUL only after decoding an escape
 * that is not unreserved (`%252e%252e`, decoded twice), and a dot segment with parameters
 * (`..;`, which some servlet containers resolve as `..`).
 * @see RFC 3986 §5.2.4 (remove_dot_segments), §6.2.2 (syntax-based normalisation)
 * @example
 * ```ts
 * normalizeRequestPath('/premium/%2E%2E/admin?x=/..');
 * // { ok: true, path: '/admin', query: '?x=/..', authority: undefined }
 * normalizeRequestPath('/premium/..%2Fadmin');
 * // { ok: false, reason: 'an encoded "/" (%2F) in the path' }
 * ```
 */
export function normalizeRequestPath(target: string): NormalizedTarget | RefusedTarget {
  const origin = originForm(target);
  if (!origin.ok) return origin;
  const { authority } = origin;
  const rest = origin.target;
  const queryAt = rest.indexOf('?');
  const rawPath = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rest.slice(queryAt);

  let path = '';
  for (let i = 0; i < rawPath.length; i++) {
    const char = rawPath[i] as string;
    if (char === '%') {
      const hex = rawPath.slice(i + 1, i + 3);
      if (!HEX.test(hex)) return refuse('a malformed percent-escape in the path');
      const decoded = String.fromCharCode(Number.parseInt(hex, 16));
      if (decoded === '/') return refuse('an encoded "/" (%2F) in the path');
      if (decoded === '\\') return refuse('an encoded "\\" (%5C) in the path');
      if (decoded === '\0') return refuse('an encoded NUL (%00) in the path');
      path += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
      i += 2;
    } else if (char === '\\') {
      return refuse('a "\\" in the path');
    } else if (char === '\0') {
      return refuse('a NUL in the path');
    } else if (PATH_CHAR.test(char)) {
      path += char;
    } else {
      return refuse(
        `a character not allowed in a path (U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`,
      );
    }
  }

  path = path.replace(/\/{2,}/g, '/');
  for (const segment of path.split('/')) {
    const ambiguity = segmentAmbiguity(segment);
    if (ambiguity !== undefined) return refuse(ambiguity);
  }
  return { ok: true, path: removeDotSegments(path), query, authority };
}

/** A request target in origin form (`/path?query`), with the authority an absolute form named. */
export interface OriginFormTarget {
  readonly ok: true;
  /** The path and query, beginning with `/`, as received. */
  readonly target: string;
  /** An absolute-form target's authority (`host:port`), which replaces `Host`; else undefined. */
  readonly authority: string | undefined;
}

/**
 * A request target as the path (and query) to send on, unchanged otherwise: origin form as it is,
 * absolute form (`http://host/path`, the scheme in any case, RFC 9112 §3.2.2) split into its
 * authority and the rest. Anything else (`*`, `ftp://…`, `HTTP:/x`, `http://user@host/`) is
 * refused, with a reason: no next hop could be sent it.
 * @example
 * ```ts
 * originForm('HTTP://shop:80/a/../b?q'); // { ok: true, target: '/a/../b?q', authority: 'shop:80' }
 * originForm('ftp://shop/x'); // { ok: false, reason: 'a target that is neither a path nor an http(s) URL' }
 * ```
 */
export function originForm(target: string): OriginFormTarget | RefusedTarget {
  if (target.startsWith('/')) return { ok: true, target, authority: undefined };
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute === null) return refuse('a target that is neither a path nor an http(s) URL');
  const authority = absolute[2] as string;
  if (authority === '' || authority.includes('@')) {
    return refuse('an absolute URL without a plain host');
  }
  const rest = target.slice(absolute[0].length);
  return { ok: true, target: rest.startsWith('/') ? rest : `/${rest}`, authority };
}

/**
 * RFC 3986 §5.2.4 `remove_dot_segments`, as the RFC writes it (input buffer, output buffer, rules
 * A–E), on a path already free of escapes of `.`.
 * @example
 * ```ts
 * removeDotSegments('/a/b/c/./../../g'); // '/a/g'
 * removeDotSegments('mid/content=5/../6'); // 'mid/6'
 * ```
 */
export function removeDotSegments(path: string): string {
  let input = path;
  let output = '';
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '/..') {
      input = '/';
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '.' || input === '..') input = '';
    else {
      const end = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = end < 0 ? input : input.slice(0, end);
      output += segment;
      input = input.slice(segment.length);
    }
  }
  return output;
}

/**
 * Why one segment (its unreserved escapes decoded) may read differently to another parser, or
 * undefined when it cannot: decoded again and again, it must not turn into a dot segment or gain
 * a separator, and a dot segment must not carry parameters.
 */
function segmentAmbiguity(segment: string): string | undefined {
  const beforeParameters = segment.split(';', 1)[0] as string;
  if (segment.includes(';') && (beforeParameters === '.' || beforeParameters === '..')) {
    return `a dot segment with parameters (${JSON.stringify(segment)})`;
  }
  if (!segment.includes('%')) return undefined;
  let decoded = segment;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const next = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === decoded) break;
    decoded = next;
    const head = decoded.split(';', 1)[0];
    if (head === '.' || head === '..' || /[/\\\0]/.test(decoded)) {
      return `a segment that decodes further into a dot segment or a separator (${JSON.stringify(segment)})`;
    }
  }
  return undefined;
}

/**
 * A normalised path without its path parameters: each segment cut at its first `;`, as servlet
 * containers read it (`/bulk;jsessionid=1/y` → `/bulk/y`). Only to compare how the two readings
 * are classed; the application is given the path with its parameters.
 * @example
 * ```ts
 * stripPathParameters('/bulk;v=1/items;page=2'); // '/bulk/items'
 * ```
 */
export function stripPathParameters(path: string): string {
  return path.replace(/;[^/]*/g, '');
}

function refuse(reason: string): RefusedTarget {
  return { ok: false, reason };
}
