import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../random.js';
import type { BackoffDescription } from './BackoffDescription.js';
import { checkBackoff, drawRetryDelay } from './retryDelay.js';

/** A retry delay policy: how long to wait before retry `retry` (1-based), in milliseconds. */
export interface Backoff {
  readonly description: BackoffDescription;
  /**
   * The delay before retry number `retry`. `previousDelayMs` is the delay drawn before the
   * previous retry (decorrelated jitter only; omit for the first retry).
   */
  delayMs(retry: number, previousDelayMs?: number): number;
}

/**
 * A backoff from its description, drawing jitter from `random` (inject a seeded source in tests
 * and simulation). The semantics live in one place, `drawRetryDelay`, which the simulator and the
 * analysis's residual-time correction share; every delay is finite and at most 2³¹ − 1 ms, even
 * after a thousand retries.
 * @example
 * ```ts
 * const backoff = createBackoff({ kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' }, Math.random);
 * backoff.delayMs(1); // uniform in [0, 50]
 * ```
 */
export function createBackoff(description: BackoffDescription, random: RandomSource): Backoff {
  checkBackoff(description);
  const first = description.kind === 'exponential' ? description.baseMs : 0;
  return {
    description,
    delayMs: (retry, previousDelayMs) => {
      if (!(Number.isInteger(retry) && retry >= 1)) {
        throw new InvalidArgumentError(`retry should be an integer ≥ 1, got ${retry}`);
      }
      return drawRetryDelay(description, retry, previousDelayMs ?? first, random);
    },
  };
}
