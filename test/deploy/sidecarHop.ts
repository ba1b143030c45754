import type { SidecarConfig } from '../../src/config/sidecarSchema.js';
import { upstreamHop } from '../../src/config/upstreamHop.js';
import type { ClassOptions } from '../../src/policy/classes/ClassTable.js';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import type { ReadHop } from './readHop.js';

/** A hop as a sidecar applies it, with the class it gave the request. */
export interface SidecarHop extends ReadHop {
  readonly className: string;
}

/**
 * What the sidecar of `config` (parsed, its defaults applied) does with a call to `upstream`
 * carrying `classValue` in its class header (undefined: no header), read the way its outbound
 * listener builds its policy: per class the upstream's hop (`upstreamHop`), in a retry policy
 * with the config's default class and header, which gives the request its class.
 */
export function sidecarHop(
  config: SidecarConfig,
  upstream: string,
  classValue: string | undefined,
): SidecarHop {
  const found = config.outbound?.upstreams.find((u) => u.name === upstream);
  if (found === undefined) throw new Error(`${config.service} has no upstream ${upstream}`);
  const classes: Record<string, ClassOptions> = {};
  for (const spec of config.classes) {
    const hop = upstreamHop(config, found, spec.name);
    classes[spec.name] = {
      retries: hop.retries,
      ...(hop.timeoutMs !== undefined && { timeoutMs: hop.timeoutMs }),
    };
  }
  const policy = retryPolicy({
    classes,
    ...(config.defaultClass !== undefined && { defaultClass: config.defaultClass }),
    header: config.header,
  });
  const className = policy.classify(classValue);
  return {
    className,
    retries: policy.retryLimit(className),
    timeoutMs: policy.timeoutMs(className),
  };
}
