import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import { protoDuration } from './durations.js';
import type { ClassHop, EdgeRulePlan, MeshPlan, ServicePlan, UpstreamPlan } from './meshPlan.js';
import { strictEdgeConnectionManager } from './strictEdge.js';

/** Where each service's sidecar Envoy listens and what it reaches (one pod per service). */
export interface EnvoyPorts {
  /**
   * The inbound listener, in front of the application.
   * @default 15006
   */
  readonly inbound?: number;
  /**
   * The outbound listener the application sends its calls to (with `Host: SERVICE`).
   * @default 15001
   */
  readonly outbound?: number;
  /**
   * The application's port on 127.0.0.1.
   * @default 8080
   */
  readonly app?: number;
  /**
   * The port of an upstream service's name (its Kubernetes Service, in front of its inbound
   * listener).
   * @default 80
   */
  readonly upstream?: number;
  /**
   * Envoy's admin interface on 127.0.0.1 (config dump, stats).
   * @default 9901
   */
  readonly admin?: number;
}

/** Envoy's retry budget of one class (`circuit_breakers.thresholds[].retry_budget`). */
export interface EnvoyClassBudget {
  /** Active retries allowed, as a percentage of the class's active requests, in [0, 100]. */
  readonly budgetPercent: number;
  /**
   * Active retries always allowed, however few requests are active.
   * @default 3 (Envoy's)
   */
  readonly minRetryConcurrency?: number;
}

/** Options of {@link envoySidecars}. */
export interface EnvoyOptions {
  readonly ports?: EnvoyPorts;
  /**
   * A retry budget per class. Envoy keeps budgets per cluster, not per route, so with budgets
   * every upstream gets one cluster per class over the same endpoints (`B.high`, `B.low`), each
   * class's routes go to its own cluster, and each cluster carries its class's budget. A class
   * with no entry gets no budget (only its retry limit caps it). Without budgets: one cluster per
   * upstream.
   */
  readonly classBudgets?: Readonly<Record<string, EnvoyClassBudget>>;
  /**
   * The DNS name each upstream's cluster resolves, by its network name: on Kubernetes its
   * Service, `NAME.NAMESPACE.svc.cluster.local`.
   * @default the upstream's network name
   */
  readonly upstreamHost?: (service: string) => string;
}

/** One service's sidecar Envoy: a bootstrap with static resources, and the same as xDS. */
export interface EnvoySidecar {
  readonly service: string;
  /** An `envoy.config.bootstrap.v3.Bootstrap` (proto JSON, snake_case). */
  readonly bootstrap: Record<string, unknown>;
  /** `envoy.service.discovery.v3.DiscoveryResponse`s: the listeners, then the clusters. */
  readonly xds: {
    readonly listeners: Record<string, unknown>;
    readonly clusters: Record<string, unknown>;
  };
}

/** The `@type` of Envoy's HTTP connection manager (`typed_config` of its network filter). */
export const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
const LISTENER_TYPE = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const CLUSTER_TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
/** The local application's cluster on the inbound side. */
export const LOCAL_APP_CLUSTER = 'local_app';
/** The longest wait a server's Retry-After may ask for (the runtime's maxPushbackMs). */
const MAX_PUSHBACK_S = 60;
/**
 * Envoy's circuit breakers cap concurrent retries per cluster at 3 unless told otherwise; DiffTry
 * caps retries by class alone, so every upstream cluster lifts that implicit cap.
 */
const UNLIMITED = 4_294_967_295;

/**
 * The sidecar Envoy of every service of a mesh plan (see {@link meshPlan}):
 * - **outbound**: a virtual host per upstream (domains: its name), with one route per class
 *   matched on the class header (exact, any case) carrying that class's `retry_policy` at this
 *   hop, then a final route for a request with no or an unknown class, which gets the default
 *   class's policy and the default class in its header — no request ever falls to Envoy's
 *   implicit retry default;
 * - **retry_policy**: `num_retries` = the class's k at the upstream; `retry_on`
 *   connect-failure, reset, refused-stream and retriable-status-codes (503 and 429); the per-try
 *   timeout; the backoff (see {@link envoyBackOff}); a server's `Retry-After` honoured up to 60 s;
 * - **inbound**: admission as the local cluster's circuit breaker (`max_requests` = c,
 *   `max_pending_requests` = m − c), its 503s without `x-envoy-overloaded` (which a caller's
 *   Envoy would never retry: the router's `suppress_envoy_headers`), and at the edge the client's class header removed on every
 *   route and set by the edge rules (first match wins), else to the edge's default class, its
 *   connection manager as strict as the sidecar's edge (see {@link strictEdgeConnectionManager}).
 */
