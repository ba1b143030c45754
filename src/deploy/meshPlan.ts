import { checkSidecarConfig } from '../config/parseSidecarConfig.js';
import {
  type Hop,
  type ResolvedHops,
  resolveHops,
  type ServiceHops,
} from '../config/resolveHops.js';
import type { NetworkSpec } from '../config/schema.js';
import type { SidecarConfig } from '../config/sidecarSchema.js';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { DEFAULT_GRPC_RETRY_CODES, IDEMPOTENT_METHODS } from '../policy/retry/RetryPolicy.js';
import { type SidecarsFromNetworkOptions, sidecarsFromNetwork } from './sidecarsFromNetwork.js';

/** What one class gets on the calls from one service to one upstream: the hop's policy. */
export interface ClassHop {
  readonly className: string;
  /** Retries after the first attempt (k of the upstream service, for this class). */
  readonly retries: number;
  /** Per-try timeout (ms), the first attempt included; undefined for none. */
  readonly perTryTimeoutMs: number | undefined;
  /** The delay before each retry. */
  readonly backoff: BackoffDescription;
}

/** The calls from one service to one of its upstreams, per class in priority order. */
export interface UpstreamPlan {
  /** The upstream service's name (as in the network file). */
  readonly service: string;
  /** One entry per class, highest first. */
  readonly classes: readonly ClassHop[];
  /** The policy of a request with no class header, or a class the network does not know. */
  readonly unclassified: ClassHop;
}

/** An edge rule: requests matching every condition given get `className`. */
export interface EdgeRulePlan {
  readonly className: string;
  readonly path?: string;
  readonly method?: string;
  readonly header?: string;
  /** The header's exact value; absent with `valueEnv` (a secret: not known when generating). */
  readonly value?: string;
  /** The environment variable holding the value, when the rule names one. */
  readonly valueEnv?: string;
}

/** One service of the mesh: admission in front of it, its edge if it has one, its upstreams. */
export interface ServicePlan {
  readonly name: string;
  /** c: requests the application serves at once. */
  readonly concurrency: number;
  /** m: the most requests in the service, those being served included. */
  readonly capacity: number;
  /** Whether it takes external requests (then a client's class header is not believed). */
  readonly edge: boolean;
  /** Edge rules, in order (the first match wins); empty for a service with no edge. */
  readonly edgeRules: readonly EdgeRulePlan[];
  /** The class of an external request that no rule matches. */
  readonly edgeDefault: string;
  /**
   * The policy of a call into this service, per class, highest first: the same for every caller
   * (the limit is the service's own, k_i), and what a caller outside the network (an ingress
   * gateway) uses.
   */
  readonly calls: readonly ClassHop[];
  readonly upstreams: readonly UpstreamPlan[];
}

/** What every mesh generator needs from a network file, resolved once. */
export interface MeshPlan {
  /** The header that carries the class (lower case). */
  readonly header: string;
  /** Class names, highest first. */
  readonly classes: readonly string[];
  /** The class of requests with no (or an unknown) class. */
  readonly defaultClass: string;
  /** HTTP statuses that are retried. */
  readonly retryStatuses: readonly number[];
  /** The methods that are retried (upper case); a request of another method never is. */
  readonly retryMethods: readonly string[];
  /** The gRPC codes that are retried, in the meshes' words (`unavailable`, …). */
  readonly grpcRetryCodes: readonly GrpcRetryCode[];
  /** Transport failures that are retried, in the meshes' words. */
  readonly retryConditions: readonly ('connect-failure' | 'reset' | 'refused-stream')[];
  /** Services in file order. */
  readonly services: readonly ServicePlan[];
}

/** The gRPC codes Envoy, Istio and gRPC's xDS client can name in a retry condition. */
export type GrpcRetryCode =
  | 'cancelled'
  | 'deadline-exceeded'
  | 'internal'
  | 'resource-exhausted'
  | 'unavailable';

const GRPC_CODE_NAMES: Readonly<Record<number, GrpcRetryCode>> = {
  1: 'cancelled',
  4: 'deadline-exceeded',
  8: 'resource-exhausted',
  13: 'internal',
  14: 'unavailable',
};

/** The statuses the runtime's policy retries by default (RetryOn.statuses). */
const DEFAULT_RETRY_STATUSES = [503, 429] as const;

