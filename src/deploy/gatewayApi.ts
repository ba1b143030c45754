import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { gatewayDuration } from './durations.js';
import {
  anyPath,
  type CompiledEdge,
  callInto,
  checkObjectName,
  classMatch,
  compileEdgeRules,
  edgeMatch,
  GATEWAY_API_GROUP,
  GATEWAY_API_VERSION,
  httpRoute,
  MAX_RULES_PER_ROUTE,
  perTryTimeout,
  serviceBackendRef,
  serviceParentRef,
  setClassHeader,
  upstreamHops,
} from './httpRoutes.js';
import { kubernetesNames } from './kubernetesNames.js';
import { type KubernetesObject, type MeshManifest, objectMeta } from './kubernetesObject.js';
import type { ClassHop, MeshPlan } from './meshPlan.js';
import { wholeMsLimits } from './wholeMsTimeouts.js';

/** Options of {@link gatewayApiManifest}. */
export interface GatewayApiOptions {
  /**
   * The namespace of every object, and of the Services the routes attach to.
   * @default 'default'
   */
  readonly namespace?: string;
  /**
   * An existing Gateway for the edge routes; then no Gateway is generated.
   * @default a generated Gateway named `difftry-gateway`
   */
  readonly gateway?: string;
  /**
   * The namespace of `gateway` (its listeners must allow routes from `namespace`).
   * @default namespace
   */
  readonly gatewayNamespace?: string;
  /**
   * The `gatewayClassName` of the generated Gateway: the implementation that runs it (`istio`,
   * `eg` for Envoy Gateway, `cilium`, …). The default names no implementation, so nothing serves
   * the Gateway until it is set.
   * @default 'difftry'
   */
  readonly gatewayClassName?: string;
  /**
   * The port of every Service (what the routes attach to and send to).
   * @default 80
   */
  readonly port?: number;
}

/** The name of the Gateway generated when no existing one is named. */
export const DEFAULT_GATEWAY = 'difftry-gateway';
/** The class of the generated Gateway unless told: no implementation's, on purpose. */
export const DEFAULT_GATEWAY_CLASS = 'difftry';
/** The generated Gateway's one listener. */
const LISTENER = { name: 'http', port: 80, protocol: 'HTTP' } as const;

/**
 * The Gateway API (v1, GAMMA for the mesh) form of a mesh plan (see {@link meshPlan}):
 * - **calls inside the mesh**: per service with callers, one HTTPRoute attached to its Service,
 *   with a rule per class matching the class header (`Exact`) and carrying that class's
 *   `retry` (`attempts` = k at the hop, `codes` = 503 and 429, `backoff`) and, with a per-try
 *   timeout, `timeouts.backendRequest`; then a rule without a header match for no or an unknown
 *   class, which gets the default class's policy and sets the header to it. Precedence puts a
 *   rule with a header match ahead of one without, whatever their order, so a request of a known
 *   class never reaches the last rule;
 * - **the edge**: per service taking external requests, an HTTPRoute attached to the Gateway,
 *   whose rules set the class header (replacing the client's) as the edge rules decide — the
 *   first matching rule, compiled for Gateway API precedence by {@link compileEdgeRules} — and
 *   retry with the edge service's own limits; the last rule gives the edge's default class;
 * - a Gateway (one HTTP listener on port 80) when the plan has an edge and no existing Gateway is
 *   named.
 *
 * Every rule carries an explicit `retry` (`attempts: 0` for k = 0), so none falls to the
 * implementation's default. What Gateway API cannot express is in the manifest's `limits`.
 * @example
 * ```ts
 * const { objects, limits } = gatewayApiManifest(meshPlan(network), { namespace: 'shop' });
 * ```
 * @throws RangeError when a name or value cannot be written (see `kubernetesNames`,
 *   {@link compileEdgeRules}), or the plan has more classes than a route has rules for.
 */
