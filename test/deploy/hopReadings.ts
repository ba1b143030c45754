import { DEFAULT_GATEWAY } from '../../src/deploy/gatewayApi.js';
import { type ClassHop, callsInto } from '../../src/deploy/meshPlan.js';
import { routeName, XDS_TYPES } from '../../src/xds/xdsResources.js';
import type { Deployment } from './deployment.js';
import { type EnvoyRoute, envoyHop, firstMatch, grpcRoute, outboundHost } from './envoyRoutes.js';
import { gatewayHop, take } from './gatewayRule.js';
import {
  firstRoute,
  istioHop,
  istioRequest,
  type VirtualServiceSpec,
  virtualServices,
} from './istioRoutes.js';
import { linkerdHop } from './linkerdRetry.js';
import { routesOf } from './meshes/httpRouteMatch.js';
import type { ReadHop } from './readHop.js';
import { sidecarHop } from './sidecarHop.js';

// Every consumer's reading of one hop for one request: the model and the plan (per class), the
// caller's sidecar and Envoy (per caller), the routes attached to the callee (Istio, Linkerd,
// Gateway API, the xDS a gRPC client gets) and the edge routes in front of an edge service.

/** One consumer's reading of a hop, or why it has none (a platform would refuse the config). */
export interface Reading {
  /** The consumer and what it read: `envoy (gRPC)`, `istio (GET)`, `linkerd`, … */
  readonly consumer: string;
  readonly hop?: ReadHop;
  readonly error?: string;
  /** A route for the methods never retried: the same per-try timeout, no retry. */
  readonly noRetry?: boolean;
}

function read(consumer: string, hop: () => ReadHop, noRetry = false): Reading {
  try {
    return { consumer, hop: hop(), ...(noRetry && { noRetry }) };
  } catch (error) {
    return { consumer, error: error instanceof Error ? error.message : String(error) };
  }
}

const planHop = (hop: ClassHop | undefined): ReadHop => {
  if (hop === undefined) throw new Error('no such hop in the plan');
  return { retries: hop.retries, timeoutMs: hop.perTryTimeoutMs };
};

/** The class header of a request: none, or `value`. */
const headersOf = (d: Deployment, value: string | undefined): Record<string, string> =>
  value === undefined ? {} : { [d.plan.header]: value };

/**
 * The model's hop of class `className` into `callee` (`toNetworkModel`: the limit, and the
 * per-try timeout in seconds, read in ms).
 */
export function analysisReadings(d: Deployment, callee: string, className: string): Reading[] {
  const p = d.network.classes.findIndex((c) => c.name === className);
  const j = d.network.services.findIndex((s) => s.name === callee);
  const model = d.model.services[j];
  return [
    read('model', () => {
      const retries = model?.retryLimits[p];
      if (retries === undefined) throw new Error(`the model has no limit for ${className}`);
      const seconds = model?.timeouts?.[p];
      return { retries, timeoutMs: seconds === undefined ? undefined : seconds * 1000 };
    }),
  ];
}

/**
 * The plan's hop of `className` (undefined: a request with no or an unknown class) into
 * `callee`: from `caller`'s upstreams, or with no caller its `calls` (what a caller outside the
 * plan's services uses, `callsInto`).
 */
export function planReadings(
  d: Deployment,
  caller: string | undefined,
  callee: string,
  className: string | undefined,
): Reading[] {
  const pick = (classes: readonly ClassHop[], unclassified: ClassHop) =>
    planHop(
      className === undefined ? unclassified : classes.find((h) => h.className === className),
    );
  if (caller === undefined) {
    return [
      read('meshPlan (calls)', () => {
        const service = d.plan.services.find((s) => s.name === callee);
        if (service === undefined) throw new Error(`the plan has no service ${callee}`);
        const into = callsInto(d.plan, service);
        return pick(into.classes, into.unclassified);
      }),
    ];
  }
  return [
    read('meshPlan (upstreams)', () => {
      const upstream = d.plan.services
        .find((s) => s.name === caller)
        ?.upstreams.find((u) => u.service === callee);
      if (upstream === undefined) throw new Error(`the plan has no upstream ${callee}`);
      return pick(upstream.classes, upstream.unclassified);
    }),
  ];
}

