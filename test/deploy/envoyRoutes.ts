import { protoDurationMs } from './durations.js';
import { minDefined, type ReadHop } from './readHop.js';

// Envoy's route matching, simulated for the tests: the route a request takes through a sidecar
// Envoy's virtual host (first match wins), the route a proxyless gRPC client takes from a served
// RouteConfiguration (gRFC A28), and the retry policy and timeouts Envoy reads off that route.

/** A header matcher, as the generators write them. */
export interface EnvoyHeaderMatcher {
  readonly name: string;
  readonly string_match?: {
    readonly exact?: string;
    readonly prefix?: string;
    readonly ignore_case?: boolean;
    readonly safe_regex?: { readonly regex: string };
  };
  readonly present_match?: boolean;
}

/** The parts of an Envoy route the tests read. */
export interface EnvoyRoute {
  readonly name: string;
  readonly match: {
    readonly prefix?: string;
    readonly path_separated_prefix?: string;
    readonly headers?: readonly EnvoyHeaderMatcher[];
  };
  readonly route: {
    readonly cluster: string;
    /** The whole request's timeout, all attempts included; Envoy's default is 15 s, `0s` none. */
    readonly timeout?: string;
    readonly retry_policy?: {
      /** Envoy's default is 1. */
      readonly num_retries?: number;
      readonly retry_on: string;
      readonly per_try_timeout?: string;
      readonly retry_back_off?: { readonly base_interval: string; readonly max_interval?: string };
    };
  };
  readonly request_headers_to_remove?: readonly string[];
  readonly request_headers_to_add?: readonly { readonly header: { key: string; value: string } }[];
}

/** A virtual host of a route config. */
export interface EnvoyVirtualHost {
  readonly name: string;
  readonly domains: readonly string[];
  readonly routes: readonly EnvoyRoute[];
}

/** The listeners of a bootstrap's static resources. */
export function listenersOf(bootstrap: Record<string, unknown>): { name: string }[] {
  return (bootstrap.static_resources as { listeners: { name: string }[] }).listeners;
}

/** The virtual hosts of a listener's route config (its first filter chain's HTTP manager). */
export function virtualHosts(listener: unknown): EnvoyVirtualHost[] {
  const chain = (listener as { filter_chains: { filters: { typed_config: unknown }[] }[] })
    .filter_chains[0];
  const config = chain?.filters[0]?.typed_config as {
    route_config: { virtual_hosts: EnvoyVirtualHost[] };
  };
  return config.route_config.virtual_hosts;
}

/** The virtual host of the calls to `upstream` in a sidecar's outbound listener (`Host: NAME`). */
export function outboundHost(
  bootstrap: Record<string, unknown>,
  upstream: string,
): EnvoyVirtualHost {
  const outbound = listenersOf(bootstrap).find((l) => l.name.startsWith('outbound_'));
  if (outbound === undefined) throw new Error(`no outbound listener for the calls to ${upstream}`);
  const host = virtualHosts(outbound).find((h) => h.domains.includes(upstream));
  if (host === undefined) throw new Error(`no outbound virtual host for ${upstream}`);
  return host;
}

/** The retries a route makes: its policy's (Envoy's default 1 when unset), none without one. */
export function retriesOf(route: EnvoyRoute): number {
  const policy = route.route.retry_policy;
  return policy === undefined ? 0 : (policy.num_retries ?? 1);
}

