import type { MeshPlan } from './meshPlan.js';

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
