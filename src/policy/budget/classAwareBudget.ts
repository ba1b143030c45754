import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { checkRange } from './checkRange.js';
import type { RetryBudget } from './RetryBudget.js';
import { type RatioBudgetOptions, ratioLedger } from './ratioLedger.js';

/** Options of {@link classAwareBudget}: a ratio budget's, plus the classes in priority order. */
export interface ClassAwareBudgetOptions extends RatioBudgetOptions {
  /** Class names, highest priority first (as the policy's class table); at least one. */
  readonly classes: readonly string[];
  /**
   * The share of the window's allowance, in [0, 1], that the lowest class may not touch and that
   * is kept for the classes above it; default 0.5.
   * @default 0.5
   */
  readonly reserveShare?: number;
}

/** A {@link RetryBudget} that also tells the balance each class needs. */
export interface ClassAwareBudget extends RetryBudget {
  /** The balance class `className` needs to retry at `nowMs` (unknown names: the lowest class's). */
  threshold(className: string, nowMs: number): number;
}

/**
 * One ratio budget shared by all classes (the accounting of {@link finagleBudget}: requests
 * deposit, admitted retries withdraw, both over `ttlMs`, plus the reserve) whose lower classes
 * are cut first. With n classes ranked i = 0 (highest) … n − 1 (lowest) and
 * A = reserve + percentCanRetry · (requests in the window), the window's full allowance:
 *
 *   class i may retry iff balance ≥ threshold_i = 1 + reserveShare · A · i / (n − 1)
 *
 * that is, iff after its withdrawal at least `reserveShare · A · i / (n − 1)` is left for the
 * classes above it. The highest class needs 1, exactly as under the plain budget; the lowest may
 * spend at most (1 − reserveShare) of the allowance. As retries drain the balance the lowest class
 * loses its retries first, then the next; the highest keeps the last `reserveShare · A / (n − 1)`.
 * Example: A = 20, reserveShare 0.5, classes gold, silver, bronze: thresholds 1, 6, 11; draining
 * from full, bronze gets 10 retries, silver 5 more, gold the last 5.
 *
 * High classes are never worse off than under `finagleBudget` with the same options: the highest
 * class is admitted by the plain budget's own rule on the same balance, every retry this budget
 * admits the plain budget would admit from the same state, and what the lower classes are refused
 * stays in the balance for the higher ones. With one class, or `reserveShare: 0`, it is the plain
 * budget.
 *
 * Names are matched exactly; a name not in `classes` is treated as the lowest class (never the
 * highest). `balance()` is the shared balance, `max(0, balance)`.
 * @see finagleBudget for the ratio accounting; docs/design.md "DiffTry: differential retries".
 * @example
 * ```ts
 * const budget = classAwareBudget({ classes: ['high', 'low'], minRetriesPerSec: 0, reserveShare: 0.5 });
 * // 100 requests in the window, no reserve: A = 20; 'low' gets at most 10 retries, 'high' all 20.
 * ```
 */
export function classAwareBudget(options: Readonly<ClassAwareBudgetOptions>): ClassAwareBudget {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentTypeError(
      `options should be an object with classes, got ${String(options)}`,
    );
  }
  const classes = options.classes;
  if (!Array.isArray(classes) || classes.length === 0) {
    throw new InvalidArgumentError(
      `classes should be a non-empty array of class names, highest first, got ${JSON.stringify(classes)}`,
    );
  }
  const ranks = new Map<string, number>();
  for (const [rank, name] of classes.entries()) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new InvalidArgumentTypeError(
        `classes[${rank}] should be a non-empty string, got ${JSON.stringify(name)}`,
      );
    }
    if (ranks.has(name))
      throw new InvalidArgumentError(`classes should have unique names, got "${name}" twice`);
    ranks.set(name, rank);
  }
  const reserveShare = checkRange('reserveShare', options.reserveShare ?? 0.5, { min: 0, max: 1 });
  const ledger = ratioLedger(options);
  const lowest = classes.length - 1;
  const rankOf = (className: string) => ranks.get(className) ?? lowest;
  const threshold = (className: string, nowMs: number) => {
    const rank = rankOf(className);
    const allowance = ledger.allowance(nowMs); // read for every class: it also checks the time
    return rank === 0 ? 1 : 1 + (reserveShare * allowance * rank) / lowest;
  };
  return {
    name: 'class-aware',
    threshold,
    requestStarted: (_className, nowMs) => ledger.deposit(nowMs),
    requestFinished: (_className, nowMs) => void ledger.time(nowMs),
    attemptSucceeded: (_className, nowMs) => void ledger.time(nowMs),
    attemptFailed: (_className, nowMs) => void ledger.time(nowMs),
    acquireRetry(className, nowMs) {
      if (!ledger.covers(threshold(className, nowMs), nowMs)) return false;
      ledger.withdraw(nowMs);
      return true;
    },
    retryFinished: (_className, nowMs) => void ledger.time(nowMs),
    balance: (nowMs) => Math.max(0, ledger.rawBalance(nowMs)),
  };
}