/** Envoy's path matches: `prefix` (characters), `path_separated_prefix` (whole segments). */
function pathMatches(match: EnvoyRoute['match'], path: string): boolean {
  if (match.prefix !== undefined) return path.startsWith(match.prefix);
  const prefix = match.path_separated_prefix;
  if (prefix === undefined) throw new Error('a route with no path match');
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** One header matcher against a value (undefined: the header is absent). */
function headerHolds(matcher: EnvoyHeaderMatcher, value: string | undefined): boolean {
  if (matcher.present_match) return value !== undefined;
  const match = matcher.string_match;
  if (match === undefined || value === undefined) return false;
  // A safe_regex matches the whole value (RE2 and JS agree on the generators' patterns).
  if (match.safe_regex !== undefined) return new RegExp(match.safe_regex.regex).test(value);
  if (match.prefix !== undefined) return value.startsWith(match.prefix);
  return match.ignore_case
    ? value.toLowerCase() === match.exact?.toLowerCase()
    : value === match.exact;
}

/**
 * The route Envoy picks for a request to `path` with `headers` (lower-case names; `:method` GET
 * unless given): the first whose match holds.
 */
export function firstMatch(
  host: EnvoyVirtualHost,
  path: string,
  given: Readonly<Record<string, string>>,
): EnvoyRoute {
  const headers: Record<string, string> = { ':method': 'GET', ...given };
  const found = host.routes.find(
    (route) =>
      pathMatches(route.match, path) &&
      (route.match.headers ?? []).every((h) => headerHolds(h, headers[h.name.toLowerCase()])),
  );
  if (found === undefined) throw new Error(`no route of ${host.name} matches ${path}`);
  return found;
}

/**
 * The route a proxyless gRPC client takes for a call carrying `metadata` (gRFC A28): its
 * `content-type` is application/grpc, and it has no `:method` to match.
 */
export function grpcRoute(
  routes: readonly EnvoyRoute[],
  metadata: Readonly<Record<string, string>>,
): EnvoyRoute {
  const value = (name: string) => (name === 'content-type' ? 'application/grpc' : metadata[name]);
  const found = routes.find((route) =>
    (route.match.headers ?? []).every((h) => headerHolds(h, value(h.name))),
  );
  if (found === undefined) throw new Error(`no route for ${JSON.stringify(metadata)}`);
  return found;
}

/** Envoy's route timeout when a route sets none. */
export const ENVOY_DEFAULT_ROUTE_TIMEOUT_MS = 15_000;

/** What Envoy does on a route: {@link ReadHop}, and the whole request's deadline. */
export interface EnvoyHop extends ReadHop {
  /**
   * The route's `timeout` (all attempts and backoffs included): Envoy's 15 s when unset,
   * undefined for `0s` (none).
   */
  readonly deadlineMs: number | undefined;
  /** The longest delay before one retry (`retry_back_off.max_interval`), 0 without a policy. */
  readonly maxBackoffMs: number;
}

/** Envoy's longest delay before one retry: `max_interval`, by default 10 × the base (25 ms). */
function maxBackoffMs(policy: EnvoyRoute['route']['retry_policy']): number {
  if (policy === undefined) return 0;
  const backOff = policy.retry_back_off;
  if (backOff === undefined) return 250;
  return backOff.max_interval === undefined
    ? 10 * protoDurationMs(backOff.base_interval)
    : protoDurationMs(backOff.max_interval);
}

/**
 * The hop a route gives: `num_retries`, and the per-try timeout written on it — the sooner of
 * `per_try_timeout` and the route's own `timeout` (with no retry policy there is one attempt, so
 * the request's timeout is the attempt's). Envoy's implicit 15 s route timeout is not in
 * `timeoutMs` but in `deadlineMs`, which bounds all the attempts together.
 */
export function envoyHop(route: EnvoyRoute): EnvoyHop {
  const policy = route.route.retry_policy;
  // A duration of 0 turns either timeout off.
  const read = (text: string | undefined) => {
    const ms = text === undefined ? undefined : protoDurationMs(text);
    return ms === 0 ? undefined : ms;
  };
  const timeout = read(route.route.timeout);
  return {
    retries: retriesOf(route),
    timeoutMs: minDefined(read(policy?.per_try_timeout), timeout),
    deadlineMs: route.route.timeout === undefined ? ENVOY_DEFAULT_ROUTE_TIMEOUT_MS : timeout,
    maxBackoffMs: maxBackoffMs(policy),
  };
}
