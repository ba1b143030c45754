import type { RetryBudget } from './RetryBudget.js';
import { type RatioBudgetOptions, ratioLedger } from './ratioLedger.js';

/** Options of {@link finagleBudget}. */
export type FinagleBudgetOptions = RatioBudgetOptions;

/**
 * Finagle's (and Linkerd's) retry budget: every original request deposits `percentCanRetry`
 * retries into a bucket, every admitted retry withdraws one, and both expire after `ttlMs`; a
 * reserve of `minRetriesPerSec × ttlMs / 1000` retries lets clients with little traffic retry too.
 *
 * balance = reserve + percentCanRetry · (requests in the last ttl) − (retries in the last ttl);
 * a retry is admitted iff balance ≥ 1. The window is kept in `slices` slices (default 10, as
 * Finagle's `WindowedAdder`), so an entry expires between 0.9 and 1 ttl after it was made.
 *
 * Only `requestStarted` and `acquireRetry` change it; it ignores the class and the outcomes.
 * `balance()` reports the retries that may go now (`max(0, balance)`, possibly fractional). A fresh
 * budget has the reserve alone: 100 retries with the defaults, none with `minRetriesPerSec: 0`.
 *
 * Defaults are Finagle's `RetryBudget()`: ttl 10 s, 10 retries per second, 20 % of requests.
 * Finagle counts in integer tokens (a retry costs ⌊1000 / percentCanRetry⌋ milli-deposits); this
 * one uses the exact ratio, so 100 requests at 0.2 pay for exactly 20 retries.
 * @see https://github.com/twitter/finagle/blob/develop/finagle-core/src/main/scala/com/twitter/finagle/service/RetryBudget.scala
 * @see https://finagle.github.io/blog/2016/02/08/retry-budgets/
 * @example
 * ```ts
 * const policy = retryPolicy({ classes: { high: { retries: 3 } }, budget: finagleBudget({ percentCanRetry: 0.1 }) });
 * ```
 */
export function finagleBudget(options: Readonly<FinagleBudgetOptions> = {}): RetryBudget {
  const ledger = ratioLedger(options);
  return {
    name: 'finagle',
    requestStarted: (_className, nowMs) => ledger.deposit(nowMs),
    requestFinished: (_className, nowMs) => void ledger.time(nowMs),
    attemptSucceeded: (_className, nowMs) => void ledger.time(nowMs),
    attemptFailed: (_className, nowMs) => void ledger.time(nowMs),
    acquireRetry(_className, nowMs) {
      if (!ledger.covers(1, nowMs)) return false;
      ledger.withdraw(nowMs);
      return true;
    },
    retryFinished: (_className, nowMs) => void ledger.time(nowMs),
    balance: (nowMs) => Math.max(0, ledger.rawBalance(nowMs)),
  };
}