export function envoySidecars(plan: MeshPlan, options: EnvoyOptions = {}): EnvoySidecar[] {
  const ports = options.ports ?? {};
  const budgets = options.classBudgets;
  if (budgets !== undefined) checkClassBudgets(plan, budgets);
  const hostOf = options.upstreamHost ?? ((service: string) => service);
  const resolved = {
    inbound: ports.inbound ?? 15_006,
    outbound: ports.outbound ?? 15_001,
    app: ports.app ?? 8080,
    upstream: ports.upstream ?? 80,
    admin: ports.admin ?? 9901,
  };
  return plan.services.map((service) => {
    const listeners = [inboundListener(plan, service, resolved.inbound)];
    if (service.upstreams.length > 0)
      listeners.push(outboundListener(plan, service, resolved.outbound, budgets !== undefined));
    const clusters = [
      localAppCluster(service, resolved.app),
      ...service.upstreams.flatMap((upstream) =>
        budgets === undefined
          ? [
              upstreamCluster(
                upstream.service,
                hostOf(upstream.service),
                resolved.upstream,
                undefined,
              ),
            ]
          : plan.classes.map((className) =>
              upstreamCluster(
                classCluster(upstream.service, className),
                hostOf(upstream.service),
                resolved.upstream,
                budgets[className],
              ),
            ),
      ),
    ];
    return {
      service: service.name,
      bootstrap: {
        node: { id: service.name, cluster: service.name },
        admin: { address: socketAddress('127.0.0.1', resolved.admin) },
        static_resources: { listeners, clusters },
      },
      xds: {
        listeners: discoveryResponse(LISTENER_TYPE, listeners),
        clusters: discoveryResponse(CLUSTER_TYPE, clusters),
      },
    };
  });
}

/**
 * Envoy's `retry_back_off` for a backoff. Envoy draws every delay uniformly from
 * [0, min(base · (2ⁿ − 1)..., max)] ("fully jittered exponential"), so only some laws map:
 * `exponential` keeps its base and cap; `constant` (d) becomes base = max = 2d and `random`
 * (mean μ) base = max = 2μ, which keep the mean delay of every retry (d or μ) but not its spread.
 */
export function envoyBackOff(backoff: BackoffDescription): {
  base_interval: string;
  max_interval: string;
} {
  switch (backoff.kind) {
    case 'exponential':
      return {
        base_interval: protoDuration(backoff.baseMs),
        max_interval: protoDuration(backoff.maxMs ?? Math.max(backoff.baseMs * 10, backoff.baseMs)),
      };
    case 'constant':
      return {
        base_interval: protoDuration(2 * backoff.delayMs || 1),
        max_interval: protoDuration(2 * backoff.delayMs || 1),
      };
    case 'random':
      return {
        base_interval: protoDuration(2 * backoff.meanMs || 1),
        max_interval: protoDuration(2 * backoff.meanMs || 1),
      };
  }
}

/**
 * Envoy's `retry_on`: the transport failures, the retried statuses (`retriable-status-codes`)
 * and the retried gRPC codes (which proxyless gRPC clients read, and Envoy applies to gRPC).
 */
export function envoyRetryOn(plan: MeshPlan): string {
  return [...plan.retryConditions, 'retriable-status-codes', ...plan.grpcRetryCodes].join(',');
}

