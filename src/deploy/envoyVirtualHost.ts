import { envoyRouteAction } from './envoyRetryPolicy.js';
import type { ClassHop, MeshPlan, UpstreamPlan } from './meshPlan.js';

/** A whole-value RE2 regex of the retried methods: `^(GET|HEAD|…)$`. */
export function methodRegex(plan: MeshPlan): string {
  const escaped = plan.retryMethods.map((m) => m.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&'));
  return `^(${escaped.join('|')})$`;
}

/** The `content-type` of a gRPC request (`application/grpc`, `application/grpc+proto`, …). */
const GRPC_CONTENT_TYPE = 'application/grpc';

/**
 * The virtual host of the calls to one upstream (`domains`: its name, with any port): per class,
 * highest first, then for a request with no or an unknown class (the default class, named in the
 * header for the next hop), three routes under the class's match:
 * 1. gRPC (`content-type` application/grpc…), retried with the class's policy: gRPC calls are
 *    POSTs the runtime still retries, and a proxyless gRPC client matches this route;
 * 2. the retried methods (`:method` by whole-value regex), with the class's policy;
 * 3. every other method, with no retry (the sidecar never retries a POST), same class, cluster
 *    and per-try timeout.
 * The same routes serve a sidecar Envoy and, over xDS, proxyless gRPC clients.
 */
export function envoyVirtualHost(
  plan: MeshPlan,
  upstream: UpstreamPlan,
  clusterOf: (upstream: string, className: string) => string = (name) => name,
): Record<string, unknown> {
  const grpc = { name: 'content-type', string_match: { prefix: GRPC_CONTENT_TYPE } };
  const retried = { name: ':method', string_match: { safe_regex: { regex: methodRegex(plan) } } };
  const routesOf = (
    hop: ClassHop,
    name: string,
    match: Record<string, unknown>[],
    extra: Record<string, unknown>,
  ) => {
    const route = (retries: number) =>
      envoyRouteAction(plan, { ...hop, retries }, clusterOf(upstream.service, hop.className));
    return [
      {
        name: `${name}-grpc`,
        match: { prefix: '/', headers: [...match, grpc] },
        ...extra,
        route: route(hop.retries),
      },
      {
        name,
        match: { prefix: '/', headers: [...match, retried] },
        ...extra,
        route: route(hop.retries),
      },
      {
        name: `${name}-other-methods`,
        match: { prefix: '/', ...(match.length > 0 && { headers: match }) },
        ...extra,
        route: route(0),
      },
    ];
  };
  return {
    name: upstream.service,
    domains: [upstream.service, `${upstream.service}:*`],
    routes: [
      ...upstream.classes.flatMap((hop) =>
        routesOf(
          hop,
          `${upstream.service}-${hop.className}`,
          [{ name: plan.header, string_match: { exact: hop.className, ignore_case: true } }],
          {},
        ),
      ),
      // No class, or one the network does not know: the default class, named for the next hop.
      ...routesOf(upstream.unclassified, `${upstream.service}-unclassified`, [], {
        request_headers_to_add: [classHeader(plan, upstream.unclassified.className)],
      }),
    ],
  };
}

/** The class header set to `className`, replacing any the request has. */
export function classHeader(plan: MeshPlan, className: string) {
  return {
    header: { key: plan.header, value: className },
    append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
  };
}
