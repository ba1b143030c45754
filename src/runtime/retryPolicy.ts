import type { Clock } from '../policy/Clock.js';
import type { RetryPolicy, RetryPolicyOptions } from '../policy/retry/RetryPolicy.js';
import { createRetryPolicy } from '../policy/retry/RetryPolicy.js';

/** The wall clock, for executors that run in real time. */
export const systemClock: Clock = () => Date.now();

/**
 * The DiffTry retry policy for code that runs in real time: `createRetryPolicy` with the wall
 * clock and `Math.random` unless the options inject others (tests inject fakes, the simulator its
 * virtual clock and a seeded random source). Build it once and share it: budgets live in it.
 * @example
 * ```ts
 * const policy = retryPolicy({
 *   classes: { high: { retries: 5 }, low: { retries: 1 } },
 *   defaultClass: 'low',
 *   backoff: { kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' },
 * });
 * policy.decide({ className: 'high', retries: 0, outcome: { kind: 'status', status: 503 } });
 * ```
 */
export function retryPolicy(options: RetryPolicyOptions): RetryPolicy {
  return createRetryPolicy({
    ...options,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  });
}
