import { authorityRefusal } from './hostRefusal.js';
import { type PathLookAlike, pathLookAlike } from './pathLookAlike.js';
import { percentDecodeUtf8 } from './percentDecodeUtf8.js';

/** Options of {@link normalizeRequestPath}. */
export interface NormalizeOptions {
  /**
   * Whether a path holding a look-alike of ASCII (`／`, `．`, `∕`, `ｐ`: see `pathLookAlike`) is
   * refused. On where rules match on paths (an application that applies NFKC to its decoded
   * path would resolve `／..／admin` as `/../admin`); off where nothing decides on the path, so
   * such text passes as received. Invalid UTF-8 is refused either way.
   * @default true
   */
  readonly refuseLookAlikes?: boolean;
}

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
 * path grammar (raw non-ASCII included: RFC 9112's request-target is ASCII), escapes whose bytes
 * are not UTF-8 (overlong `%C0%AF`, a surrogate, above U+10FFFF, cut short: see
 * `percentDecodeUtf8`), a segment that becomes `.`, `..`, `/`, `\`, NUL or invalid UTF-8 only
 * after decoding an escape that is not unreserved (`%252e%252e`, decoded twice), a dot segment
 * with parameters (`..;`, which some servlet containers resolve as `..`), an absolute-form
 * authority that is not `host[:port]`, and, unless `refuseLookAlikes` is false, a look-alike of
 * ASCII once decoded (`%EF%BC%8F` `／`, `%E2%88%95` `∕`: see `pathLookAlike`), at any round of
 * decoding.
 * @see RFC 3986 §5.2.4 (remove_dot_segments), §6.2.2 (syntax-based normalisation)
 * @example
 * ```ts
 * normalizeRequestPath('/premium/%2E%2E/admin?x=/..');
 * // { ok: true, path: '/admin', query: '?x=/..', authority: undefined }
 * normalizeRequestPath('/premium/..%2Fadmin');
 * // { ok: false, reason: 'an encoded "/" (%2F) in the path' }
 * normalizeRequestPath('/premium/..%C0%AFadmin');
 * // { ok: false, reason: 'invalid UTF-8 in the path: an overlong encoding (%C0%AF)' }
 * ```
 */
export function normalizeRequestPath(
  target: string,
  options: Readonly<NormalizeOptions> = {},
): NormalizedTarget | RefusedTarget {
  const refuseLookAlikes = options.refuseLookAlikes !== false;
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
    const ambiguity = segmentAmbiguity(segment, refuseLookAlikes);
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
 * authority and the rest. Anything else (`*`, `ftp://…`, `HTTP:/x`, `http://user@host/`, an
 * authority that is not `host[:port]`: see `authorityRefusal`) is refused, with a reason: no next
 * hop could be sent it.
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
  if (authority === '' || authorityRefusal(authority) !== undefined) {
    return refuse('an absolute URL without a plain host (host[:port], RFC 9112 §3.2.2)');
  }
  const rest = target.slice(absolute[0].length);
  return { ok: true, target: rest.startsWith('/') ? rest : `/${rest}`, authority };
}

/**
 * The authority of an absolute-form http(s) target (`http://shop:80/x` → `shop:80`), which
 * replaces `Host` (RFC 9112 §3.2.2); undefined for a target in any other form. As received: see
 * `authorityRefusal` for whether it is one.
 * @example
 * ```ts
 * absoluteFormAuthority('HTTP://a%2Fb/x'); // 'a%2Fb'
 * absoluteFormAuthority('/x'); // undefined
 * ```
 */
