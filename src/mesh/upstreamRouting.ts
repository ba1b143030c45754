import { pathHasPrefix } from './edgeRules.js';

/** What routing needs of an upstream. */
export interface RoutableUpstream {
  readonly name: string;
  /**
   * Path prefix; default `/NAME`. `/` catches every path no other prefix takes.
   * @default `/NAME`
   */
  readonly prefix?: string;
  /** More `Host` names that reach this upstream (its name always does). */
  readonly hosts?: readonly string[];
  /** Where it is: its origin and an optional base path (`http://10.0.0.7:9001/api`). */
  readonly url: string;
}

/** Where a request goes: the upstream and the path to send there (with the query). */
export interface Route<U> {
  readonly upstream: U;
  readonly path: string;
  /** What matched: the `Host` (or an absolute-form target's host), or a path prefix. */
  readonly by: 'host' | 'prefix';
}

/**
 * Routes an outbound request to an upstream, first by `Host` (the upstream's name or one of its
 * `hosts`, any port, any case), else by the longest path prefix, matched on segment boundaries.
 *
 * - By host: the path goes on as sent: `Host: search`, `/find?q=1` → `URL/find?q=1`.
 * - By prefix: the prefix is stripped: `/search/find?q=1` → `URL/find?q=1`; `/search` → `URL/`.
 * - An absolute-form target (`GET http://search/find`, what a client sends to an HTTP proxy)
 *   routes by its host.
 *
 * A base path in the upstream's URL comes first: `http://h:1/api` + `/find` → `/api/find`.
 * Paths are compared as sent (no decoding, no dot-segment removal).
 * @example
 * ```ts
 * const route = upstreamRouter([{ name: 'search', url: 'http://127.0.0.1:9001' }]);
 * route('127.0.0.1:15001', '/search/find?q=1'); // { upstream: …search, path: '/find?q=1' }
 * route('search', '/find'); // { upstream: …search, path: '/find' }
 * ```
 */
export function upstreamRouter<U extends RoutableUpstream>(
  upstreams: readonly U[],
): (host: string | undefined, target: string) => Route<U> | undefined {
  const byHost = new Map<string, Entry<U>>();
  const byPrefix: { prefix: string; entry: Entry<U> }[] = [];
  for (const upstream of upstreams) {
    const basePath = new URL(upstream.url).pathname.replace(/\/+$/, '');
    const entry = { upstream, basePath };
    for (const host of [upstream.name, ...(upstream.hosts ?? [])]) {
      if (!byHost.has(host.toLowerCase())) byHost.set(host.toLowerCase(), entry);
    }
    const prefix = (upstream.prefix ?? `/${upstream.name}`).replace(/\/+$/, '');
    byPrefix.push({ prefix, entry });
  }
  byPrefix.sort((a, b) => b.prefix.length - a.prefix.length);

  const route = (host: string | undefined, target: string): Route<U> | undefined => {
    if (target.charCodeAt(0) !== 47 /* '/' */) return absoluteRoute(target);
    if (host !== undefined && byHost.size > 0) {
      const entry = byHost.get(hostName(host));
      if (entry !== undefined) {
        return { upstream: entry.upstream, path: entry.basePath + target, by: 'host' };
      }
    }
    for (const { prefix, entry } of byPrefix) {
      if (!pathHasPrefix(target, prefix)) continue;
      const rest = target.slice(prefix.length);
      const path = rest === '' || rest.charCodeAt(0) === 63 /* '?' */ ? `/${rest}` : rest;
      return { upstream: entry.upstream, path: entry.basePath + path, by: 'prefix' };
    }
    return undefined;
  };

  const absoluteRoute = (target: string): Route<U> | undefined => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
    const entry = byHost.get(url.hostname.toLowerCase());
    if (entry === undefined) return undefined;
    return {
      upstream: entry.upstream,
      path: entry.basePath + url.pathname + url.search,
      by: 'host',
    };
  };
  return route;
}

interface Entry<U> {
  readonly upstream: U;
  /** The URL's path without a final `/` (`` for none). */
  readonly basePath: string;
}

/** `Search:8080` → `search`; `[::1]:80` → `[::1]`. */
function hostName(host: string): string {
  const end = host.charCodeAt(0) === 91 /* '[' */ ? host.indexOf(']') + 1 : host.indexOf(':');
  return (end > 0 ? host.slice(0, end) : host).toLowerCase();
}
