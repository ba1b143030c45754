import { checkRange } from './checkRange.js';
import { monotonicTime } from './monotonicTime.js';
import type { RetryBudget } from './RetryBudget.js';

/** Options of {@link envoyBudget}, as in Envoy's `circuit_breakers.thresholds.retry_budget`. */
export interface EnvoyBudgetOptions {
  /**
   * Active retries allowed, as a percentage of active requests, in [0, 100]; default 20.
   * @default 20
   */
  readonly budgetPercent?: number;
  /**
   * Active retries always allowed, however few requests are active (an integer ≥ 0); default 3.
   * @default 3
   */
  readonly minRetryConcurrency?: number;
}

/**
 * Envoy's retry budget, a limit on concurrency rather than on rate: the retries in flight (admitted
 * by `acquireRetry`, not yet reported by `retryFinished`) may not exceed
 * max(minRetryConcurrency, ⌊budgetPercent % × active requests⌋), where active requests are the
 * originals started and not yet finished. A retry is admitted iff one more stays within that
 * limit; so 10 active requests at 20 % allow max(3, 2) = 3 concurrent retries.
 *
 * Envoy counts active and pending upstream requests, retries included; here the executor's hooks
 * give the original requests. `balance()` is the number of free retry slots
 * (max(0, limit − active retries)); a fresh budget has `minRetryConcurrency` of them. It ignores
 * the class, outcomes and time. Unmatched `requestFinished`/`retryFinished` calls never take a
 * count below zero.
 * @see https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/circuit_breaker.proto (RetryBudget)
 * @example
 * ```ts
 * const budget = envoyBudget({ budgetPercent: 20, minRetryConcurrency: 3 });
 * ```
 */
export function envoyBudget(options: Readonly<EnvoyBudgetOptions> = {}): RetryBudget {
  const budgetPercent = checkRange('budgetPercent', options.budgetPercent ?? 20, {
    min: 0,
    max: 100,
  });
  const minRetryConcurrency = checkRange('minRetryConcurrency', options.minRetryConcurrency ?? 3, {
    min: 0,
    max: 2 ** 32 - 1,
    integer: true,
  });
  const time = monotonicTime();
  let activeRequests = 0;
  let activeRetries = 0;
  // Envoy converts the product to an unsigned integer, which truncates. Multiplying first keeps
  // whole results exact (29 % of 100 is 29 here; 0.29 · 100 would truncate to 28).
  const limit = () =>
    Math.max(minRetryConcurrency, Math.floor((budgetPercent * activeRequests) / 100));
  return {
    name: 'envoy',
    requestStarted(_className, nowMs) {
      time(nowMs);
      activeRequests++;
    },
    requestFinished(_className, nowMs) {
      time(nowMs);
      if (activeRequests > 0) activeRequests--;
    },
    attemptSucceeded: (_className, nowMs) => void time(nowMs),
    attemptFailed: (_className, nowMs) => void time(nowMs),
    acquireRetry(_className, nowMs) {
      time(nowMs);
      if (activeRetries + 1 > limit()) return false;
      activeRetries++;
      return true;
    },
    retryFinished(_className, nowMs) {
      time(nowMs);
      if (activeRetries > 0) activeRetries--;
    },
    balance(nowMs) {
      time(nowMs);
      return Math.max(0, limit() - activeRetries);
    },
  };
}
