import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { classHeader, envoyVirtualHost } from './envoyVirtualHost.js';
import type { EdgeRulePlan, MeshPlan, ServicePlan } from './meshPlan.js';
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

/** The cluster of one class's calls to `upstream`, with per-class budgets: `geo.high`. */
export function classCluster(upstream: string, className: string): string {
  return `${upstream}.${className}`;
}

function checkClassBudgets(plan: MeshPlan, budgets: Readonly<Record<string, EnvoyClassBudget>>) {
  for (const [className, budget] of Object.entries(budgets)) {
    if (!plan.classes.includes(className)) {
      throw new InvalidArgumentError(
        `retry budget for class "${className}", which the network does not have (classes: ${plan.classes.join(', ')})`,
      );
    }
    const { budgetPercent, minRetryConcurrency } = budget;
    if (!(budgetPercent >= 0 && budgetPercent <= 100)) {
      throw new InvalidArgumentError(
        `retry budget of ${className}: expected a percentage in [0, 100], got ${budgetPercent}`,
      );
    }
    if (
      minRetryConcurrency !== undefined &&
      !(Number.isInteger(minRetryConcurrency) && minRetryConcurrency >= 0)
    ) {
      throw new InvalidArgumentError(
        `retry budget of ${className}: expected a minimum retry concurrency that is an integer ≥ 0, got ${minRetryConcurrency}`,
      );
    }
  }
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
