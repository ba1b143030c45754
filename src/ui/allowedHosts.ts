import { isIP } from 'node:net';

/**
 * The `Host` values a UI server answers, lower case: `127.0.0.1:PORT`, `localhost:PORT`,
 * `[::1]:PORT`, and `NAME:PORT` for the host it was told to listen on and each extra name
 * (`--allow-host`). On port 80 each also without the port, as a browser writes it. A page that a
 * rebinding DNS name has pointed at this server sends its own name as `Host`, so it is refused.
 * @param names extra host names or addresses (IPv6 with or without brackets)
 */
export function allowedHosts(port: number, names: readonly string[]): ReadonlySet<string> {
  const hosts = new Set<string>();
  for (const name of ['127.0.0.1', 'localhost', '[::1]', ...names]) {
    const lower = name.toLowerCase().replace(/\.$/, '');
    const host = isIP(lower) === 6 ? `[${lower}]` : lower;
    hosts.add(`${host}:${port}`);
    if (port === 80) hosts.add(host);
  }
  return hosts;
}

/**
 * Why a request's `Host` or `Origin` is refused, or undefined when it is one of `allowed`. An
 * `Origin` (sent by browsers on every cross-origin request and on same-origin POSTs) must be
 * `http://` and an allowed host; `null` (a sandboxed or opaque origin) is refused.
 * @returns `{ status: 421 }` for a Host not served here, `{ status: 403 }` for a foreign Origin
 */
export function hostAndOriginRefusal(
  allowed: ReadonlySet<string>,
  host: string | undefined,
  origin: string | undefined,
): { readonly status: 400 | 403 | 421; readonly error: string } | undefined {
  if (host === undefined || host === '') {
    return { status: 400, error: 'a request must name this server in Host' };
  }
  if (!allowed.has(host.toLowerCase().replace(/\.(?=:\d+$)|\.$/, ''))) {
    return {
      status: 421,
      error: `this server answers only Host ${[...allowed].join(', ')}; start it with --allow-host NAME to add one`,
    };
  }
  if (origin === undefined) return undefined;
  const lower = origin.toLowerCase();
  if (!lower.startsWith('http://') || !allowed.has(lower.slice('http://'.length))) {
    return { status: 403, error: 'requests from another origin are refused' };
  }
  return undefined;
}
