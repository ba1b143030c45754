import { DEFAULT_BACKOFF } from '../model/backoff/BackoffDescription.js';
import { meanRetryDelays } from '../model/backoff/meanRetryDelays.js';
import { retryDelayLaw } from '../model/backoff/retryDelay.js';
import { serviceTimeDistribution } from '../model/distributions/index.js';
import type { NetworkCall, NetworkModel } from '../model/network/NetworkModel.js';
import { residualAlpha } from '../model/residual.js';
import { applyOverrides, type NetworkOverrides } from './networkOverrides.js';
import { resolveHops } from './resolveHops.js';
import type { CallSpec, NetworkSpec } from './schema.js';

/**
 * Turns a parsed network file into the analysis's {@link NetworkModel}: class indices for
 * names, and at every hop the retry limit and per-try timeout (seconds) of each class as
 * `resolveHops` gives them (the what-ifs applied once), and the residual-time α of every retry
 * where a service asks for the correction (from its service-time law and the class's backoff).
 *
 * A class's mean retry delays (`meanBackoffs`) cover the most retries any class makes at any hop,
 * and a service's α lists the most retries any class makes there, so that the model under
 * uniform limits (`uniformLimits`) has every figure it reads; a law reads the first k only.
 * @throws RangeError when an override names a class the file does not declare.
 * @example
 * ```ts
 * const model = toNetworkModel(parseNetwork(text, 'net.yaml'), { retries: { low: 5 } });
 * ```
 */
export function toNetworkModel(
  network: NetworkSpec,
  overrides: NetworkOverrides = {},
): NetworkModel {
  const file = applyOverrides(network, overrides);
  const hops = resolveHops(file);
  const classNames = file.classes.map((c) => c.name);
  const serviceIndex = new Map(file.services.map((s, i) => [s.name, i]));
  const classIndexOf = (name: string | undefined) =>
    name === undefined ? undefined : classNames.indexOf(name);
  const toCall = (call: CallSpec): NetworkCall => ({
    to: serviceIndex.get(call.to) ?? -1,
    n: call.n,
    classIndex: classIndexOf(call.class),
    parallel: call.mode === 'parallel',
  });
  // The most retries any class makes at any hop, so that every retry's mean delay is there.
  const mostRetries = Math.max(
    0,
    ...hops.classes.map((c) => c.retries),
    ...hops.services.flatMap((s) => s.hops.map((hop) => hop.retries)),
  );
  return {
    classes: hops.classes.map((c) =>
      // The default backoff is the model's default too: a class without one stays as it was.
      c.backoff === DEFAULT_BACKOFF
        ? { name: c.name, retryLimit: c.retries }
        : {
            name: c.name,
            retryLimit: c.retries,
            meanBackoffs: meanRetryDelays(c.backoff, mostRetries),
          },
    ),
    services: file.services.map((service, i) => {
      const serviceHops = hops.services[i]?.hops ?? [];
      const retryLimits = serviceHops.map((hop) => hop.retries);
      const timeouts = serviceHops.map((hop) =>
        hop.timeoutMs === undefined ? undefined : hop.timeoutMs / 1000,
      );
      const distribution = serviceTimeDistribution(service.serviceTime, service.capacity);
      const serviceRetries = Math.max(0, ...retryLimits);
      const residualAlphas = service.residual
        ? serviceHops.map((hop) =>
            Array.from({ length: serviceRetries }, (_, j) =>
              residualAlpha(distribution, retryDelayLaw(hop.backoff, j + 1)),
            ),
          )
        : undefined;
      return {
        name: service.name,
        capacity: service.capacity,
        queue: service.queue,
        model: service.model ?? file.model,
        arrivals: classNames.map((name) => service.arrivals[name] ?? 0),
        retryLimits,
        residualAlphas,
        ...(timeouts.some((x) => x !== undefined) ? { timeouts } : {}),
        routes: (service.routes ?? []).map((route) => ({
          to: serviceIndex.get(route.to) ?? -1,
          p: route.p,
          classIndex: classIndexOf(route.class),
        })),
        calls: (service.calls ?? []).map(toCall),
        branches: (service.branches ?? []).map((b) => ({ p: b.p, calls: b.calls.map(toCall) })),
      };
    }),
    mode: file.services.some((s) => s.calls !== undefined || s.branches !== undefined)
      ? 'calls'
      : 'routing',
  };
}
