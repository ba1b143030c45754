import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { type BackoffDescription, DEFAULT_BACKOFF } from '../model/backoff/BackoffDescription.js';
import { applyOverrides, type NetworkOverrides } from './networkOverrides.js';
import type { NetworkSpec } from './schema.js';

/** What one class gets on a call into one service: the hop's retry policy. */
export interface Hop {
  /** Retries after the first attempt: k_j^p, the callee's own override, else the class's. */
  readonly retries: number;
  /**
   * Per-try timeout, ms, the first attempt included: the callee's `timeouts` entry, else the
   * class's `timeoutMs`; undefined for none.
   */
  readonly timeoutMs: number | undefined;
  /** The delay before each retry: the class's, else the network's, else the default. */
  readonly backoff: BackoffDescription;
}

/** A class's own policy, before any service's override: what a hop gets unless it says more. */
export interface ClassDefaults extends Hop {
  readonly name: string;
}

/** The calls into one service, per class (indexed like the file's classes). */
export interface ServiceHops {
  readonly name: string;
  readonly hops: readonly Hop[];
}

/** Every hop of a network, resolved once: what the analysis assumes and every host deploys. */
export interface ResolvedHops {
  /** Per class, highest first: its defaults. */
  readonly classes: readonly ClassDefaults[];
  /** Per service, in file order: the calls into it. */
  readonly services: readonly ServiceHops[];
}

/** The backoff of class `p`: its own, else the network's, else {@link DEFAULT_BACKOFF}. */
export function classBackoff(network: NetworkSpec, p: number): BackoffDescription {
  return network.classes[p]?.backoff ?? network.backoff ?? DEFAULT_BACKOFF;
}

/**
 * The one rule "class p calling service j: which retry limit, per-try timeout and backoff",
 * with the what-ifs applied once ({@link applyOverrides}). The policy of a hop depends on the
 * callee and the class only (k_j^p is the limit of attempts *at* service j), never on the caller.
 * The analysis (`toNetworkModel`), the simulator, the sidecar configs, every mesh generator, the
 * xDS resources and the testbed read its result.
 * @throws RangeError when `overrides.retries` names a class the file does not declare.
 * @example
 * ```ts
 * const hops = resolveHops(network, { retries: { low: 0 } });
 * hops.services[1].hops[0]; // { retries: 3, timeoutMs: 80, backoff: … }
 * ```
 */
export function resolveHops(network: NetworkSpec, overrides?: NetworkOverrides): ResolvedHops {
  const file = overrides === undefined ? network : applyOverrides(network, overrides);
  const classes = file.classes.map(
    (c, p): ClassDefaults => ({
      name: c.name,
      retries: c.retries,
      timeoutMs: c.timeoutMs,
      backoff: classBackoff(file, p),
    }),
  );
  return {
    classes,
    services: file.services.map((service) => ({
      name: service.name,
      hops: classes.map(
        (c): Hop => ({
          retries: service.retries?.[c.name] ?? c.retries,
          timeoutMs: service.timeouts?.[c.name] ?? c.timeoutMs,
          backoff: c.backoff,
        }),
      ),
    })),
  };
}

/**
 * The hop of class `className` into service `service`.
 * @throws RangeError when the network has no such service or class.
 */
export function hopOf(hops: ResolvedHops, service: string, className: string): Hop {
  const p = hops.classes.findIndex((c) => c.name === className);
  const hop = hops.services.find((s) => s.name === service)?.hops[p];
  if (hop === undefined) {
    throw new InvalidArgumentError(`no hop for class "${className}" into service "${service}"`);
  }
  return hop;
}
