import { describe, expect, it } from 'vitest';
import type { RetryBudget } from '../../../src/policy/budget/index.js';
import { retryPolicy } from '../../../src/policy/retry/RetryPolicy.js';
import { replicateNetwork } from '../../../src/sim/network/replicateNetwork.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';
import { oneService } from './fixtures.js';

const RUN = { duration: 40, seed: 3 } as const;

describe('simulateNetwork strategies', () => {
  it('uniform equals difftry when every class has the same limit', () => {
    const model = oneService([3, 3]);
    const difftry = simulateNetwork(model, RUN);
    const uniform = simulateNetwork(model, { ...RUN, strategy: 'uniform' });
    expect(difftry.strategy).toBe('difftry');
    expect(uniform.strategy).toBe('uniform');
    expect({ ...uniform, strategy: 'difftry' }).toEqual(difftry);
  });

  it('uniform gives every class the highest class’s limit', () => {
    const uniform = simulateNetwork(oneService([5, 1]), { ...RUN, strategy: 'uniform' });
    const same = simulateNetwork(oneService([5, 5]), RUN);
    expect(uniform.endToEnd).toEqual(same.endToEnd);
  });

  it.each(['budget-finagle', 'budget-grpc'] as const)(
    '%s cuts attempts per request under heavy overload',
    (strategy) => {
      const model = oneService([5, 1]);
      const uniform = simulateNetwork(model, { ...RUN, strategy: 'uniform' });
      const budget = simulateNetwork(model, { ...RUN, strategy });
      expect(budget.load.attemptsPerRequest).toBeLessThan(0.8 * uniform.load.attemptsPerRequest);
      expect(budget.load.attemptsPerRequest).toBeGreaterThanOrEqual(1);
    },
  );

  it('class-budget rejects the high class less than budget-finagle does', () => {
    const model = oneService([5, 1]);
    const plain = simulateNetwork(model, { ...RUN, strategy: 'budget-finagle' });
    const classAware = simulateNetwork(model, { ...RUN, strategy: 'class-budget' });
    expect(classAware.endToEnd.high?.rejection).toBeLessThan(
      plain.endToEnd.high?.rejection as number,
    );
  });

  it('reports positive latency percentiles with p99 ≥ p50, and the load', () => {
    const result = replicateNetwork(oneService([5, 1]), { duration: 10, seed: 1 }, 2);
    for (const e of Object.values(result.endToEnd)) {
      expect(e.latencyP50).toBeGreaterThan(0);
      expect(e.latencyP99).toBeGreaterThanOrEqual(e.latencyP50);
      expect(e.latencyMean).toBeGreaterThan(0);
      expect(e.attemptsPerRequest).toBeGreaterThanOrEqual(1);
      expect(Number.isFinite(e.latencyP99Ci95)).toBe(true);
    }
    expect(result.load.attemptsPerSuccess).toBeGreaterThan(result.load.attemptsPerRequest);
    expect(result.strategy).toBe('difftry');
  });

  it.each(['budget-envoy', 'budget-finagle', 'class-budget'] as const)(
    '%s: the simulator calls the budget hooks as the runtime does',
    (strategy) => {
      const counts = { started: 0, finished: 0, admitted: 0, retryFinished: 0 };
      let minimum = 0;
      let lowest = Number.POSITIVE_INFINITY;
      const watch = (inner: RetryBudget): RetryBudget => {
        const check = (nowMs: number): void => {
          lowest = Math.min(lowest, inner.balance(nowMs));
          minimum = Math.min(minimum, counts.admitted - counts.retryFinished);
          minimum = Math.min(minimum, counts.started - counts.finished);
        };
        return {
          name: inner.name,
          requestStarted(c, t) {
            counts.started++;
            inner.requestStarted(c, t);
            check(t);
          },
          requestFinished(c, t) {
            counts.finished++;
            inner.requestFinished(c, t);
            check(t);
          },
          attemptSucceeded: (c, t) => inner.attemptSucceeded(c, t),
          attemptFailed: (c, t) => inner.attemptFailed(c, t),
          acquireRetry(c, t) {
            const ok = inner.acquireRetry(c, t);
            if (ok) counts.admitted++;
            check(t);
            return ok;
          },
          retryFinished(c, t) {
            counts.retryFinished++;
            inner.retryFinished(c, t);
            check(t);
          },
          balance: (t) => inner.balance(t),
        };
      };
      simulateNetwork(oneService([5, 1]), {
        duration: 10,
        seed: 5,
        strategy,
        retryPolicy: (_service, options) => {
          expect(options.budget).toBeDefined();
          return retryPolicy({ ...options, budget: watch(options.budget as RetryBudget) });
        },
      });
      expect(counts.admitted).toBeGreaterThan(0);
      expect(minimum).toBe(0);
      expect(lowest).toBeGreaterThanOrEqual(0);
      // Every admitted retry is given back once its attempt ends; at the end only the requests
      // still in flight (arrived after the window) may hold one each.
      const inFlight = counts.started - counts.finished;
      expect(counts.admitted - counts.retryFinished).toBeLessThanOrEqual(inFlight);
      if (inFlight === 0) expect(counts.retryFinished).toBe(counts.admitted);
    },
  );

  it('rejects an unknown strategy', () => {
    expect(() =>
      simulateNetwork(oneService([5, 1]), { ...RUN, strategy: 'nope' as 'uniform' }),
    ).toThrow(/strategy/);
  });
});
