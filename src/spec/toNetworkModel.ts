import { type BackoffDescription, DEFAULT_BACKOFF } from '../model/backoff/BackoffDescription.js';
import { meanRetryDelays } from '../model/backoff/meanRetryDelays.js';
import { retryDelayLaw } from '../model/backoff/retryDelay.js';
import { serviceTimeDistribution } from '../model/distributions/index.js';
import type { NetworkCall, NetworkModel } from '../model/network/NetworkModel.js';
import type { ModelName } from '../model/phi/Phi.js';
import { residualAlpha } from '../model/residual.js';
import type { CallSpec, NetworkSpec } from './schema.js';

/** What-if overrides applied on top of a network file. */
export interface NetworkOverrides {
  /** Use this φ law at every service, whatever the file says. */
  readonly model?: ModelName;
  /**
   * Retry limit per class name, applied at every hop (it replaces the class's `retries` and every
   * per-service override of that class).
   */
  readonly retries?: Readonly<Record<string, number>>;
  /**
   * A per-try timeout for every class at every hop, ms (it replaces the classes' `timeoutMs`),
   * as `difftry simulate --timeout` gives one.
   */
  readonly timeoutMs?: number;
}

/**
 * The backoff a class uses: its own, else the network's, else {@link DEFAULT_BACKOFF}.
 */
export function classBackoff(network: NetworkSpec, classIndex: number): BackoffDescription {
  return network.classes[classIndex]?.backoff ?? network.backoff ?? DEFAULT_BACKOFF;
}

/**
 * Turns a parsed network file into the analysis's {@link NetworkModel}: class indices for
 * names, per-service retry limits with overrides resolved, the per-try timeout of each class at
 * each hop (seconds: the service's `timeouts`, else the class's `timeoutMs`), and the residual-time α of every retry where a service asks for the correction
 * (from its service-time law and the class's backoff).
 * @throws RangeError when an override names a class the file does not declare.
 * @example
 * ```ts
 * const model = toNetworkModel(parseNetwork(text, 'net.yaml'), { retries: { low: 5 } });
 * ```
 */
/**
 * The key of `retries` overrides that stands for every class not named (`--retries '*=2'`): a
 * uniform limit at every hop, over the services' own, as a mesh's default retry policy applies.
 */
export const EVERY_CLASS = '*';

/** The retry limit `retries` overrides give class `name`: its own, else every class's, if any. */
export function retriesOverride(
  retries: Readonly<Record<string, number>> | undefined,
  name: string,
): number | undefined {
  return retries?.[name] ?? retries?.[EVERY_CLASS];
}

export function toNetworkModel(
  network: NetworkSpec,
  overrides: NetworkOverrides = {},
): NetworkModel {
  const classNames = network.classes.map((c) => c.name);
  for (const name of Object.keys(overrides.retries ?? {})) {
    if (name !== EVERY_CLASS && !classNames.includes(name)) {
      throw new RangeError(
        `--retries names class "${name}", expected one of the file's classes (${classNames.join(', ')})`,
      );
    }
  }
  const serviceIndex = new Map(network.services.map((s, i) => [s.name, i]));
  const classIndexOf = (name: string | undefined) =>
    name === undefined ? undefined : classNames.indexOf(name);
  const toCall = (call: CallSpec): NetworkCall => ({
    to: serviceIndex.get(call.to) ?? -1,
    n: call.n,
    classIndex: classIndexOf(call.class),
    parallel: call.mode === 'parallel',
  });
  const override = (name: string) => retriesOverride(overrides.retries, name);
  const classLimit = (p: number) => {
    const name = classNames[p] as string;
    return override(name) ?? network.classes[p]?.retries ?? 0;
  };
  // The most retries the class makes at any hop, so every retry's mean delay is there.
  const maxClassLimit = (p: number) => {
    const name = classNames[p] as string;
    if (override(name) !== undefined) return classLimit(p);
    return Math.max(classLimit(p), ...network.services.map((s) => s.retries?.[name] ?? 0));
  };
  return {
    classes: network.classes.map((c, p) => {
      const backoff = classBackoff(network, p);
      // The default backoff is the model's default too: a class without one stays as it was.
      return backoff === DEFAULT_BACKOFF
        ? { name: c.name, retryLimit: classLimit(p) }
        : {
            name: c.name,
            retryLimit: classLimit(p),
            meanBackoffs: meanRetryDelays(backoff, maxClassLimit(p)),
          };
    }),
    services: network.services.map((service) => {
      const retryLimits = classNames.map((name, p) =>
        override(name) !== undefined ? classLimit(p) : (service.retries?.[name] ?? classLimit(p)),
      );
      const timeouts = network.classes.map((c) => {
        const ms = overrides.timeoutMs ?? service.timeouts?.[c.name] ?? c.timeoutMs;
        return ms === undefined ? undefined : ms / 1000;
      });
      const distribution = serviceTimeDistribution(service.serviceTime, service.capacity);
      const residualAlphas = service.residual
        ? retryLimits.map((k, p) => {
            const backoff = classBackoff(network, p);
            return Array.from({ length: k }, (_, j) =>
              residualAlpha(distribution, retryDelayLaw(backoff, j + 1)),
            );
          })
        : undefined;
      return {
        name: service.name,
        capacity: service.capacity,
        queue: service.queue,
        model: overrides.model ?? service.model ?? network.model,
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
    mode: network.services.some((s) => s.calls !== undefined || s.branches !== undefined)
      ? 'calls'
      : 'routing',
  };
}
