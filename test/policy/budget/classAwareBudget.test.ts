import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classAwareBudget, finagleBudget } from '../../../src/policy/budget/index.js';
import { budgetEvents, replay } from './common.case.js';

/** No reserve, 20 % of requests: 100 requests make an allowance A = 20. */
const RATIO = { minRetriesPerSec: 0, percentCanRetry: 0.2 } as const;

function drain(acquire: () => boolean): number {
  let admitted = 0;
  while (admitted < 10_000 && acquire()) admitted++;
  return admitted;
}

describe('classAwareBudget', () => {
  it('cuts low before high: with A = 20 and reserveShare 0.5, low gets 10, high the other 10', () => {
    const budget = classAwareBudget({ ...RATIO, classes: ['high', 'low'], reserveShare: 0.5 });
    for (let i = 0; i < 100; i++) budget.requestStarted('low', 0);
    expect(budget.threshold('high', 0)).toBe(1);
    expect(budget.threshold('low', 0)).toBe(11);
    expect(drain(() => budget.acquireRetry('low', 0))).toBe(10);
    expect(budget.balance(0)).toBe(10);
    expect(drain(() => budget.acquireRetry('high', 0))).toBe(10);
    expect(budget.balance(0)).toBe(0);
  });

  it('three classes lose their retries lowest first: thresholds 1, 6, 11', () => {
    const budget = classAwareBudget({ ...RATIO, classes: ['gold', 'silver', 'bronze'] });
    for (let i = 0; i < 100; i++) budget.requestStarted('gold', 0);
    expect(['gold', 'silver', 'bronze'].map((c) => budget.threshold(c, 0))).toEqual([1, 6, 11]);
    expect(drain(() => budget.acquireRetry('bronze', 0))).toBe(10);
    expect(drain(() => budget.acquireRetry('silver', 0))).toBe(5);
    expect(budget.acquireRetry('bronze', 0)).toBe(false);
    expect(drain(() => budget.acquireRetry('gold', 0))).toBe(5);
  });

  it('an undeclared class is treated as the lowest, never the highest', () => {
    const budget = classAwareBudget({ ...RATIO, classes: ['high', 'low'] });
    for (let i = 0; i < 100; i++) budget.requestStarted('high', 0);
    expect(budget.threshold('platinum', 0)).toBe(budget.threshold('low', 0));
    expect(budget.threshold('HIGH', 0)).toBe(budget.threshold('low', 0)); // exact names only
    expect(drain(() => budget.acquireRetry('platinum', 0))).toBe(10);
  });

  it('the thresholds follow the window: when requests expire, the allowance and thresholds fall', () => {
    const budget = classAwareBudget({ ...RATIO, classes: ['high', 'low'], reserveShare: 1 });
    for (let i = 0; i < 100; i++) budget.requestStarted('high', 0);
    expect(budget.threshold('low', 0)).toBe(21); // low may never spend with reserveShare 1
    expect(budget.acquireRetry('low', 0)).toBe(false);
    expect(budget.threshold('low', 10_000)).toBe(1);
  });

  it('with the highest class only, it is the plain budget (same answers)', () => {
    fc.assert(
      fc.property(budgetEvents(0), (events) => {
        const options = { ttlMs: 2_000, minRetriesPerSec: 1, percentCanRetry: 0.3, slices: 5 };
        const plain = replay(finagleBudget(options), ['high'], events);
        const classAware = replay(
          classAwareBudget({ ...options, classes: ['high', 'mid', 'low'] }),
          ['high'],
          events,
        );
        expect(classAware).toEqual(plain);
      }),
      { numRuns: 300 },
    );
  });

  it('with reserveShare 0 or a single class, it is the plain budget for every class', () => {
    fc.assert(
      fc.property(budgetEvents(2), (events) => {
        const options = { ttlMs: 2_000, minRetriesPerSec: 1, percentCanRetry: 0.3, slices: 5 };
        const plain = replay(finagleBudget(options), ['high', 'low'], events);
        const noShare = classAwareBudget({ ...options, classes: ['high', 'low'], reserveShare: 0 });
        const single = classAwareBudget({ ...options, classes: ['high'] });
        expect(replay(noShare, ['high', 'low'], events)).toEqual(plain);
        expect(replay(single, ['high', 'low'], events)).toEqual(plain);
      }),
      { numRuns: 300 },
    );
  });

  it('the highest class is never worse off than under the plain budget: it always has had at least as many retries admitted', () => {
    fc.assert(
      fc.property(
        budgetEvents(2, 400),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0, 0.5, 2),
        (events, reserveShare, minRetriesPerSec) => {
          const options = { ttlMs: 2_000, minRetriesPerSec, percentCanRetry: 0.5, slices: 4 };
          const classes = ['high', 'low'];
          const plain = finagleBudget(options);
          const classAware = classAwareBudget({ ...options, classes, reserveShare });
          let highPlain = 0;
          let highClassAware = 0;
          for (const { hook, classIndex, timeMs } of events) {
            const className = classes[classIndex] ?? 'undeclared';
            if (hook === 'acquireRetry') {
              const a = plain.acquireRetry(className, timeMs);
              const b = classAware.acquireRetry(className, timeMs);
              if (className === 'high') {
                highPlain += Number(a);
                highClassAware += Number(b);
              }
              expect(highClassAware).toBeGreaterThanOrEqual(highPlain);
            } else if (hook !== 'balance') {
              plain[hook](className, timeMs);
              classAware[hook](className, timeMs);
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('rejects bad options, naming them', () => {
    expect(() => classAwareBudget({ classes: [] })).toThrow(/classes should be a non-empty array/);
    expect(() => classAwareBudget({ classes: ['a', 'a'] })).toThrow(/"a" twice/);
    expect(() => classAwareBudget({ classes: ['a', ''] })).toThrow(
      /classes\[1\] should be a non-empty string/,
    );
    expect(() => classAwareBudget({ classes: ['a'], reserveShare: 1.5 })).toThrow(
      /reserveShare should be a number in \[0, 1\], got 1.5/,
    );
    expect(() => classAwareBudget({ classes: ['a'], ttlMs: -1 })).toThrow(/ttlMs/);
    expect(() => classAwareBudget(undefined as never)).toThrow(TypeError);
  });
});
