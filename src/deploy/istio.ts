import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { protoDuration } from './durations.js';
import { envoyBackOff } from './envoyRetryPolicy.js';
import { methodRegex } from './envoyVirtualHost.js';
import { gatewayStrictnessLimit, strictEdgeFilter } from './istioStrictEdge.js';
import { isDnsLabel, kubernetesNames } from './kubernetesNames.js';
import { type KubernetesObject, type MeshManifest, objectMeta } from './kubernetesObject.js';
import type { ClassHop, EdgeRulePlan, MeshPlan, ServicePlan } from './meshPlan.js';
import { wholeMs, wholeMsLimits } from './wholeMsTimeouts.js';

/** Options of {@link istioManifest}. */
export interface IstioOptions {
  /** The namespace of every object (and of the services, whose short names are the hosts). */
  readonly namespace: string;
  /**
   * An existing Istio Gateway for the edge, as `NAME` (in `namespace`) or `NAMESPACE/NAME`;
   * then no Gateway is generated. Without it the manifest has its own Gateway,
   * {@link DEFAULT_GATEWAY}, on the ingress gateway pods (`istio: ingressgateway`), port 80.
   */
  readonly gateway?: string;
  /**
   * The hosts the edge answers for, on the Gateway and on each ingress VirtualService.
   * @default ['*']
   */
  readonly hosts?: readonly string[];
}

