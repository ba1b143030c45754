import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RandomSource, seededRandom } from '../../../src/model/random.js';
import type { RetryBudget } from '../../../src/policy/budget/RetryBudget.js';

/** The hooks of {@link RetryBudget}, plus `balance`. */
const HOOKS = [
  'requestStarted',
  'requestFinished',
  'attemptSucceeded',
  'attemptFailed',
  'acquireRetry',
  'retryFinished',
  'balance',
] as const;

/** One call on a budget: a hook, a class (an index; one past the end is an undeclared name), a time. */
export interface BudgetEvent {
  readonly hook: (typeof HOOKS)[number];
  readonly classIndex: number;
  readonly timeMs: number;
}

/** What a fresh budget, with no traffic, is documented to do. */
export interface FreshBehaviour {
  /** `balance(0)`. */
  readonly balance: number;
  /**
   * Retries of the highest class admitted in a row at time 0 (counted up to 1000, so a budget
   * whose admissions cost nothing shows 1000), with a random source that always returns 0.
   */
  readonly retriesInARow: number;
}

/** How the suite builds and knows one budget. */
export interface BudgetCase {
  /** The budget's `name`. */
  readonly name: string;
  /** Class names the events use, highest first. */
  readonly classes: readonly string[];
  /** A fresh budget, drawing any randomness from `random`. */
  readonly make: (random: RandomSource) => RetryBudget;
  readonly fresh: FreshBehaviour;
}

/** Events whose times jump about (forwards and back), bursty enough to drain any budget. */
export function budgetEvents(classCount: number, maxLength = 300): fc.Arbitrary<BudgetEvent[]> {
  const event = fc.record({
    hook: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HOOKS) },
      { weight: 2, arbitrary: fc.constantFrom('acquireRetry' as const, 'attemptFailed' as const) },
    ),
    classIndex: fc.nat({ max: classCount }),
    step: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 2_000 }),
      fc.integer({ min: -20_000, max: 0 }),
      fc.integer({ min: 0, max: 200_000 }),
    ),
  });
  return fc.array(event, { maxLength, size: 'max' }).map((raw) => {
    let timeMs = 1_000_000;
    return raw.map(({ hook, classIndex, step }) => {
      timeMs += step;
      return { hook, classIndex, timeMs };
    });
  });
}

/**
 * Applies `events` to `budget`; returns what each answered (acquireRetry: its boolean,
 * balance: the number, other hooks: null).
 */
export function replay(
  budget: RetryBudget,
  classes: readonly string[],
  events: readonly BudgetEvent[],
): (boolean | number | null)[] {
  return events.map(({ hook, classIndex, timeMs }) => {
    const className = classes[classIndex] ?? 'undeclared-class';
    if (hook === 'balance') return budget.balance(timeMs);
    if (hook === 'acquireRetry') return budget.acquireRetry(className, timeMs);
    budget[hook](className, timeMs);
    return null;
  });
}

/** The events with every time replaced by the latest time so far: the clock never goes back. */
function forwardOnly(events: readonly BudgetEvent[]): BudgetEvent[] {
  let latest = Number.NEGATIVE_INFINITY;
  return events.map((event) => {
    latest = Math.max(latest, event.timeMs);
    return { ...event, timeMs: latest };
  });
}

const PROPERTY_RUNS = 300;

/**
 * The shared conformance suite of {@link RetryBudget} (hono's `common.case.test.ts` pattern): one
 * call per implementation, from `conformance.test.ts`.
 */
export function budgetConformance(label: string, budgetCase: BudgetCase): void {
  const { classes, make } = budgetCase;
  describe(`RetryBudget conformance: ${label}`, () => {
    it('names itself', () => {
      expect(make(seededRandom(1)).name).toBe(budgetCase.name);
    });

    it('a fresh budget with no traffic behaves as documented', () => {
      const budget = make(() => 0);
      expect(budget.balance(0)).toBeCloseTo(budgetCase.fresh.balance, 12);
      let admitted = 0;
      while (admitted < 1000 && budget.acquireRetry(classes[0] as string, 0)) admitted++;
      expect(admitted).toBe(budgetCase.fresh.retriesInARow);
    });

    it('balance is never negative nor NaN, and a refused retry leaves the balance as it was', () => {
      fc.assert(
        fc.property(budgetEvents(classes.length), fc.integer(), (events, seed) => {
          const budget = make(seededRandom(seed));
          for (const [step, { hook, classIndex, timeMs }] of events.entries()) {
            const className = classes[classIndex] ?? 'undeclared-class';
            if (hook === 'acquireRetry') {
              const before = budget.balance(timeMs);
              if (!budget.acquireRetry(className, timeMs) && budget.balance(timeMs) !== before) {
                expect.fail(`a refused retry changed the balance from ${before} at step ${step}`);
              }
            } else if (hook !== 'balance') {
              budget[hook](className, timeMs);
            }
            const balance = budget.balance(timeMs);
            if (!(Number.isFinite(balance) && balance >= 0)) {
              expect.fail(`balance ${balance} after step ${step}`);
            }
          }
        }),
        { numRuns: PROPERTY_RUNS },
      );
    });

    it('time only moves forward: an earlier time acts as the latest time seen', () => {
      fc.assert(
        fc.property(budgetEvents(classes.length), fc.integer(), (events, seed) => {
          const asGiven = replay(make(seededRandom(seed)), classes, events);
          const clamped = replay(make(seededRandom(seed)), classes, forwardOnly(events));
          expect(asGiven).toEqual(clamped);
        }),
        { numRuns: PROPERTY_RUNS },
      );
    });

    it('rejects a time that is not a finite number (RangeError naming nowMs)', () => {
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        const budget = make(seededRandom(1));
        const name = classes[0] as string;
        expect(() => budget.requestStarted(name, bad), String(bad)).toThrow(RangeError);
        expect(() => budget.acquireRetry(name, bad), String(bad)).toThrow(/nowMs/);
        expect(() => budget.balance(bad), String(bad)).toThrow(RangeError);
      }
    });

    it('is deterministic: the same events and random source give the same answers', () => {
      fc.assert(
        fc.property(budgetEvents(classes.length), fc.integer(), (events, seed) => {
          const first = replay(make(seededRandom(seed)), classes, events);
          const second = replay(make(seededRandom(seed)), classes, events);
          expect(first).toEqual(second);
        }),
        { numRuns: PROPERTY_RUNS },
      );
    });

    it('budgets are independent: one budget’s traffic does not change another’s', () => {
      fc.assert(
        fc.property(budgetEvents(classes.length, 100), fc.integer(), (events, seed) => {
          const alone = replay(make(seededRandom(seed)), classes, events);
          const noisy = make(seededRandom(seed ^ 1));
          const watched = make(seededRandom(seed));
          replay(noisy, classes, events);
          expect(replay(watched, classes, events)).toEqual(alone);
        }),
        { numRuns: 50 },
      );
    });
  });
}
