import type { KubernetesObject } from '../../src/deploy/kubernetesObject.js';
import { istioDurationMs } from './durations.js';
import { minDefined, type ReadHop } from './readHop.js';

// Istio's http route matching, simulated for the tests: the route of a VirtualService a request
// takes (the first whose match holds), and the retries and per-try timeout Istio gives it.

export interface IstioStringMatch {
  readonly exact?: string;
  readonly prefix?: string;
  readonly regex?: string;
}
export interface IstioMatchRequest {
  readonly uri?: IstioStringMatch;
  readonly method?: IstioStringMatch;
  readonly headers?: Readonly<Record<string, IstioStringMatch>>;
}
export interface IstioRetries {
  readonly attempts?: number;
  readonly perTryTimeout?: string;
  readonly retryOn?: string;
  readonly backoff?: string;
}
export interface IstioHttpRoute {
  readonly name: string;
  readonly match?: readonly IstioMatchRequest[];
  readonly headers?: {
    readonly request?: {
      readonly set?: Readonly<Record<string, string>>;
      readonly remove?: readonly string[];
    };
  };
  readonly route: readonly { destination: { host: string; port: { number: number } } }[];
  readonly retries?: IstioRetries;
  readonly timeout?: string;
}
export interface VirtualServiceSpec {
  readonly hosts: readonly string[];
  readonly gateways?: readonly string[];
  readonly http: readonly IstioHttpRoute[];
}
export interface IstioRequest {
  readonly path: string;
  readonly method: string;
  /** Lower-case names, as Envoy sees them. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A request to `path` (default `/any/path`) with `method` (default GET). */
export const istioRequest = (
  headers: Record<string, string>,
  path = '/any/path',
  method = 'GET',
): IstioRequest => ({ path, method, headers });

/** An RE2 pattern as Envoy's safe_regex applies it: the whole value; a leading `(?i)` ignores case. */
export function wholeValue(pattern: string): RegExp {
  const ignoreCase = pattern.startsWith('(?i)');
  return new RegExp(`^(?:${ignoreCase ? pattern.slice(4) : pattern})$`, ignoreCase ? 'i' : '');
}

/** Istio's StringMatch; an empty one means "present". */
function stringMatches(match: IstioStringMatch, value: string | undefined): boolean {
  if (match.exact === undefined && match.prefix === undefined && match.regex === undefined) {
    return value !== undefined;
  }
  if (value === undefined) return false;
  if (match.exact !== undefined) return value === match.exact;
  if (match.prefix !== undefined) return value.startsWith(match.prefix);
  return wholeValue(match.regex as string).test(value);
}

/** One match entry: every condition in it holds (AND). */
function entryHolds(entry: IstioMatchRequest, request: IstioRequest): boolean {
  return (
    (entry.uri === undefined || stringMatches(entry.uri, request.path)) &&
    (entry.method === undefined || stringMatches(entry.method, request.method)) &&
    Object.entries(entry.headers ?? {}).every(([name, m]) =>
      stringMatches(m, request.headers[name]),
    )
  );
}

/** The route Istio picks: the first whose match list is empty or has an entry that holds (OR). */
export function firstRoute(spec: VirtualServiceSpec, request: IstioRequest): IstioHttpRoute {
  const found = spec.http.find(
    (route) => route.match === undefined || route.match.some((entry) => entryHolds(entry, request)),
  );
  if (found === undefined) throw new Error(`no route of ${spec.hosts.join(',')} matches`);
  return found;
}

/** The spec of a VirtualService object. */
export const specOf = (object: KubernetesObject | undefined): VirtualServiceSpec =>
  (object as unknown as { spec: VirtualServiceSpec }).spec;

/** The VirtualServices of a manifest: the mesh's by host, and the ingress ones in order. */
export function virtualServices(objects: readonly KubernetesObject[]): {
  mesh: Map<string, VirtualServiceSpec>;
  ingress: VirtualServiceSpec[];
} {
  const vs = objects.filter((o) => o.kind === 'VirtualService');
  return {
    mesh: new Map(
      vs
        .filter((o) => specOf(o).gateways === undefined)
        .map((o) => [specOf(o).hosts[0] as string, specOf(o)]),
    ),
    ingress: vs.filter((o) => specOf(o).gateways !== undefined).map(specOf),
  };
}

/** Istio's retry attempts when a route sets no `retries`. */
export const ISTIO_DEFAULT_ATTEMPTS = 2;

/**
 * The hop Istio gives a route: `attempts` retries (2 when unset), and the per-try timeout —
 * `perTryTimeout`, which defaults to the route's `timeout` (none when unset), and never outlasts
 * it. Durations Istio's validation refuses throw (see {@link istioDurationMs}).
 */
export function istioHop(route: IstioHttpRoute): ReadHop {
  const read = (text: string | undefined) =>
    text === undefined ? undefined : istioDurationMs(text);
  return {
    retries: route.retries?.attempts ?? ISTIO_DEFAULT_ATTEMPTS,
    timeoutMs: minDefined(read(route.retries?.perTryTimeout), read(route.timeout)),
  };
}