/** The API every generated object belongs to. */
export const ISTIO_API_VERSION = 'networking.istio.io/v1';
/** The name of the Gateway generated when no `gateway` is given. */
export const DEFAULT_GATEWAY = 'difftry-gateway';
/** The port of each Kubernetes Service (named `http`, so that Istio treats it as HTTP). */
const SERVICE_PORT = 80;
/** Envoy's cap on a retry delay when only its base is set (Istio sets only the base). */
const ENVOY_MAX_BACKOFF_FACTOR = 10;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const HOST = /^(\*|(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/;

/**
 * The Istio configuration (`networking.istio.io/v1`) of a mesh plan (see {@link meshPlan}):
 * - per service with callers, a **VirtualService** for its host (applied by every caller's
 *   sidecar): one route per class, highest first, matched on the class header (any case: a
 *   case-insensitive, whole-value RE2 regex, since Istio's `exact` is case-sensitive), whose
 *   `retries` carry that class's k at this hop, then a final route for a request with no or an
 *   unknown class: the default class's retries, and the default class set in the header;
 * - per service, admission: a **Sidecar** selecting its pods (`app: NAME`) with
 *   `inboundConnectionPool` (c requests at the application, m − c waiting: enforced by the
 *   service's own sidecar), and a **DestinationRule** with the same pool, which each caller's
 *   sidecar also enforces on its own calls (a guard: n callers admit up to n · c);
 * - at the edge, a **Gateway** (unless `gateway` names one) and per edge service an ingress
 *   **VirtualService** bound to it: one route per edge rule (first match wins), each removing a
 *   client's class header and setting the rule's class, with that class's retries into the edge
 *   service, then a final route for the edge's default class; and per edge service an
 *   **EnvoyFilter** (`networking.istio.io/v1alpha3`) making its sidecar's inbound connection
 *   manager as strict as difftry's sidecar edge (see {@link strictEdgeFilter}).
 *
 * Every route carries an explicit `retries` block, so no request falls to Istio's default of 2
 * retries at every hop. What Istio cannot express is in the manifest's `limits`.
 * @throws RangeError on a bad `gateway` or `hosts`, or when two objects would share a name.
 * @example
 * ```ts
 * const { objects, limits } = istioManifest(meshPlan(network), { namespace: 'shop' });
 * objects.map((o) => `${o.kind}/${o.metadata.name}`); // ['VirtualService/search', …]
 * ```
 */
export function istioManifest(plan: MeshPlan, options: IstioOptions): MeshManifest {
  const namespace = options.namespace;
  if (!isDnsLabel(namespace)) {
    throw new InvalidArgumentError(
      `namespace: expected a Kubernetes namespace, got "${namespace}"`,
    );
  }
  const gateway = options.gateway;
  if (gateway !== undefined) checkGateway(gateway);
  const hosts = [...(options.hosts ?? ['*'])];
  checkHosts(hosts);
  const names = kubernetesNames(plan);
  const nameOf = (service: string) => names.get(service) as string;
  const byName = new Map(plan.services.map((s) => [s.name, s]));
  const called = new Set(plan.services.flatMap((s) => s.upstreams.map((u) => u.service)));

  const objects: KubernetesObject[] = [];
  for (const service of plan.services) {
    const name = nameOf(service.name);
    if (called.has(service.name)) objects.push(meshVirtualService(plan, service, name, namespace));
    objects.push(destinationRule(service, name, namespace), sidecar(service, name, namespace));
    if (service.edge) objects.push(strictEdgeFilter(name, namespace));
  }

  const edges = plan.services.filter((s) => s.edge);
  if (edges.length > 0) {
    if (gateway === undefined) objects.push(gatewayObject(namespace, hosts));
    const gatewayRef = gateway ?? DEFAULT_GATEWAY;
    for (const edge of edges) {
      objects.push(
        ingressVirtualService(plan, edge, nameOf(edge.name), namespace, {
          gateway: gatewayRef,
          hosts,
        }),
      );
    }
  }
  return { objects, limits: istioLimits(plan, byName, nameOf) };
}

/**
 * Istio's `retries` for one class at one hop. `attempts` counts retries (Envoy's
 * `num_retries`), not attempts. Setting `retryOn` replaces Istio's default list, so the retried
 * statuses are listed explicitly. With k = 0 the block is `{ attempts: 0 }` alone: Istio rejects
 * any other retry field beside it (a per-try timeout then goes on the route, see
 * {@link istioHttpRoutes}).
 */
export function istioRetries(plan: MeshPlan, hop: ClassHop): Record<string, unknown> {
  if (hop.retries === 0) return { attempts: 0 };
  return {
    attempts: hop.retries,
    ...(hop.perTryTimeoutMs !== undefined && {
      perTryTimeout: protoDuration(wholeMs(hop.perTryTimeoutMs)),
    }),
    retryOn: istioRetryOn(plan),
    backoff: istioBackoff(hop.backoff),
  };
}

/**
 * `retryOn`: the transport failures, then `retriable-status-codes` and the statuses themselves,
 * then the retried gRPC codes.
 */
export function istioRetryOn(plan: MeshPlan): string {
  return [
    ...plan.retryConditions,
    'retriable-status-codes',
    ...plan.retryStatuses,
    ...plan.grpcRetryCodes,
  ].join(',');
}

/**
 * Istio's `retries.backoff`: the base interval of Envoy's fully jittered exponential backoff
 * (Envoy caps it at 10 × base; Istio has no field for the cap). The base is the one
 * {@link envoyBackOff} chooses, so the first retry's mean delay is kept.
 */
export function istioBackoff(backoff: BackoffDescription): string {
  return envoyBackOff(backoff).base_interval;
}

/**
 * The header match of one class: a whole-value, case-insensitive RE2 regex of the class name
 * (`gold` → `(?i)^gold$`), so `Gold` and `GOLD` match as Envoy's generator does.
 */
export function classHeaderMatch(className: string): { regex: string } {
  return { regex: `(?i)^${className.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')}$` };
}

/**
 * The http routes of one class to `host`: first gRPC calls (`content-type: application/grpc…`,
 * POSTs the runtime still retries), then the requests of a retried method (`method`
 * matched by a whole-value regex, unless an entry names its own) with the class's retries, then
 * every other method with none (the sidecar never retries a POST), under the same match and
 * header rules. With k = 0 the per-try timeout is the route's `timeout`.
 */
export function istioHttpRoutes(
  plan: MeshPlan,
  route: {
    readonly name: string;
    readonly host: string;
    readonly hop: ClassHop;
    readonly match?: readonly Record<string, unknown>[];
    readonly headers?: Record<string, unknown>;
  },
): Record<string, unknown>[] {
  const retried = new Set(plan.retryMethods);
  const methodMatch = { regex: methodRegex(plan) };
  const entries = route.match ?? [{}];
  // An entry with its own method keeps it when that method is retried, and is dropped otherwise.
  const retriedEntries = entries.flatMap((entry) => {
    const own = (entry.method as { exact?: string } | undefined)?.exact;
    if (own === undefined) return [{ ...entry, method: methodMatch }];
    return retried.has(own) ? [entry] : [];
  });
  const one = (
    name: string,
    hop: ClassHop,
    match: readonly Record<string, unknown>[] | undefined,
  ): Record<string, unknown> => ({
    name,
    ...(match !== undefined && { match }),
    ...(route.headers !== undefined && { headers: route.headers }),
    route: [{ destination: { host: route.host, port: { number: SERVICE_PORT } } }],
    // With no retry the per-try timeout is the whole request's: the route's timeout says it.
    ...(hop.retries === 0 &&
      hop.perTryTimeoutMs !== undefined && {
        timeout: protoDuration(wholeMs(hop.perTryTimeoutMs)),
      }),
    retries: istioRetries(plan, hop),
  });
  // gRPC calls are POSTs the runtime still retries: `content-type: application/grpc…`.
  const grpcEntries = entries.flatMap((entry) => {
    const own = (entry.method as { exact?: string } | undefined)?.exact;
    if (own !== undefined && own !== 'POST') return [];
    const headers = (entry.headers ?? {}) as Record<string, unknown>;
    return [{ ...entry, headers: { ...headers, 'content-type': { prefix: 'application/grpc' } } }];
  });
  return [
    ...(grpcEntries.length > 0 ? [one(`${route.name}-grpc`, route.hop, grpcEntries)] : []),
    ...(retriedEntries.length > 0 ? [one(route.name, route.hop, retriedEntries)] : []),
    one(`${route.name}-other-methods`, { ...route.hop, retries: 0 }, route.match),
  ];
}

function hopOf(service: ServicePlan, className: string): ClassHop {
  const hop = service.calls.find((h) => h.className === className);
  if (hop === undefined)
    throw new Error(`istioManifest: ${service.name} has no class ${className}`);
  return hop;
}

/** The VirtualService every caller of `service` applies: its calls' policy, per class. */
function meshVirtualService(
  plan: MeshPlan,
  service: ServicePlan,
  name: string,
  namespace: string,
): KubernetesObject {
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'VirtualService',
    metadata: objectMeta(name, namespace, { app: name }),
    spec: {
      hosts: [name],
      http: [
        ...service.calls.flatMap((hop) =>
          istioHttpRoutes(plan, {
            name: `${name}-${hop.className}`,
            host: name,
            hop,
            match: [{ headers: { [plan.header]: classHeaderMatch(hop.className) } }],
          }),
        ),
        // No class, or one the network does not know: the default class, named for the next hop.
        ...istioHttpRoutes(plan, {
          name: `${name}-unclassified`,
          host: name,
          hop: hopOf(service, plan.defaultClass),
          headers: { request: { set: { [plan.header]: plan.defaultClass } } },
        }),
      ],
    },
  };
}

/** Admission as an Envoy circuit breaker: c connections and requests, m − c waiting (at least 1). */
function connectionPool(service: ServicePlan): Record<string, unknown> {
  return {
    // HTTP/1.1 serves one request per connection: c connections keep the rest waiting.
    tcp: { maxConnections: service.concurrency },
    http: {
      http2MaxRequests: service.concurrency,
      // Istio reads 0 as "unset" (unlimited), so m = c becomes a waiting room of 1.
      http1MaxPendingRequests: Math.max(1, service.capacity - service.concurrency),
    },
  };
}

function destinationRule(service: ServicePlan, name: string, namespace: string): KubernetesObject {
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'DestinationRule',
    metadata: objectMeta(name, namespace, { app: name }),
    spec: { host: name, trafficPolicy: { connectionPool: connectionPool(service) } },
  };
}

