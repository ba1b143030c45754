import { describe, expect, it } from 'vitest';
import { sreThrottle } from '../../../src/policy/budget/index.js';

const never = () => {
  throw new Error('random should not be drawn when p = 0');
};

describe('sreThrottle', () => {
  it('refuses with p = (requests − K·accepts) / (requests + 1), drawing from random', () => {
    // 30 requests, 10 accepts, K = 2: p = (30 − 20) / 31 = 10/31 ≈ 0.3226.
    const setUp = (draw: number) => {
      const budget = sreThrottle({ k: 2, random: () => draw });
      for (let i = 0; i < 30; i++) budget.requestStarted('any', 0);
      for (let i = 0; i < 10; i++) budget.attemptSucceeded('any', 0);
      return budget;
    };
    expect(setUp(0).balance(0)).toBeCloseTo(21 / 31, 15);
    expect(setUp(0.32).acquireRetry('any', 0)).toBe(false);
    expect(setUp(0.33).acquireRetry('any', 0)).toBe(true);
  });

  it('an admitted retry counts as a request sent; a refused one does not', () => {
    const budget = sreThrottle({ k: 2, random: () => 0.95 });
    for (let i = 0; i < 10; i++) budget.requestStarted('any', 0); // p = 10/11 ≈ 0.909
    expect(budget.acquireRetry('any', 0)).toBe(true); // 0.95 ≥ p
    expect(budget.balance(0)).toBeCloseTo(1 - 11 / 12, 15);
    const refusing = sreThrottle({ k: 2, random: () => 0.5 });
    for (let i = 0; i < 10; i++) refusing.requestStarted('any', 0);
    expect(refusing.acquireRetry('any', 0)).toBe(false);
    expect(refusing.balance(0)).toBeCloseTo(1 - 10 / 11, 15);
  });

  it('admits without a draw while requests ≤ K·accepts', () => {
    const budget = sreThrottle({ k: 2, random: never });
    for (let i = 0; i < 10; i++) budget.requestStarted('any', 0);
    for (let i = 0; i < 5; i++) budget.attemptSucceeded('any', 0);
    expect(budget.balance(0)).toBe(1);
    expect(budget.acquireRetry('any', 0)).toBe(true);
  });

  it('forgets its counts after the window (two minutes by default)', () => {
    const budget = sreThrottle({ random: () => 0 });
    for (let i = 0; i < 100; i++) budget.requestStarted('any', 0);
    expect(budget.acquireRetry('any', 119_999)).toBe(false);
    expect(budget.balance(120_000)).toBe(1);
    expect(budget.acquireRetry('any', 120_000)).toBe(true);
  });

  it('ignores failures and retry ends: only sends and accepts move it', () => {
    const budget = sreThrottle({ k: 2, random: never });
    for (let i = 0; i < 50; i++) {
      budget.attemptFailed('any', 0);
      budget.retryFinished('any', 0);
      budget.requestFinished('any', 0);
    }
    expect(budget.balance(0)).toBe(1);
  });

  it('rejects bad options, naming them; random is required', () => {
    expect(() => sreThrottle({ k: 0, random: () => 0 })).toThrow(
      /k should be a number in \(0, 1000000\], got 0/,
    );
    expect(() => sreThrottle({ windowMs: 0, random: () => 0 })).toThrow(/windowMs/);
    expect(() => sreThrottle({ slices: 0, random: () => 0 })).toThrow(/slices/);
    expect(() => sreThrottle({} as never)).toThrow(/random should be a function/);
    expect(() => sreThrottle(undefined as never)).toThrow(TypeError);
  });
});