export function gatewayApiManifest(plan: MeshPlan, options: GatewayApiOptions = {}): MeshManifest {
  const namespace = options.namespace ?? 'default';
  const port = options.port ?? 80;
  const names = kubernetesNames(plan);
  const nameOf = (service: string) => names.get(service) as string;
  if (plan.classes.length + 1 > MAX_RULES_PER_ROUTE) {
    throw new InvalidArgumentError(
      `${plan.classes.length} classes need ${plan.classes.length + 1} rules per HTTPRoute, more than the ${MAX_RULES_PER_ROUTE} one route may have`,
    );
  }
  for (const status of plan.retryStatuses) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new InvalidArgumentError(
        `retried status ${status}: an HTTPRoute retries only 400 to 599`,
      );
    }
  }
  const retry = (hop: ClassHop) => ({
    attempts: hop.retries,
    codes: [...plan.retryStatuses],
    backoff: gatewayDuration(gatewayBackoffMs(hop.backoff)),
  });
  const action = (service: string, hop: ClassHop) => {
    const timeout = perTryTimeout(hop);
    return {
      backendRefs: [serviceBackendRef(nameOf(service), port)],
      retry: retry(hop),
      ...(timeout !== undefined && { timeouts: { backendRequest: timeout } }),
    };
  };

  const meshRoutes = new Map(
    upstreamHops(plan).map((hops) => {
      const name = nameOf(hops.service);
      const route = httpRoute(name, namespace, name, {
        parentRefs: [serviceParentRef(name, port)],
        rules: [
          ...hops.classes.map((hop) => ({
            matches: [classMatch(plan, hop.className)],
            ...action(hops.service, hop),
          })),
          {
            matches: [anyPath()],
            filters: [setClassHeader(plan, hops.unclassified.className)],
            ...action(hops.service, hops.unclassified),
          },
        ],
      });
      return [hops.service, route] as const;
    }),
  );

  const edges = plan.services.filter((service) => service.edge);
  const gatewayName =
    options.gateway === undefined ? DEFAULT_GATEWAY : checkObjectName(options.gateway, 'gateway');
  const gatewayNamespace = options.gatewayNamespace ?? namespace;
  const compiled = new Map<string, CompiledEdge>();
  const edgeRoutes = new Map(
    edges.map((service) => {
      const name = nameOf(service.name);
      const edge = compileEdgeRules(service);
      compiled.set(service.name, edge);
      // A dot no service's name has (they are DNS labels): no service's route takes this name.
      const route = httpRoute(`${name}.edge`, namespace, name, {
        parentRefs: [
          {
            group: GATEWAY_API_GROUP,
            kind: 'Gateway',
            name: gatewayName,
            ...(gatewayNamespace !== namespace && { namespace: gatewayNamespace }),
          },
        ],
        // Several edges on one listener would share its precedence: each gets its own host.
        ...(edges.length > 1 && { hostnames: [name] }),
        rules: [
          ...edge.rules.map((rule) => ({
            matches: [edgeMatch(rule.region)],
            filters: [setClassHeader(plan, rule.className)],
            ...action(service.name, callInto(service, rule.className)),
          })),
          {
            matches: [anyPath()],
            filters: [setClassHeader(plan, edge.defaultClass)],
            ...action(service.name, callInto(service, edge.defaultClass)),
          },
        ],
      });
      return [service.name, route] as const;
    }),
  );

  const objects: KubernetesObject[] = [];
  if (edges.length > 0 && options.gateway === undefined) {
    objects.push(gateway(namespace, options.gatewayClassName ?? DEFAULT_GATEWAY_CLASS));
  }
  for (const service of plan.services) {
    for (const route of [meshRoutes.get(service.name), edgeRoutes.get(service.name)]) {
      if (route !== undefined) objects.push(route);
    }
  }
  checkUnique(objects);
  return { objects, limits: gatewayApiLimits(plan, compiled, edges.length) };
}

/**
 * The wait GEP-1731's `backoff` gets for a backoff law: the least delay before a retry, the
 * implementation choosing any growth and jitter above it. difftry writes the law's own scale: an
 * exponential backoff's base, a constant delay, a random delay's mean.
 */
export function gatewayBackoffMs(backoff: BackoffDescription): number {
  switch (backoff.kind) {
    case 'exponential':
      return backoff.baseMs;
    case 'constant':
      return backoff.delayMs;
    case 'random':
      return backoff.meanMs;
  }
}

function gateway(namespace: string, className: string): KubernetesObject {
  return {
    apiVersion: GATEWAY_API_VERSION,
    kind: 'Gateway',
    metadata: objectMeta(DEFAULT_GATEWAY, namespace),
    spec: {
      gatewayClassName: checkObjectName(className, 'gatewayClassName'),
      listeners: [{ ...LISTENER, allowedRoutes: { namespaces: { from: 'Same' } } }],
    },
  };
}

/** Every generated name is unique by construction (a dot sets derived ones apart); checked. */
function checkUnique(objects: readonly KubernetesObject[]): void {
  const seen = new Set<string>();
  for (const object of objects) {
    const key = `${object.kind}/${object.metadata.name}`;
    if (seen.has(key)) throw new Error(`gatewayApiManifest: two objects would both be ${key}`);
    seen.add(key);
  }
}

/** What Gateway API cannot express of this plan, one sentence each. */
function gatewayApiLimits(
  plan: MeshPlan,
  edges: ReadonlyMap<string, CompiledEdge>,
  edgeCount: number,
): string[] {
  const limits = [
    ...wholeMsLimits(plan),
    'HTTPRoute retry (GEP-1731) is experimental and Extended: install the experimental-channel CRDs (the standard channel drops `retry` without a word, leaving the implementation’s own default) and use an implementation that supports it (Linkerd does not: use difftry mesh linkerd).',
    'Backoff: `retry.backoff` is only the least wait before a retry; the implementation picks the law, growth and jitter. difftry writes the exponential base, the constant delay or the random delay’s mean.',
    `The class header is matched with Exact, which is case-sensitive: ${plan.header}: ${(plan.classes[0] ?? 'high').toUpperCase()} gets the default class (${plan.defaultClass}), where difftry’s own sidecar takes any case.`,
    'No Retry-After: GEP-1731 has no field for a server’s pushback.',
    'Every method is retried, POST included: GEP-1731 cannot limit retries to the sidecar’s idempotent methods.',
    'Transport failures: implementations SHOULD retry connection errors when a rule has `retry`; there is no field to choose which.',
    'No retry budget per class and no admission (c requests served, m in the service): run difftry proxy beside each service for those (difftry mesh k8s).',
    'No deadline across hops: each hop has only its per-try `timeouts.backendRequest`.',
  ];
  for (const [service, edge] of edges) {
    for (const rule of edge.skipped) {
      limits.push(
        `${service}: the edge rule giving ${rule.className} to ${rule.header} from $${rule.valueEnv} is left out (a secret cannot be written into a route); those requests get another rule’s class.`,
      );
    }
    if (edge.rules.some((rule) => rule.region.headers.some((h) => h.value === undefined))) {
      limits.push(
        `${service}: an edge rule on a header’s presence is a RegularExpression match of any value, whose support is implementation-specific.`,
      );
    }
  }
  if (edgeCount > 1) {
    limits.push(
      'Several edge services share the Gateway’s listener, so each edge route matches its own host (the service’s Kubernetes name): put your public hostnames in `hostnames`.',
    );
  }
  return limits;
}