/**
 * The route action of one class at one hop: its cluster and retry policy. With k = 0 there is no
 * `retry_policy` at all (Envoy then makes one attempt, and proxyless gRPC refuses a policy of 0
 * retries), and a per-try timeout becomes the route's `timeout`, the only attempt's. Otherwise
 * the route's `timeout` is `0s`, none: Envoy ends a request at 15 s when a route sets no
 * timeout, which would cut a hop's attempts short of the k + 1 the analysis counts (Istio turns
 * it off alike). gRPC clients read neither.
 */
export function envoyRouteAction(
  plan: MeshPlan,
  hop: ClassHop,
  cluster: string,
): Record<string, unknown> {
  if (hop.retries > 0) {
    return { cluster, timeout: NO_ROUTE_TIMEOUT, retry_policy: envoyRetryPolicy(plan, hop) };
  }
  return {
    cluster,
    timeout:
      hop.perTryTimeoutMs === undefined ? NO_ROUTE_TIMEOUT : protoDuration(hop.perTryTimeoutMs),
  };
}

/** A route `timeout` of zero: Envoy's way to say none (its default is 15 s). */
const NO_ROUTE_TIMEOUT = '0s';

/** The retry policy of one class at one hop (k > 0; see {@link envoyRouteAction}). */
export function envoyRetryPolicy(plan: MeshPlan, hop: ClassHop): Record<string, unknown> {
  return {
    retry_on: envoyRetryOn(plan),
    retriable_status_codes: [...plan.retryStatuses],
    num_retries: hop.retries,
    ...(hop.perTryTimeoutMs !== undefined && {
      per_try_timeout: protoDuration(hop.perTryTimeoutMs),
    }),
    retry_back_off: envoyBackOff(hop.backoff),
    rate_limited_retry_back_off: {
      reset_headers: [{ name: 'retry-after', format: 'SECONDS' }],
      max_interval: `${MAX_PUSHBACK_S}s`,
    },
  };
}

/** gRPC's most attempts of one call (gRFC A6): a route's `num_retries` above 4 acts as 4. */
export const GRPC_MAX_ATTEMPTS = 5;

/** A class whose retry limit somewhere is above what gRPC allows, and its largest k. */
export interface GrpcCappedClass {
  readonly className: string;
  /** The largest k of the class at any hop. */
  readonly retries: number;
}

/**
 * The classes gRPC's cap of {@link GRPC_MAX_ATTEMPTS} attempts a call cuts: those with k above 4
 * at some hop (a service's own override included), in class order, with their largest k.
 */
export function grpcCappedClasses(plan: MeshPlan): GrpcCappedClass[] {
  return plan.classes.flatMap((className) => {
    const limits = plan.services.flatMap((service) =>
      service.calls.filter((hop) => hop.className === className).map((hop) => hop.retries),
    );
    const retries = Math.max(0, ...limits);
    return retries > GRPC_MAX_ATTEMPTS - 1 ? [{ className, retries }] : [];
  });
}

/** A class with a per-try timeout at some hop, and the services whose calls have one. */
export interface TimedClass {
  readonly className: string;
  /** The services a call into which has a per-try timeout for the class, in plan order. */
  readonly services: readonly string[];
}

/**
 * The classes whose per-try timeouts proxyless gRPC clients do not apply: gRPC's xDS client
 * ignores a route's `per_try_timeout` (and `timeout`; gRFC A44), so only Envoy times them out.
 */
export function grpcUntimedClasses(plan: MeshPlan): TimedClass[] {
  return plan.classes.flatMap((className) => {
    const services = plan.services
      .filter((service) =>
        service.calls.some(
          (hop) => hop.className === className && hop.perTryTimeoutMs !== undefined,
        ),
      )
      .map((service) => service.name);
    return services.length === 0 ? [] : [{ className, services }];
  });
}

/**
 * What a plan asks of Envoy that some data planes of the same config cannot give, one sentence
 * each (for the generated files' comments): the classes whose retry limit somewhere is above
 * what proxyless gRPC clients allow over xDS, those whose per-try timeouts they ignore, and the
 * edge rules on secret values, left out.
 */
