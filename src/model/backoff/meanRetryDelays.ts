import type { BackoffDescription } from './BackoffDescription.js';
import { retryDelayLaw } from './retryDelay.js';

/**
 * The mean delay before each retry r = 1 … k of a backoff, seconds: what the orbit law needs of
 * it (the mean time a request waits to retry). The mean of `retryDelayLaw` per retry: the delay
 * itself when fixed, `meanMs` when exponential, the midpoint when uniform (full, equal and
 * decorrelated jitter). k = 0 gives the first retry's, so the list is never empty.
 * @example
 * ```ts
 * meanRetryDelays({ kind: 'exponential', baseMs: 50, jitter: 'full' }, 3); // [0.025, 0.05, 0.1]
 * ```
 */
export function meanRetryDelays(backoff: BackoffDescription, retries: number): number[] {
  const means: number[] = [];
  for (let r = 1; r <= Math.max(retries, 1); r++) {
    const law = retryDelayLaw(backoff, r);
    const ms =
      law.kind === 'fixed'
        ? law.ms
        : law.kind === 'exponential'
          ? law.meanMs
          : (law.minMs + law.maxMs) / 2;
    means.push(ms / 1000);
  }
  return means;
}