function sidecar(service: ServicePlan, name: string, namespace: string): KubernetesObject {
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'Sidecar',
    metadata: objectMeta(name, namespace, { app: name }),
    spec: {
      workloadSelector: { labels: { app: name } },
      inboundConnectionPool: connectionPool(service),
    },
  };
}

function gatewayObject(namespace: string, hosts: readonly string[]): KubernetesObject {
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'Gateway',
    metadata: objectMeta(DEFAULT_GATEWAY, namespace),
    spec: {
      selector: { istio: 'ingressgateway' },
      servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: [...hosts] }],
    },
  };
}

/** An edge rule as an Istio match: every condition given must hold (one match entry). */
function edgeMatch(rule: EdgeRulePlan): Record<string, unknown>[] | undefined {
  const match: Record<string, unknown> = {};
  if (rule.method !== undefined) match.method = { exact: rule.method.toUpperCase() };
  if (rule.header !== undefined) {
    // An empty string match is Istio's "header present".
    match.headers = { [rule.header]: rule.value === undefined ? {} : { exact: rule.value } };
  }
  // The sidecar matches a path prefix on segment boundaries (`/a` matches `/a` and `/a/b`, not
  // `/ab`); Istio's prefix does not, so a path is two match entries (ORed): exact, or prefix + /.
  const path = rule.path?.replace(/\/+$/, '');
  if (path !== undefined && path !== '') {
    return [
      { uri: { exact: path }, ...match },
      { uri: { prefix: `${path}/` }, ...match },
    ];
  }
  return Object.keys(match).length === 0 ? undefined : [match];
}

