import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { SidecarConfig, UpstreamConfig } from './sidecarSchema.js';

/** What one class gets on the calls through one upstream of a sidecar. */
export interface UpstreamClassHop {
  /** Retries after the first attempt: the upstream's `retries` entry, else the class's. */
  readonly retries: number;
  /**
   * A fixed per-try timeout (ms): the upstream's `timeouts` entry, else its `timeoutMs`, else the
   * class's; undefined for none (or where the upstream has an adaptive `timeout` strategy).
   */
  readonly timeoutMs: number | undefined;
}

/**
 * How a sidecar config reads class `className` on `upstream`: the sidecar's outbound listener
 * builds its policy from it, and the deployment-equivalence test reads generated configs back
 * with it. The most specific setting wins: the upstream's per-class entry, then the upstream's
 * own, then the class's.
 * @throws RangeError when the config has no such class.
 * @example
 * ```ts
 * upstreamHop(config, config.outbound.upstreams[0], 'gold'); // { retries: 3, timeoutMs: 80 }
 * ```
 */
export function upstreamHop(
  config: Pick<SidecarConfig, 'classes'>,
  upstream: Pick<UpstreamConfig, 'retries' | 'timeouts' | 'timeoutMs' | 'timeout'>,
  className: string,
): UpstreamClassHop {
  const spec = config.classes.find((c) => c.name === className);
  if (spec === undefined)
    throw new InvalidArgumentError(`the sidecar config has no class "${className}"`);
  return {
    retries: upstream.retries?.[className] ?? spec.retries,
    timeoutMs:
      upstream.timeout !== undefined
        ? undefined
        : (upstream.timeouts?.[className] ?? upstream.timeoutMs ?? spec.timeoutMs),
  };
}