/**
 * The mapping every mesh generator shares: a network file → per service, per upstream and per
 * class, the hop as `resolveHops` resolves it for the analysis (the retries, the per-try timeout
 * and the backoff of a call into that service, its own `retries` and `timeouts` included), the
 * admission (c, m), the edge rules and the default class. The rest it reads from the same
 * sidecar configs as `difftry mesh sidecars` (so the sidecar and every mesh agree), with their
 * defaults applied.
 * @example
 * ```ts
 * const plan = meshPlan(await loadNetworkFile('examples/hotel-calls.yaml'));
 * plan.services[0].upstreams[0].classes[0]; // { className: 'high', retries: 5, … }
 * ```
 */
export function meshPlan(network: NetworkSpec, options: SidecarsFromNetworkOptions = {}): MeshPlan {
  const hops = resolveHops(network);
  // Each service's hops once, shared by its calls and every caller's upstream.
  const byService = new Map(hops.services.map((into) => [into.name, classHops(hops, into)]));
  const hopsInto = (service: string): ClassHop[] => {
    const found = byService.get(service);
    if (found === undefined) throw new Error(`meshPlan: no service ${service}`);
    return found;
  };
  const configs = sidecarsFromNetwork(network, options).map((config) =>
    checkSidecarConfig(config, `the sidecar config of ${config.service}`),
  );
  const first = configs[0] as SidecarConfig;
  const classes = first.classes.map((c) => c.name);
  const defaultClass = first.defaultClass ?? (classes[classes.length - 1] as string);
  return {
    header: first.header.toLowerCase(),
    classes,
    defaultClass,
    retryStatuses: [...(first.retryOn?.statuses ?? DEFAULT_RETRY_STATUSES)],
    retryMethods: (first.methods ?? IDEMPOTENT_METHODS).map((m) => m.toUpperCase()),
    grpcRetryCodes: DEFAULT_GRPC_RETRY_CODES.flatMap((code) => GRPC_CODE_NAMES[code] ?? []),
    retryConditions: ['connect-failure', 'reset', 'refused-stream'],
    services: configs.map((config) => servicePlan(hopsInto, config, defaultClass)),
  };
}

/**
 * The calls into `service` from any caller, as an upstream plan (its `calls`, and the default
 * class's for the rest): what a caller outside the plan's services — an ingress, a proxyless
 * gRPC client — applies.
 */
export function callsInto(plan: MeshPlan, service: ServicePlan): UpstreamPlan {
  const unclassified = service.calls.find((hop) => hop.className === plan.defaultClass);
  if (unclassified === undefined) {
    throw new Error(`meshPlan: ${service.name} has no policy for ${plan.defaultClass}`);
  }
  return { service: service.name, classes: service.calls, unclassified };
}

/** The hops of a call into `into`'s service, per class, as `resolveHops` resolved them. */
function classHops(hops: ResolvedHops, into: ServiceHops): ClassHop[] {
  return hops.classes.map((c, p): ClassHop => {
    const hop = into.hops[p] as Hop;
    return {
      className: c.name,
      retries: hop.retries,
      perTryTimeoutMs: hop.timeoutMs,
      backoff: hop.backoff,
    };
  });
}

function servicePlan(
  hopsInto: (service: string) => ClassHop[],
  config: SidecarConfig,
  defaultClass: string,
): ServicePlan {
  const inbound = config.inbound;
  // sidecarsFromNetwork gives every service an inbound listener.
  if (inbound === undefined) throw new Error(`meshPlan: ${config.service} has no inbound`);
  const edge = inbound.edge;
  return {
    name: config.service,
    concurrency: inbound.concurrency,
    capacity: inbound.capacity,
    edge: edge !== undefined,
    edgeRules: (edge?.rules ?? []).map((rule) => ({
      className: rule.class,
      ...(rule.path !== undefined && { path: rule.path }),
      ...(rule.method !== undefined && { method: rule.method }),
      ...(rule.header !== undefined && { header: rule.header.toLowerCase() }),
      ...(rule.value !== undefined && { value: rule.value }),
      ...(rule.valueEnv !== undefined && { valueEnv: rule.valueEnv }),
    })),
    edgeDefault: edge?.default ?? defaultClass,
    calls: hopsInto(config.service),
    upstreams: (config.outbound?.upstreams ?? []).map((upstream) => {
      const classes = hopsInto(upstream.name);
      return {
        service: upstream.name,
        classes,
        unclassified: classes.find((hop) => hop.className === defaultClass) as ClassHop,
      };
    }),
  };
}