function ingressVirtualService(
  plan: MeshPlan,
  edge: ServicePlan,
  name: string,
  namespace: string,
  bind: { readonly gateway: string; readonly hosts: readonly string[] },
): KubernetesObject {
  // Envoy removes request headers before it adds them: remove + set drops every copy a client
  // sent and leaves exactly one, the edge's.
  const classHeader = (className: string) => ({
    request: { remove: [plan.header], set: { [plan.header]: className } },
  });
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'VirtualService',
    // A dot no service's name has (they are DNS labels): no service can take this name.
    metadata: objectMeta(`${name}.ingress`, namespace, { app: name }),
    spec: {
      hosts: [...bind.hosts],
      gateways: [bind.gateway],
      http: [
        // Route names keep the rule's place in the file, the rules left out counted.
        ...edge.edgeRules.flatMap((rule, i) => {
          if (rule.valueEnv !== undefined) return [];
          const match = edgeMatch(rule);
          return istioHttpRoutes(plan, {
            name: `edge-${i}-${rule.className}`,
            host: name,
            hop: hopOf(edge, rule.className),
            ...(match !== undefined && { match }),
            headers: classHeader(rule.className),
          });
        }),
        ...istioHttpRoutes(plan, {
          name: 'edge-default',
          host: name,
          hop: hopOf(edge, edge.edgeDefault),
          headers: classHeader(edge.edgeDefault),
        }),
      ],
    },
  };
}

function checkGateway(gateway: string): void {
  const parts = gateway.split('/');
  const name = parts[parts.length - 1] as string;
  const ok =
    parts.length <= 2 &&
    (parts.length === 1 || isDnsLabel(parts[0] as string)) &&
    DNS_SUBDOMAIN.test(name) &&
    name.length <= 253;
  if (!ok) {
    throw new InvalidArgumentError(
      `gateway: expected an Istio Gateway as NAME or NAMESPACE/NAME (lower-case), got "${gateway}"`,
    );
  }
}

