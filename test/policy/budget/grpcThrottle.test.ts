import { describe, expect, it } from 'vitest';
import { grpcThrottle } from '../../../src/policy/budget/index.js';

describe('grpcThrottle', () => {
  it('starts full and allows retries while tokens > maxTokens / 2', () => {
    const budget = grpcThrottle(); // maxTokens 10, tokenRatio 0.1
    expect(budget.balance(0)).toBe(10);
    for (let failures = 1; failures <= 4; failures++) {
      budget.attemptFailed('any', 0);
      expect(budget.balance(0)).toBe(10 - failures);
      expect(budget.acquireRetry('any', 0), `after ${failures} failures`).toBe(true);
    }
    budget.attemptFailed('any', 0); // 5 tokens: not more than 10 / 2
    expect(budget.balance(0)).toBe(5);
    expect(budget.acquireRetry('any', 0)).toBe(false);
  });

  it('recovers with successes: one success of 0.1 lifts 5 to 5.1', () => {
    const budget = grpcThrottle();
    for (let i = 0; i < 5; i++) budget.attemptFailed('any', 0);
    expect(budget.acquireRetry('any', 0)).toBe(false);
    budget.attemptSucceeded('any', 0);
    expect(budget.balance(0)).toBe(5.1);
    expect(budget.acquireRetry('any', 0)).toBe(true);
  });

  it('floors at 0 and needs 51 successes to climb back above 5 (counted in thousandths)', () => {
    const budget = grpcThrottle();
    for (let i = 0; i < 30; i++) budget.attemptFailed('any', 0);
    expect(budget.balance(0)).toBe(0);
    for (let i = 0; i < 50; i++) budget.attemptSucceeded('any', 0);
    expect(budget.balance(0)).toBe(5); // exactly: summing 0.1 fifty times in floating point gives 4.999999999999998
    expect(budget.acquireRetry('any', 0)).toBe(false);
    budget.attemptSucceeded('any', 0);
    expect(budget.acquireRetry('any', 0)).toBe(true);
  });

  it('caps at maxTokens and charges nothing for an admitted retry', () => {
    const budget = grpcThrottle({ maxTokens: 4, tokenRatio: 1 });
    for (let i = 0; i < 10; i++) budget.attemptSucceeded('any', 0);
    expect(budget.balance(0)).toBe(4);
    for (let i = 0; i < 100; i++) expect(budget.acquireRetry('any', 0)).toBe(true);
    expect(budget.balance(0)).toBe(4);
  });

  it('ignores requests, retry ends, classes and time', () => {
    const budget = grpcThrottle({ maxTokens: 2 });
    budget.attemptFailed('high', 0); // 1 token: not > 1
    for (let i = 0; i < 10; i++) {
      budget.requestStarted('high', i * 1e6);
      budget.requestFinished('low', i * 1e6);
      budget.retryFinished('low', i * 1e6);
    }
    expect(budget.acquireRetry('high', 1e9)).toBe(false);
    expect(budget.balance(1e9)).toBe(1);
  });

  it('rejects bad options, naming them', () => {
    expect(() => grpcThrottle({ maxTokens: 0 })).toThrow(
      /maxTokens should be a number in \(0, 1000\], got 0/,
    );
    expect(() => grpcThrottle({ maxTokens: 1001 })).toThrow(RangeError);
    expect(() => grpcThrottle({ maxTokens: 0.0001 })).toThrow(/three decimals/);
    expect(() => grpcThrottle({ tokenRatio: 0 })).toThrow(/tokenRatio.*got 0/);
    expect(() => grpcThrottle({ tokenRatio: 0.0001 })).toThrow(RangeError);
    expect(() => grpcThrottle({ tokenRatio: Number.NaN })).toThrow(RangeError);
  });
});