export function envoyLimits(plan: MeshPlan): string[] {
  const grpc = grpcCappedClasses(plan).map(
    ({ className, retries: k }) =>
      `gRPC clients served this over xDS make at most ${GRPC_MAX_ATTEMPTS} attempts: class ${className} (k up to ${k}) gets ${GRPC_MAX_ATTEMPTS - 1} retries there; Envoy itself makes all ${k}.`,
  );
  const untimed = grpcUntimedClasses(plan).map(
    ({ className, services }) =>
      `gRPC clients served this over xDS ignore per-try timeouts: class ${className}'s (on calls into ${services.join(', ')}) does not reach them, their own deadline applies; Envoy applies it.`,
  );
  const secrets = plan.services.flatMap((service) => {
    const skipped = service.edgeRules.filter((rule) => rule.valueEnv !== undefined);
    return skipped.length === 0
      ? []
      : [
          `${service.name}: the edge rules on secret values (${skipped.map((r) => `$${r.valueEnv}`).join(', ')}) are left out (a static config cannot read them), so those requests get another rule's class or the edge's default.`,
        ];
  });
  return [...grpc, ...untimed, ...secrets];
}

/** A whole-value RE2 regex of the retried methods: `^(GET|HEAD|…)$`. */
export function methodRegex(plan: MeshPlan): string {
  const escaped = plan.retryMethods.map((m) => m.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&'));
  return `^(${escaped.join('|')})$`;
}

/** The cluster of one class's calls to `upstream`, with per-class budgets: `geo.high`. */
export function classCluster(upstream: string, className: string): string {
  return `${upstream}.${className}`;
}

function checkClassBudgets(plan: MeshPlan, budgets: Readonly<Record<string, EnvoyClassBudget>>) {
  for (const [className, budget] of Object.entries(budgets)) {
    if (!plan.classes.includes(className)) {
      throw new RangeError(
        `retry budget for class "${className}", which the network does not have (classes: ${plan.classes.join(', ')})`,
      );
    }
    const { budgetPercent, minRetryConcurrency } = budget;
    if (!(budgetPercent >= 0 && budgetPercent <= 100)) {
      throw new RangeError(
        `retry budget of ${className}: expected a percentage in [0, 100], got ${budgetPercent}`,
      );
    }
    if (
      minRetryConcurrency !== undefined &&
      !(Number.isInteger(minRetryConcurrency) && minRetryConcurrency >= 0)
    ) {
      throw new RangeError(
        `retry budget of ${className}: expected a minimum retry concurrency that is an integer ≥ 0, got ${minRetryConcurrency}`,
      );
    }
  }
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

function outboundListener(plan: MeshPlan, service: ServicePlan, port: number, perClass: boolean) {
  const clusterOf = (upstream: string, className: string) =>
    perClass ? classCluster(upstream, className) : upstream;
  const virtualHosts = service.upstreams.map((upstream) =>
    envoyVirtualHost(plan, upstream, clusterOf),
  );
  return httpListener(
    `outbound_${service.name}`,
    '127.0.0.1',
    port,
    `outbound_${service.name}`,
    virtualHosts,
  );
}

function inboundListener(plan: MeshPlan, service: ServicePlan, port: number) {
  const toApp = { cluster: LOCAL_APP_CLUSTER };
  const routes = service.edge
    ? [
        ...service.edgeRules
          .filter((rule) => rule.valueEnv === undefined)
          .map((rule, i) => ({
            name: `edge-${i}-${rule.className}`,
            match: edgeMatch(rule),
            request_headers_to_remove: [plan.header],
            request_headers_to_add: [classHeader(plan, rule.className)],
            route: toApp,
          })),
        {
          name: 'edge-default',
          match: { prefix: '/' },
          request_headers_to_remove: [plan.header],
          request_headers_to_add: [classHeader(plan, service.edgeDefault)],
          route: toApp,
        },
      ]
    : [{ name: 'inbound', match: { prefix: '/' }, route: toApp }];
  // Envoy never retries a response carrying x-envoy-overloaded, and its router adds that header
  // to the 503 of a full circuit breaker: the admission rejections DiffTry exists to retry. The
  // inbound router therefore sends no x-envoy-* response headers.
  return httpListener(
    `inbound_${service.name}`,
    '0.0.0.0',
    port,
    `inbound_${service.name}`,
    [{ name: service.name, domains: ['*'], routes }],
    { suppress_envoy_headers: true },
    // At the edge Envoy refuses what the sidecar's edge refuses, as far as its API can say it:
    // edge rules see the normalised path (`/x/../premium` is `/premium`), `%2F` gets 400,
    // `x_priority` never reaches the application, and the sidecar's header limits and timeouts
    // hold. See strictEdgeConnectionManager; two Host lines have no Envoy field.
    service.edge ? strictEdgeConnectionManager() : {},
  );
}

function edgeMatch(rule: EdgeRulePlan): Record<string, unknown> {
  const headers: Record<string, unknown>[] = [];
  if (rule.method !== undefined) {
    headers.push({ name: ':method', string_match: { exact: rule.method.toUpperCase() } });
  }
  if (rule.header !== undefined) {
    headers.push(
      rule.value === undefined
        ? { name: rule.header, present_match: true }
        : { name: rule.header, string_match: { exact: rule.value } },
    );
  }
  // The sidecar matches a path prefix on segment boundaries (`/a` matches `/a/b`, not `/ab`):
  // Envoy's path_separated_prefix, which takes no trailing slash.
  const path = (rule.path ?? '/').replace(/\/+$/, '');
  return {
    ...(path === '' ? { prefix: '/' } : { path_separated_prefix: path }),
    ...(headers.length > 0 && { headers }),
  };
}

function classHeader(plan: MeshPlan, className: string) {
  return {
    header: { key: plan.header, value: className },
    append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
  };
}

function httpListener(
  name: string,
  host: string,
  port: number,
  statPrefix: string,
  virtualHosts: readonly Record<string, unknown>[],
  router: Record<string, unknown> = {},
  connectionManager: Record<string, unknown> = {},
) {
  return {
    name,
    address: socketAddress(host, port),
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': HCM_TYPE,
              stat_prefix: statPrefix,
              ...connectionManager,
              route_config: { name, virtual_hosts: virtualHosts },
              http_filters: [
                {
                  name: 'envoy.filters.http.router',
                  typed_config: { '@type': ROUTER_TYPE, ...router },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

function localAppCluster(service: ServicePlan, port: number) {
  return {
    name: LOCAL_APP_CLUSTER,
    connect_timeout: '1s',
    type: 'STATIC',
    load_assignment: endpoints(LOCAL_APP_CLUSTER, '127.0.0.1', port),
    // Admission: c requests at the application, m − c waiting; the rest get 503 at once.
    circuit_breakers: {
      thresholds: [
        {
          priority: 'DEFAULT',
          max_requests: service.concurrency,
          max_pending_requests: Math.max(0, service.capacity - service.concurrency),
          max_retries: 0,
        },
      ],
    },
  };
}

function upstreamCluster(
  name: string,
  host: string,
  port: number,
  budget: EnvoyClassBudget | undefined,
) {
  return {
    name,
    connect_timeout: '1s',
    type: 'STRICT_DNS',
    load_assignment: endpoints(name, host, port),
    circuit_breakers: {
      thresholds: [
        budget === undefined
          ? // Only the class limits cap retries (Envoy's implicit cap is 3 at a time).
            { priority: 'DEFAULT', max_retries: UNLIMITED }
          : {
              priority: 'DEFAULT',
              retry_budget: {
                budget_percent: { value: budget.budgetPercent },
                ...(budget.minRetryConcurrency !== undefined && {
                  min_retry_concurrency: budget.minRetryConcurrency,
                }),
              },
            },
      ],
    },
  };
}

function endpoints(clusterName: string, host: string, port: number) {
  return {
    cluster_name: clusterName,
    endpoints: [{ lb_endpoints: [{ endpoint: { address: socketAddress(host, port) } }] }],
  };
}

function socketAddress(address: string, port: number) {
  return { socket_address: { address, port_value: port } };
}

function discoveryResponse(typeUrl: string, resources: readonly Record<string, unknown>[]) {
  return {
    version_info: 'difftry',
    type_url: typeUrl,
    resources: resources.map((resource) => ({ '@type': typeUrl, ...resource })),
  };
}