function checkHosts(hosts: readonly string[]): void {
  if (hosts.length === 0) throw new InvalidArgumentError('hosts: expected at least one host');
  for (const host of hosts) {
    if (!HOST.test(host) || host.length > 253) {
      throw new InvalidArgumentError(
        `hosts: expected "*" or a lower-case DNS name (optionally "*.name"), got "${host}"`,
      );
    }
  }
}

/** What Istio cannot express for this plan, one sentence each (always in the same order). */
function istioLimits(
  plan: MeshPlan,
  byName: ReadonlyMap<string, ServicePlan>,
  nameOf: (service: string) => string,
): string[] {
  const limits = [
    ...wholeMsLimits(plan),
    'Envoy never retries a 503 carrying x-envoy-overloaded, which a sidecar adds when its connection pool rejects a request: set proxyHeaders.envoyDebugHeaders.disabled: true on every workload (pod annotation proxy.istio.io/config, or meshConfig.defaultConfig), or rejected attempts are not retried.',
  ];
  const hops = plan.services.flatMap((s) => s.calls);
  const laws = new Set(hops.filter((h) => h.retries > 0).map((h) => h.backoff.kind));
  const exponentialLost = hops.some(
    (h) =>
      h.retries > 0 &&
      h.backoff.kind === 'exponential' &&
      (h.backoff.maxMs !== ENVOY_MAX_BACKOFF_FACTOR * h.backoff.baseMs ||
        (h.backoff.factor ?? 2) !== 2 ||
        h.backoff.jitter !== 'full'),
  );
  if (exponentialLost) {
    limits.push(
      'Exponential backoff keeps its base only: Istio has no maximum, factor or jitter, so Envoy draws each delay uniformly up to min(base × (2ⁿ − 1), 10 × base).',
    );
  }
  if (laws.has('constant') || laws.has('random')) {
    limits.push(
      'A constant delay d or a random delay of mean d becomes backoff 2d: the first retry keeps its mean delay d, later ones wait longer (Envoy draws the n-th from [0, min((2ⁿ − 1) × 2d, 20d)]).',
    );
  }
  limits.push(
    "A server's Retry-After is not honoured: Istio's retries have no rate-limited backoff.",
    "No deadline travels across hops (difftry's x-difftry-deadline-ms): Istio has per-route and per-try timeouts only.",
    "No retry budget per class: DestinationRule's trafficPolicy.retryBudget is per destination (or subset), not per header, so none is set.",
  );
  const noWait = plan.services.filter((s) => s.capacity <= s.concurrency).map((s) => s.name);
  if (noWait.length > 0) {
    limits.push(
      `Istio reads 0 pending requests as unlimited, so ${noWait.join(', ')} (m = c) get http1MaxPendingRequests 1: one request more may wait.`,
    );
  }
  for (const service of plan.services) {
    const skipped = service.edgeRules.filter((r) => r.valueEnv !== undefined);
    if (skipped.length > 0) {
      limits.push(
        `The edge rules of ${service.name} on a secret value (${skipped.map((r) => r.valueEnv).join(', ')}) are left out: the value is not known when generating, so those requests get the edge's default class.`,
      );
    }
  }
  const edges = plan.services.filter((s) => s.edge);
  if (edges.length > 0) {
    limits.push(gatewayStrictnessLimit(edges.map((s) => nameOf(s.name))));
  }
  if (edges.length > 1) {
    limits.push(
      `Several edge services (${edges.map((s) => s.name).join(', ')}) share the gateway's hosts: Istio merges their ingress VirtualServices in no set order, so give each its own host.`,
    );
  }
  for (const caller of plan.services) {
    for (const upstream of caller.upstreams) {
      const callee = byName.get(upstream.service);
      if (
        callee !== undefined &&
        JSON.stringify(upstream.classes) !== JSON.stringify(callee.calls)
      ) {
        limits.push(
          `${caller.name}'s calls to ${upstream.service} have a policy of their own, which one VirtualService per host cannot carry: ${upstream.service}'s own policy is used.`,
        );
      }
    }
  }
  return limits;
}