/** The hop of a call from `caller` to `callee` carrying `classValue`, as the caller makes it. */
export function callerReadings(
  d: Deployment,
  caller: string,
  callee: string,
  classValue: string | undefined,
): Reading[] {
  const headers = headersOf(d, classValue);
  const bootstrap = d.envoy.get(caller)?.bootstrap ?? {};
  const envoy = (route: () => EnvoyRoute) => () => envoyHop(route());
  const host = () => outboundHost(bootstrap, callee);
  return [
    read('sidecar (upstreamHop)', () => {
      const config = d.sidecars.get(caller);
      if (config === undefined) throw new Error(`no sidecar config for ${caller}`);
      return sidecarHop(config, callee, classValue);
    }),
    read(
      'envoy (GET)',
      envoy(() => firstMatch(host(), '/any/path', headers)),
    ),
    read(
      'envoy (gRPC)',
      envoy(() =>
        firstMatch(host(), '/shop.Cart/Add', {
          ...headers,
          ':method': 'POST',
          'content-type': 'application/grpc',
        }),
      ),
    ),
    read(
      'envoy (POST)',
      envoy(() => firstMatch(host(), '/any/path', { ...headers, ':method': 'POST' })),
      true,
    ),
  ];
}

/** The routes of the xDS RouteConfiguration a gRPC client of `service` gets. */
export function xdsRoutes(d: Deployment, service: string): readonly EnvoyRoute[] {
  const listener = d.xds.get(XDS_TYPES.listener)?.get(service) as
    | { api_listener: { api_listener: { rds: { route_config_name: string } } } }
    | undefined;
  const name = listener?.api_listener.api_listener.rds.route_config_name;
  if (name !== routeName(service)) throw new Error(`no xDS listener for ${service}`);
  const config = d.xds.get(XDS_TYPES.route)?.get(name) as
    | { virtual_hosts: { domains: string[]; routes: EnvoyRoute[] }[] }
    | undefined;
  const host = config?.virtual_hosts.find((h) => h.domains.includes(service));
  if (host === undefined) throw new Error(`no xDS virtual host for ${service}`);
  return host.routes;
}

/** Whether some service calls `service` (then the meshes attach routes to it). */
export function hasCallers(d: Deployment, service: string): boolean {
  return d.plan.services.some((s) => s.upstreams.some((u) => u.service === service));
}

/**
 * The hop of a call into `callee` carrying `classValue` from any caller: the xDS routes as served (what Envoy reads; see `xdsClientRetries` for a gRPC client) and,
 * where the service has callers, the routes Istio, Linkerd and Gateway API attach to it.
 */
export function calleeReadings(
  d: Deployment,
  callee: string,
  classValue: string | undefined,
): Reading[] {
  const headers = headersOf(d, classValue);
  const name = d.names.get(callee) as string;
  const readings = [
    read('xds (served route)', () => envoyHop(grpcRoute(xdsRoutes(d, callee), headers))),
  ];
  if (!hasCallers(d, callee)) return readings;
  const mesh = () => {
    const spec = virtualServices(d.istio.objects).mesh.get(name);
    if (spec === undefined) throw new Error(`no VirtualService for ${name}`);
    return spec;
  };
  const istio =
    (method: string, extra: Record<string, string> = {}) =>
    () =>
      istioHop(firstRoute(mesh(), istioRequest({ ...headers, ...extra }, '/any/path', method)));
  const httpRequest = { path: '/any/path', method: 'GET', headers };
  const attached = (objects: readonly unknown[]) => routesOf(objects, { kind: 'Service', name });
  return [
    ...readings,
    read('istio (GET)', istio('GET')),
    read('istio (gRPC)', istio('POST', { 'content-type': 'application/grpc' })),
    read('istio (POST)', istio('POST'), true),
    read('linkerd', () =>
      linkerdHop(take(attached(d.linkerd.objects), httpRequest).route.metadata.annotations),
    ),
    read('gateway-api', () => gatewayHop(take(attached(d.gatewayApi.objects), httpRequest).rule)),
  ];
}

/** The ingress VirtualService in front of `service`. */
function ingressOf(d: Deployment, service: string): VirtualServiceSpec {
  const name = d.names.get(service);
  const spec = virtualServices(d.istio.objects).ingress.find((s) =>
    s.http.some((route) => route.route[0]?.destination.host === name),
  );
  if (spec === undefined) throw new Error(`no ingress VirtualService for ${service}`);
  return spec;
}

/**
 * The hop of an external request into an edge service carrying `classValue` (which the edge
 * replaces): Istio's ingress VirtualService and the Gateway API route on the Gateway.
 */
export function edgeReadings(
  d: Deployment,
  service: string,
  classValue: string | undefined,
): Reading[] {
  const headers = headersOf(d, classValue);
  const name = d.names.get(service) as string;
  return [
    read('istio ingress', () => istioHop(firstRoute(ingressOf(d, service), istioRequest(headers)))),
    read('gateway-api edge', () => {
      const routes = routesOf(d.gatewayApi.objects, { kind: 'Gateway', name: DEFAULT_GATEWAY });
      // With several edges each route names its own host; with one, it names none.
      return gatewayHop(take(routes, { path: '/', method: 'GET', host: name, headers }).rule);
    }),
  ];
}