export function absoluteFormAuthority(target: string): string | undefined {
  if (target.startsWith('/')) return undefined;
  return ABSOLUTE_FORM.exec(target)?.[2];
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
 * undefined when it cannot: its escapes must be UTF-8; decoded again and again, it must not turn
 * into a dot segment, gain a separator or become invalid UTF-8; with `refuseLookAlikes`, no
 * round of decoding may hold a look-alike of ASCII; and a dot segment must not carry parameters.
 */
function segmentAmbiguity(segment: string, refuseLookAlikes: boolean): string | undefined {
  const beforeParameters = segment.split(';', 1)[0] as string;
  if (segment.includes(';') && (beforeParameters === '.' || beforeParameters === '..')) {
    return `a dot segment with parameters (${JSON.stringify(segment)})`;
  }
  // Without an escape the segment is ASCII (raw non-ASCII is refused before): nothing to decode.
  if (!segment.includes('%')) return undefined;
  let decoded = segment;
  for (let round = 1; round <= DECODE_ROUNDS; round++) {
    const next = percentDecodeUtf8(decoded);
    if (!next.ok) {
      return round === 1
        ? `invalid UTF-8 in the path: ${next.reason}`
        : `a segment that decodes further into invalid UTF-8 (${JSON.stringify(segment)}: ${next.reason})`;
    }
    if (next.text === decoded) break;
    decoded = next.text;
    if (refuseLookAlikes) {
      const lookAlike = pathLookAlike(decoded);
      if (lookAlike !== undefined) return describeLookAlike(lookAlike, segment);
    }
    const head = decoded.split(';', 1)[0];
    if (head === '.' || head === '..' || /[/\\\0]/.test(decoded)) {
      return `a segment that decodes further into a dot segment or a separator (${JSON.stringify(segment)})`;
    }
  }
  return undefined;
}

/** `a look-alike of "/" in the path (U+FF0F, "/" by NFKC) in "..%EF%BC%8Fadmin"`. */
function describeLookAlike(lookAlike: PathLookAlike, segment: string): string {
  const code = lookAlike.codePoint.toString(16).toUpperCase().padStart(4, '0');
  const by = lookAlike.by === 'NFKC' ? 'its NFKC form' : 'a confusable mapping';
  return `a look-alike of ${JSON.stringify(lookAlike.reads)} in the path (U+${code}, by ${by}) in ${JSON.stringify(segment)}`;
}

/** An escape of a byte outside ASCII, as the normaliser writes one (upper-case hex). */
const NON_ASCII_ESCAPE = /%[89A-F][0-9A-F]/;

/**
 * A normalised path as an application that decodes it and applies NFKC (or NFC) would read it,
 * written back in the normaliser's form, or undefined when that reading is the path itself:
 * `/cafe%CC%81` (e + U+0301) → `/caf%C3%A9`. Only segments that NFKC changes are rewritten
 * (decoded whole, so an escaped `%3B` in one comes back as `;`). On a path accepted with
 * `refuseLookAlikes`, NFKC changes only non-ASCII text, so the reading has the same segments and
 * the same ASCII; only a rule whose path holds non-ASCII text can class the two apart, which the
 * sidecar refuses as it refuses path parameters that change a class.
 * @example
 * ```ts
 * nfkcReading('/premium/cafe%CC%81'); // '/premium/caf%C3%A9'
 * nfkcReading('/premium/caf%C3%A9'); // undefined
 * ```
 */
export function nfkcReading(path: string): string | undefined {
  if (!NON_ASCII_ESCAPE.test(path)) return undefined;
  let changed = false;
  const segments = path.split('/').map((segment) => {
    if (!NON_ASCII_ESCAPE.test(segment)) return segment;
    const decoded = percentDecodeUtf8(segment);
    if (!decoded.ok) return segment;
    const compatible = decoded.text.normalize('NFKC');
    if (compatible === decoded.text) return segment;
    changed = true;
    return encodeSegment(compatible);
  });
  return changed ? segments.join('/') : undefined;
}

/** Decoded segment text in the normaliser's form: path characters as they are, the rest escaped. */
function encodeSegment(text: string): string {
  let encoded = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0x80) encoded += encodeURIComponent(char);
    else if (char !== '/' && PATH_CHAR.test(char)) encoded += char;
    else encoded += `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
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
