import { describe, expect, it } from 'vitest';
import { finagleBudget } from '../../../src/policy/budget/index.js';

/** Calls `acquireRetry` until it refuses (at most `limit` times); returns how many it admitted. */
function drain(acquire: () => boolean, limit = 10_000): number {
  let admitted = 0;
  while (admitted < limit && acquire()) admitted++;
  return admitted;
}

function requests(budget: ReturnType<typeof finagleBudget>, count: number, nowMs: number): void {
  for (let i = 0; i < count; i++) budget.requestStarted('any', nowMs);
}

describe('finagleBudget', () => {
  it('with the defaults, a fresh budget holds the reserve: 10 retries/s × 10 s = 100', () => {
    const budget = finagleBudget();
    expect(budget.balance(0)).toBe(100);
    expect(drain(() => budget.acquireRetry('any', 0))).toBe(100);
    expect(budget.balance(0)).toBe(0);
  });

  it('100 requests in the ttl at percentCanRetry 0.2 allow 20 retries plus the reserve', () => {
    // reserve = 1 retry/s × 10 s = 10; ratio = 0.2 × 100 = 20.
    const budget = finagleBudget({ ttlMs: 10_000, minRetriesPerSec: 1, percentCanRetry: 0.2 });
    requests(budget, 100, 0);
    expect(budget.balance(500)).toBe(30);
    expect(drain(() => budget.acquireRetry('any', 500))).toBe(30);
  });

  it('without a reserve, allows exactly the ratio: 0.29 × 100 requests = 29 retries', () => {
    // 0.29 · 100 is 28.999999999999996 in floating point: the budget still means 29.
    const budget = finagleBudget({ minRetriesPerSec: 0, percentCanRetry: 0.29 });
    requests(budget, 100, 0);
    expect(drain(() => budget.acquireRetry('any', 0))).toBe(29);
  });

  it('deposits expire after the ttl (10 slices: an entry lives 9–10 s)', () => {
    const budget = finagleBudget({ minRetriesPerSec: 0, percentCanRetry: 0.2 });
    requests(budget, 50, 500); // slice 0 (0–999 ms)
    expect(budget.balance(9_999)).toBe(10);
    expect(budget.balance(10_000)).toBe(0); // slice 10: slice 0 has left the window
    expect(budget.acquireRetry('any', 10_000)).toBe(false);
  });

  it('withdrawals expire too, giving the allowance back', () => {
    const budget = finagleBudget({ minRetriesPerSec: 1, percentCanRetry: 0.2 });
    expect(drain(() => budget.acquireRetry('any', 0))).toBe(10);
    expect(budget.balance(5_000)).toBe(0);
    expect(budget.balance(10_000)).toBe(10);
  });

  it('reports 0, never less, when retries outlive the deposits that paid for them', () => {
    const budget = finagleBudget({ minRetriesPerSec: 0, percentCanRetry: 0.2 });
    requests(budget, 100, 0);
    expect(drain(() => budget.acquireRetry('any', 9_500))).toBe(20);
    // At 10.5 s the deposits (slice 0) are gone, the 20 withdrawals (slice 9) are not: raw −20.
    expect(budget.balance(10_500)).toBe(0);
    requests(budget, 50, 10_500); // +10: raw −10, still nothing to spend
    expect(budget.acquireRetry('any', 10_500)).toBe(false);
    // At 19 s the withdrawals of slice 9 leave: the 10 of slice 10 are back.
    expect(budget.balance(19_000)).toBe(10);
  });

  it('never retries with neither a reserve nor a ratio (Finagle’s RetryBudget.Empty)', () => {
    const budget = finagleBudget({ minRetriesPerSec: 0, percentCanRetry: 0 });
    requests(budget, 1000, 0);
    expect(budget.acquireRetry('any', 0)).toBe(false);
    expect(budget.balance(0)).toBe(0);
  });

  it('ignores classes and outcomes', () => {
    const budget = finagleBudget({ minRetriesPerSec: 0, percentCanRetry: 1 });
    requests(budget, 3, 0);
    for (let i = 0; i < 10; i++) {
      budget.attemptFailed('low', 0);
      budget.attemptSucceeded('high', 0);
      budget.requestFinished('high', 0);
      budget.retryFinished('low', 0);
    }
    expect(drain(() => budget.acquireRetry('whatever', 0))).toBe(3);
  });

  it('rejects bad options, naming them', () => {
    expect(() => finagleBudget({ ttlMs: 0 })).toThrow(
      /ttlMs should be a number in \[1, 86400000\], got 0/,
    );
    expect(() => finagleBudget({ ttlMs: Number.NaN })).toThrow(RangeError);
    expect(() => finagleBudget({ ttlMs: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => finagleBudget({ minRetriesPerSec: -1 })).toThrow(/minRetriesPerSec.*got -1/);
    expect(() => finagleBudget({ percentCanRetry: -0.1 })).toThrow(/percentCanRetry.*got -0.1/);
    expect(() => finagleBudget({ percentCanRetry: 1001 })).toThrow(RangeError);
    expect(() => finagleBudget({ slices: 0 })).toThrow(/slices should be an integer/);
    expect(() => finagleBudget({ slices: 2.5 })).toThrow(RangeError);
    expect(() => finagleBudget({ ttlMs: '10000' as unknown as number })).toThrow(
      /ttlMs should be a number in \[1, 86400000\], got "10000"/,
    );
    expect(() => finagleBudget({ ttlMs: '10000' as unknown as number })).toThrow(TypeError);
  });
});
