import type { IncomingHttpHeaders } from 'node:http';

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1), which a proxy never
 * forwards, plus `host` (the next hop's is its own), `expect` (the sidecar answers `100-continue`
 * itself) and `http2-settings`.
 */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
  'http2-settings',
]);

/** The names of the headers the sidecar reads itself (lower case). */
export interface SidecarHeaderNames {
  /** The class header (`x-priority`). */
  readonly classHeader: string;
  /** The remaining-time header (`x-difftry-deadline-ms`). */
  readonly deadlineHeader: string;
  /** The identity header (`x-difftry-peer`). */
  readonly peerHeader: string;
}

/** What one pass over a request's raw headers finds. */
export interface RequestHead {
  /** The end-to-end headers to forward (lower-case names), without the three the sidecar reads. */
  readonly headers: Record<string, string | string[]>;
  /** Header lines received. */
  readonly count: number;
  /** The first `Host` line's value, undefined without one. */
  readonly host: string | undefined;
  /**
   * How many `Host` lines the request has: more than one is refused (RFC 9112 §3.2; see
   * `hostRefusal`), since `node:http` keeps the first and another reader may keep the last.
   */
  readonly hostLines: number;
  readonly classValue: string | undefined;
  readonly deadlineValue: string | undefined;
  readonly peerValue: string | undefined;
  /** The declared body length, NaN without one. */
  readonly contentLength: number;
  /** Whether the body is sent in chunks (a `transfer-encoding`). */
  readonly chunked: boolean;
}

/**
 * Splits a request's raw headers (`req.rawHeaders`, name and value alternating) in one pass into
 * what the sidecar reads and what it forwards: hop-by-hop headers and those named in `Connection`
 * are dropped, repeated headers become lists (sent again as repeated lines). Reading the raw list
 * spares `node:http` building `req.headers` on the hot path.
 */
export function splitRequestHead(
  rawHeaders: readonly string[],
  names: SidecarHeaderNames,
): RequestHead {
  const headers: Record<string, string | string[]> = {};
  let host: string | undefined;
  let hostLines = 0;
  let classValue: string | undefined;
  let deadlineValue: string | undefined;
  let peerValue: string | undefined;
  let connection: string | undefined;
  let contentLength = Number.NaN;
  let chunked = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    if (name === names.classHeader) classValue ??= value;
    else if (name === names.deadlineHeader) deadlineValue ??= value;
    else if (name === names.peerHeader) peerValue ??= value;
    else if (HOP_BY_HOP.has(name)) {
      if (name === 'host') {
        host ??= value;
        hostLines += 1;
      } else if (name === 'transfer-encoding') chunked = true;
      else if (name === 'connection') connection = connection ? `${connection},${value}` : value;
    } else {
      if (name === 'content-length') contentLength = Number(value);
      const previous = headers[name];
      headers[name] =
        previous === undefined
          ? value
          : Array.isArray(previous)
            ? [...previous, value]
            : [previous, value];
    }
  }
  if (connection !== undefined) {
    for (const token of connection.split(',')) delete headers[token.trim().toLowerCase()];
  }
  return {
    headers,
    count: rawHeaders.length >> 1,
    host,
    hostLines,
    classValue,
    deadlineValue,
    peerValue,
    contentLength,
    chunked,
  };
}

/**
 * Whether a request's `Transfer-Encoding` (as `node:http` joins repeated lines: `a, b`) is
 * `chunked` alone, the only transfer coding the sidecar relays. It decodes the chunked framing and
 * never forwards `Transfer-Encoding`, so any other coding (`gzip, chunked`) would reach the
 * application stripped of it: RFC 9112 §6.1 has a server answer 501 to a coding it does not
 * understand.
 */
export function isChunkedAlone(transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined && transferEncoding.trim().toLowerCase() === 'chunked';
}

/**
 * A response's headers without the hop-by-hop ones (and those its `Connection` names), for the
 * sidecar's own response to its caller.
 */
export function endToEndResponseHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const connection = headers.connection;
  const listed =
    typeof connection === 'string'
      ? new Set(connection.split(',').map((token) => token.trim().toLowerCase()))
      : undefined;
  const result: IncomingHttpHeaders = {};
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    result[name] = headers[name];
  }
  return result;
}
