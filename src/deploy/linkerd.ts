import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import {
  anyPath,
  classMatch,
  httpRoute,
  perTryTimeout,
  type RouteMatch,
  serviceBackendRef,
  serviceParentRef,
  setClassHeader,
  upstreamHops,
} from './httpRoutes.js';
import { classLabels, kubernetesNames } from './kubernetesNames.js';
import type { KubernetesObject, MeshManifest } from './kubernetesObject.js';
import type { ClassHop, MeshPlan } from './meshPlan.js';
import { wholeMsLimits } from './wholeMsTimeouts.js';

/** Options of {@link linkerdManifest}. */
export interface LinkerdOptions {
  /**
   * The namespace of every route, and of the Services they attach to (producer routes: they
   * apply to callers in every namespace).
   * @default 'default'
   */
  readonly namespace?: string;
  /**
   * The port of every Service (what the routes attach to and send to).
   * @default 80
   */
  readonly port?: number;
}

/** The suffix of the route for requests with no or an unknown class. */
export const UNCLASSIFIED_SUFFIX = 'unclassified';

/**
 * The annotations that give a Linkerd (2.16+) route its retries, as the policy controller reads
 * them: `retry.linkerd.io/http` the retried statuses, `retry.linkerd.io/limit` the retries
 * after the first attempt, `retry.linkerd.io/timeout` the per-try timeout (every attempt, the
 * first included).
 *
 * Linkerd reads a limit of 0 as no limit given, and a route with any retry annotation as
 * retrying at least once; so k = 0 is written as `retry.linkerd.io/limit: "0"` alone, which
 * leaves the route with no retry policy (and a per-try timeout becomes the route's request
 * timeout, the single attempt being the whole request).
 */
export function linkerdRetryAnnotations(plan: MeshPlan, hop: ClassHop): Record<string, string> {
  const timeout = perTryTimeout(hop);
  if (hop.retries === 0) {
    return {
      'retry.linkerd.io/limit': '0',
      ...(timeout !== undefined && { 'timeout.linkerd.io/request': timeout }),
    };
  }
  return {
    'retry.linkerd.io/http': [...new Set(plan.retryStatuses)].sort((a, b) => a - b).join(','),
    'retry.linkerd.io/limit': String(hop.retries),
    ...(timeout !== undefined && { 'retry.linkerd.io/timeout': timeout }),
  };
}

/**
 * The Linkerd form of a mesh plan (see {@link meshPlan}): Gateway API HTTPRoutes attached to
 * Services, retried by the callers' proxies. Linkerd reads retries from a route's annotations,
 * which hold for every rule of the route, so each service with callers gets:
 * - one HTTPRoute per class, matching the class header (`Exact`), annotated with that class's
 *   retries at the hop (see {@link linkerdRetryAnnotations});
 * - one HTTPRoute without a header match for no or an unknown class, with the default class's
 *   annotations, which sets the header to the default class for the next hop.
 *
 * Precedence across the routes of one Service puts a header match ahead of none, so a request of
 * a known class never takes the last route. Every route carries its retry annotations (none
 * falls back to Linkerd's default of one retry). Linkerd has no ingress, so nothing here
 * classifies external requests; what it cannot express is in the manifest's `limits`.
 * @example
 * ```ts
 * const { objects } = linkerdManifest(meshPlan(network), { namespace: 'shop' });
 * ```
 * @throws RangeError when two services would get the same Kubernetes name.
 */
export function linkerdManifest(plan: MeshPlan, options: LinkerdOptions = {}): MeshManifest {
  const namespace = options.namespace ?? 'default';
  const port = options.port ?? 80;
  const names = kubernetesNames(plan);
  for (const status of plan.retryStatuses) {
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new InvalidArgumentError(`retried status ${status}: Linkerd retries only 100 to 599`);
    }
  }
  const objects: KubernetesObject[] = [];
  // `<service>.<class>`: service names are DNS labels (no dot) and every class gets its own
  // label, so no two routes, and no route and service, can share a name.
  const labels = classLabels(plan.classes, [UNCLASSIFIED_SUFFIX]);
  const route = (
    service: string,
    suffix: string,
    match: RouteMatch,
    hop: ClassHop,
    filters: readonly unknown[],
  ) => {
    const base = names.get(service) as string;
    const name = `${base}.${suffix}`;
    objects.push(
      httpRoute(
        name,
        namespace,
        base,
        {
          parentRefs: [serviceParentRef(base, port)],
          rules: [
            {
              matches: [match],
              ...(filters.length > 0 && { filters }),
              backendRefs: [serviceBackendRef(base, port)],
            },
          ],
        },
        linkerdRetryAnnotations(plan, hop),
      ),
    );
  };
  for (const hops of upstreamHops(plan)) {
    for (const hop of hops.classes) {
      route(
        hops.service,
        labels.get(hop.className) as string,
        classMatch(plan, hop.className),
        hop,
        [],
      );
    }
    route(hops.service, UNCLASSIFIED_SUFFIX, anyPath(), hops.unclassified, [
      setClassHeader(plan, hops.unclassified.className),
    ]);
  }
  return { objects, limits: linkerdLimits(plan) };
}

/** What Linkerd cannot express of this plan, one sentence each. */
function linkerdLimits(plan: MeshPlan): string[] {
  const edges = plan.services.filter((service) => service.edge).map((service) => service.name);
  return [
    ...wholeMsLimits(plan),
    'Needs Linkerd 2.16 or later and Gateway API CRDs that serve HTTPRoute v1 (with Linkerd 2.16 and 2.17, CRDs 1.0 to 1.1.1, which serve v1 beside the v1beta1 they read: the 0.7 CRDs they bundle have no v1).',
    'Retries are annotations on each HTTPRoute, and a ServiceProfile for the same Service overrides them all: delete any ServiceProfile of these Services.',
    'k = 0 is `retry.linkerd.io/limit: "0"` alone: Linkerd reads it as no retry policy on the route, which then takes the Service’s own retry.linkerd.io annotations, so keep the Services free of them.',
    'Backoff is Linkerd’s own (exponential, 25 ms to 250 ms, full jitter): the network’s backoff is not expressed.',
    'No Retry-After: Linkerd does not wait for a server’s pushback.',
    'Retried outcomes are HTTP statuses (and attempts that exceed `retry.linkerd.io/timeout`): there is no separate condition for refused connections or resets.',
    'A request whose body is over 64 KiB is never retried, and every method is retried, POST included.',
    'No retry budget per class (a ServiceProfile’s retryBudget cannot match a header, and disables these routes) and no admission (c requests served, m in the service): run difftry proxy beside each service for those (difftry mesh k8s).',
    'Retries run in the caller’s proxy: a caller outside the mesh (not injected) gets none.',
    `The class header is matched with Exact, which is case-sensitive: ${plan.header}: ${(plan.classes[0] ?? 'high').toUpperCase()} gets the default class (${plan.defaultClass}), where difftry’s own sidecar takes any case.`,
    `No edge: Linkerd has no ingress, so these routes believe any caller’s class header, and calls from outside into ${edges.length > 0 ? edges.join(', ') : 'the mesh'} get no route here: classify and retry them at the ingress (difftry mesh gateway-api’s edge routes on your Gateway) or with difftry proxy at the edge.`,
  ];
}
