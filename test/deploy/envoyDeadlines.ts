import { hopOf } from '../../src/config/resolveHops.js';
import { envoyLimits } from '../../src/deploy/envoyGrpcLimits.js';
import { calleesOf } from './callees.js';
import type { Deployment } from './deployment.js';
import { envoyHop, firstMatch, outboundHost } from './envoyRoutes.js';

/**
 * The hops whose sidecar Envoy route ends the request before the hop's attempts are done, unless
 * `envoyLimits` names Envoy's route timeout. Envoy bounds a whole request by the route's
 * `timeout`, 15 s when a route sets none: with k = 0 it must be the one attempt's per-try timeout
 * (none for none), and with k > 0 none, or at least k + 1 per-try timeouts and k of the longest
 * backoffs.
 */
export function cutShort(d: Deployment): string[] {
  if (envoyLimits(d.plan).some((line) => /route timeout|15 ?s\b/i.test(line))) return [];
  const found: string[] = [];
  for (const service of d.network.services) {
    for (const upstream of calleesOf(service)) {
      const host = outboundHost(d.envoy.get(service.name)?.bootstrap ?? {}, upstream);
      for (const { name } of d.network.classes) {
        const { retries: k, timeoutMs: t } = hopOf(d.resolved, upstream, name);
        const hop = envoyHop(firstMatch(host, '/', { [d.plan.header]: name }));
        const deadline = hop.deadlineMs;
        const enough =
          k === 0
            ? deadline === t
            : deadline === undefined ||
              (t !== undefined && deadline >= (k + 1) * t + k * hop.maxBackoffMs);
        if (!enough) {
          found.push(
            `${service.name} → ${upstream}, class ${name} (k=${k}, T=${t ?? 'none'}): Envoy ends the request after ${deadline} ms`,
          );
        }
      }
    }
  }
  return found;
}
