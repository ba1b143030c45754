import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/model/random.js';
import { type BudgetDescription, createBudget } from '../../../src/policy/budget/index.js';

describe('createBudget', () => {
  it('builds each kind from its plain description', () => {
    const descriptions: BudgetDescription[] = [
      { kind: 'finagle', percentCanRetry: 0.1 },
      { kind: 'grpc', maxTokens: 4 },
      { kind: 'envoy', budgetPercent: 50 },
      { kind: 'sre', k: 1.5 },
      { kind: 'class-aware', classes: ['high', 'low'], reserveShare: 0.25 },
    ];
    const built = descriptions.map((d) => createBudget(d, seededRandom(1)));
    expect(built.map((b) => b.name)).toEqual(['finagle', 'grpc', 'envoy', 'sre', 'class-aware']);
    expect(built.map((b) => b.balance(0))).toEqual([100, 4, 3, 1, 100]);
  });

  it('passes the options through (a finagle budget without reserve starts empty)', () => {
    const budget = createBudget({ kind: 'finagle', minRetriesPerSec: 0 });
    expect(budget.acquireRetry('any', 0)).toBe(false);
  });

  it('rejects an unknown kind, an unknown option and an sre without random', () => {
    expect(() => createBudget({ kind: 'hystrix' } as never)).toThrow(
      /budget kind should be one of finagle, grpc, envoy, sre, class-aware, got "hystrix"/,
    );
    expect(() => createBudget({ kind: 'finagle', ttl: 5 } as never)).toThrow(
      /a finagle budget has no option "ttl" \(expected ttlMs/,
    );
    expect(() => createBudget({ kind: 'sre' })).toThrow(/needs a random source/);
    expect(() => createBudget(null as never)).toThrow(TypeError);
  });

  it('lets the factories reject bad values', () => {
    expect(() => createBudget({ kind: 'envoy', budgetPercent: 120 })).toThrow(RangeError);
    expect(() => createBudget({ kind: 'class-aware', classes: [] })).toThrow(RangeError);
  });
});
