import { describe, expect, it } from 'vitest';
import { envoyBudget } from '../../../src/policy/budget/index.js';

function start(budget: ReturnType<typeof envoyBudget>, count: number): void {
  for (let i = 0; i < count; i++) budget.requestStarted('any', 0);
}

describe('envoyBudget', () => {
  it('10 active requests at 20 % allow max(3, 2) = 3 concurrent retries', () => {
    const budget = envoyBudget({ budgetPercent: 20, minRetryConcurrency: 3 });
    start(budget, 10);
    expect(budget.balance(0)).toBe(3);
    expect([1, 2, 3, 4].map(() => budget.acquireRetry('any', 0))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(budget.balance(0)).toBe(0);
    budget.retryFinished('any', 0);
    expect(budget.acquireRetry('any', 0)).toBe(true);
  });

  it('100 active requests at 20 % allow 20', () => {
    const budget = envoyBudget();
    start(budget, 100);
    let admitted = 0;
    while (budget.acquireRetry('any', 0)) admitted++;
    expect(admitted).toBe(20);
  });

  it('truncates the percentage like Envoy, multiplying first (29 % of 100 is 29; 25 % of 10 is 2)', () => {
    const exact = envoyBudget({ budgetPercent: 29, minRetryConcurrency: 0 });
    start(exact, 100);
    expect(exact.balance(0)).toBe(29);
    const truncated = envoyBudget({ budgetPercent: 25, minRetryConcurrency: 0 });
    start(truncated, 10);
    expect(truncated.balance(0)).toBe(2);
  });

  it('shrinks the limit as requests finish: retries in flight above it block new ones', () => {
    const budget = envoyBudget();
    start(budget, 100);
    for (let i = 0; i < 20; i++) expect(budget.acquireRetry('any', 0)).toBe(true);
    for (let i = 0; i < 90; i++) budget.requestFinished('any', 0); // 10 active: limit 3
    expect(budget.balance(0)).toBe(0);
    for (let i = 0; i < 17; i++) budget.retryFinished('any', 0); // 3 in flight: still full
    expect(budget.acquireRetry('any', 0)).toBe(false);
    budget.retryFinished('any', 0); // 2 in flight
    expect(budget.acquireRetry('any', 0)).toBe(true);
  });

  it('never counts below zero on unmatched finishes', () => {
    const budget = envoyBudget({ budgetPercent: 100, minRetryConcurrency: 0 });
    for (let i = 0; i < 5; i++) {
      budget.requestFinished('any', 0);
      budget.retryFinished('any', 0);
    }
    expect(budget.balance(0)).toBe(0);
    expect(budget.acquireRetry('any', 0)).toBe(false);
    start(budget, 1);
    expect(budget.acquireRetry('any', 0)).toBe(true);
  });

  it('rejects bad options, naming them', () => {
    expect(() => envoyBudget({ budgetPercent: 101 })).toThrow(
      /budgetPercent should be a number in \[0, 100\], got 101/,
    );
    expect(() => envoyBudget({ budgetPercent: -1 })).toThrow(RangeError);
    expect(() => envoyBudget({ minRetryConcurrency: 1.5 })).toThrow(
      /minRetryConcurrency should be an integer/,
    );
    expect(() => envoyBudget({ minRetryConcurrency: -1 })).toThrow(RangeError);
  });
});
