import { printable } from '../../core/printable.js';

/**
 * A host as RFC 3986 §3.2.2 writes one, with an optional port (§3.2.3): an IP literal in brackets
 * (IPv6 or IPvFuture), or a reg-name of unreserved characters and sub-delims, which covers IPv4
 * addresses and DNS names. Percent-escapes, which RFC 3986 allows in a reg-name, are refused: no
 * DNS name holds one, and a reader that decodes `a%2Fb` finds a `/`.
 */
const HOST =
  /^(?:\[(?:[0-9A-Fa-f]*:[0-9A-Fa-f:.]*|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]|[A-Za-z0-9\-._~!$&'()*+,;=]*)(?::[0-9]*)?$/;

/** The longest part of a refused Host quoted back in a reason, in characters. */
const QUOTED_MAX_CHARS = 100;

/**
 * Why a request's `Host` cannot be served, or undefined when it can. RFC 9112 §3.2: "A server
 * MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a
 * Host header field and to any request message that contains more than one Host header field
 * line or a Host header field with an invalid field value." With two, `node:http` keeps the first
 * and an application behind may read the last; with `a/b` or `user@a`, a reader that builds a
 * URL from it (`http://${host}${path}`) finds another path or authority than the one routed on.
 *
 * A missing Host is left to `node:http`, which answers 400 to an HTTP/1.1 request without one
 * (`requireHostHeader`); HTTP/1.0 needs none. An empty Host is valid (RFC 9112 §3.2, for a
 * target without an authority).
 * @param lines how many `Host` lines the request has (`req.rawHeaders` counts them; node's
 *   `req.headers` keeps only the first)
 * @param value the first one's value, undefined without one
 * @see RFC 9112 §3.2, RFC 9110 §7.2, RFC 3986 §3.2.2–3
 * @example
 * ```ts
 * hostRefusal(1, 'shop.example:8080'); // undefined
 * hostRefusal(2, 'shop.example'); // 'more than one Host line (RFC 9112 §3.2)'
 * hostRefusal(1, 'a/b'); // 'a Host that is not host[:port] (RFC 9112 §3.2): "a/b"'
 * ```
 */
export function hostRefusal(lines: number, value: string | undefined): string | undefined {
  if (lines > 1) return 'more than one Host line (RFC 9112 §3.2)';
  if (value === undefined) return undefined;
  return authorityRefusal(value);
}

/**
 * Why an authority (`host[:port]`, as a `Host` value or an absolute-form target's) is not one,
 * or undefined when it is: see {@link hostRefusal}. No userinfo (`user@`), no `/`, `?`, `#`,
 * `\`, whitespace, control or non-ASCII character, no percent-escape, a port of digits only.
 * @example
 * ```ts
 * authorityRefusal('[::1]:80'); // undefined
 * authorityRefusal('user@shop'); // 'a Host that is not host[:port] (RFC 9112 §3.2): "user@shop"'
 * ```
 */
export function authorityRefusal(authority: string): string | undefined {
  if (HOST.test(authority)) return undefined;
  return `a Host that is not host[:port] (RFC 9112 §3.2): "${printable(authority, { maxChars: QUOTED_MAX_CHARS })}"`;
}

/**
 * {@link hostRefusal} on a request's raw header list (`req.rawHeaders`: name and value
 * alternating), for a host that has not split the head itself (the runtime library's edge mode).
 * @example
 * ```ts
 * hostFieldRefusal(['Host', 'a', 'host', 'b']); // 'more than one Host line (RFC 9112 §3.2)'
 * ```
 */
export function hostFieldRefusal(rawHeaders: readonly string[]): string | undefined {
  let lines = 0;
  let value: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      lines += 1;
      value ??= rawHeaders[i + 1] as string;
    }
  }
  return hostRefusal(lines, value);
}
