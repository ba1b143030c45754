import { checkRange } from './checkRange.js';
import { monotonicTime } from './monotonicTime.js';
import { windowedCounter } from './windowedCounter.js';

/** Options of a ratio budget (Finagle's `RetryBudget`), shared by the Finagle and class-aware budgets. */
export interface RatioBudgetOptions {
  /**
   * How long a request's deposit and a retry's withdrawal count, ms; default 10,000.
   * @default 10_000
   */
  readonly ttlMs?: number;
  /**
   * Retries per second allowed on top of the ratio, so a client with little traffic can still
   * retry; the reserve is `minRetriesPerSec × ttlMs / 1000` retries. Default 10.
   * @default 10
   */
  readonly minRetriesPerSec?: number;
  /**
   * Retries allowed per request in the window (0.2 = one retry per five requests); default 0.2.
   * @default 0.2
   */
  readonly percentCanRetry?: number;
  /**
   * Slices of the sliding window (memory and expiry granularity); default 10.
   * @default 10
   */
  readonly slices?: number;
}

/**
 * The shared accounting of a ratio budget: deposits (requests) and withdrawals (retries) over a
 * sliding window of `ttlMs`, plus a fixed reserve.
 *
 * balance = reserve + percentCanRetry · (requests in the window) − (retries in the window)
 *
 * The raw balance can fall below zero: deposits and withdrawals expire separately, so the
 * requests that paid for a burst of retries may leave the window before the retries do.
 */
export interface RatioLedger {
  /** An original request started: deposit. */
  deposit(nowMs: number): void;
  /** A retry was admitted: withdraw one. */
  withdraw(nowMs: number): void;
  /** The full allowance of the window: reserve + percentCanRetry · requests (before withdrawals). */
  allowance(nowMs: number): number;
  /** The allowance less the retries of the window; may be negative (see above). */
  rawBalance(nowMs: number): number;
  /**
   * Whether the balance covers `threshold`, within a relative 1e-9 so that a product such as
   * 0.29 · 100 (28.999999999999996 in floating point) counts as the 29 it means.
   */
  covers(threshold: number, nowMs: number): boolean;
  /** The checked time (see {@link monotonicTime}). */
  time(nowMs: number): number;
}

/** The defaults of {@link RatioBudgetOptions}, Finagle's `RetryBudget()` defaults. */
export const RATIO_BUDGET_DEFAULTS = Object.freeze({
  ttlMs: 10_000,
  minRetriesPerSec: 10,
  percentCanRetry: 0.2,
  slices: 10,
});

/** Checks ratio budget options (RangeError/TypeError naming the bad value) and builds the ledger. */
export function ratioLedger(options: Readonly<RatioBudgetOptions>): RatioLedger {
  const ttlMs = checkRange('ttlMs', options.ttlMs ?? RATIO_BUDGET_DEFAULTS.ttlMs, {
    min: 1,
    max: 86_400_000,
  });
  const minRetriesPerSec = checkRange(
    'minRetriesPerSec',
    options.minRetriesPerSec ?? RATIO_BUDGET_DEFAULTS.minRetriesPerSec,
    { min: 0, max: 1_000_000 },
  );
  // Finagle's bound: its token bucket scales the ratio by 1000.
  const percentCanRetry = checkRange(
    'percentCanRetry',
    options.percentCanRetry ?? RATIO_BUDGET_DEFAULTS.percentCanRetry,
    { min: 0, max: 1000 },
  );
  const slices = checkRange('slices', options.slices ?? RATIO_BUDGET_DEFAULTS.slices, {
    min: 1,
    max: 1000,
    integer: true,
  });
  const reserve = (minRetriesPerSec * ttlMs) / 1000;
  const requests = windowedCounter(ttlMs, slices);
  const retries = windowedCounter(ttlMs, slices);
  const time = monotonicTime();
  const allowance = (now: number) => reserve + percentCanRetry * requests.total(now);
  const rawBalance = (now: number) => allowance(now) - retries.total(now);
  return {
    deposit: (nowMs) => requests.add(time(nowMs), 1),
    withdraw: (nowMs) => retries.add(time(nowMs), 1),
    allowance: (nowMs) => allowance(time(nowMs)),
    rawBalance: (nowMs) => rawBalance(time(nowMs)),
    covers(threshold, nowMs) {
      const now = time(nowMs);
      const full = allowance(now);
      return full - retries.total(now) >= threshold - 1e-9 * Math.max(1, full);
    },
    time,
  };
}
