import type { MeshPlan } from './meshPlan.js';

/**
 * A per-try timeout as a mesh whose durations hold whole milliseconds writes it (Istio's
 * validation, Gateway API's GEP-2257, Linkerd's annotations): rounded up, so a timeout never
 * becomes shorter than the network file's.
 */
export function wholeMs(ms: number): number {
  return Math.ceil(ms);
}

/**
 * The sentence, for a mesh of whole-millisecond durations, naming the per-try timeouts it
 * rounds (a network file takes any positive ms), class by class with the services whose calls
 * have them; none when every timeout is a whole number of ms.
 */
export function wholeMsLimits(plan: MeshPlan): string[] {
  const rounded = plan.classes.flatMap((className) => {
    const at = plan.services.flatMap((service) =>
      service.calls
        .filter(
          (hop) =>
            hop.className === className &&
            hop.perTryTimeoutMs !== undefined &&
            !Number.isInteger(hop.perTryTimeoutMs),
        )
        .map((hop) => `${hop.perTryTimeoutMs} ms into ${service.name}`),
    );
    return at.length === 0 ? [] : [`class ${className}: ${at.join(', ')}`];
  });
  if (rounded.length === 0) return [];
  return [
    `Per-try timeouts are written in whole milliseconds, rounded up (${rounded.join('; ')}): the analysis and difftry's own sidecar use the file's.`,
  ];
}
