import { describe, expect, it } from 'vitest';
import {
  createTimeoutStrategy,
  type TimeoutOptimizer,
  type TimeoutStrategyDescription,
} from '../../../src/policy/timeouts/index.js';

describe('createTimeoutStrategy', () => {
  it('builds each kind with its options', () => {
    expect(createTimeoutStrategy({ kind: 'fixed', timeoutMs: 250 }).next(3)).toBe(250);
    expect(
      createTimeoutStrategy({ kind: 'exponential-backoff', startingLatencyMs: 40 }).next(1),
    ).toBe(96);
    expect(createTimeoutStrategy({ kind: 'controller', initialMs: 70 }).next(1)).toBe(140);
    expect(createTimeoutStrategy({ kind: 'rto', initialMs: 300 }).next(2)).toBe(1200);
    expect(createTimeoutStrategy({ kind: 'optimizer', initialMs: 42 }).next(0)).toBe(42);
    expect(createTimeoutStrategy({ kind: 'combined', diagnosticTimeoutMs: 9000 }).next(0)).toBe(
      9000,
    );
  });

  it('turns a cost description into the linear cost and passes the environment', () => {
    const seen: unknown[] = [];
    let nowMs = 0;
    const optimize: TimeoutOptimizer = (_samples, request) => {
      seen.push(request.cost?.g(2), request.cost?.dg(2));
      return { sequence: [0.05] };
    };
    const optimizer = createTimeoutStrategy(
      { kind: 'optimizer', recomputeEvery: 1, cost: { c0: 0.5, c1: 0.25 } },
      { optimize, clock: () => (nowMs += 3) },
    );
    optimizer.observe('success', 10);
    expect(seen).toEqual([1, 0.25]);
    expect(optimizer.next(0)).toBe(50);
    expect((optimizer as unknown as { recomputeTimeMs: number }).recomputeTimeMs).toBe(3);
    const combined = createTimeoutStrategy(
      { kind: 'combined', diagnosticEvery: 1, optimizer: { recomputeEvery: 1, cost: { c1: 1 } } },
      { optimize },
    );
    combined.observe('success', 10);
    expect(seen.slice(2)).toEqual([2, 1]);
  });

  it('names an unknown kind or option, nested ones included', () => {
    const bad = (description: unknown) => () =>
      createTimeoutStrategy(description as TimeoutStrategyDescription);
    expect(bad({ kind: 'adaptive' })).toThrow(/kind should be one of fixed, exponential-backoff/);
    expect(bad(null)).toThrow(TypeError);
    expect(bad({ kind: 'rto', intialMs: 5 })).toThrow(
      /a timeout strategy of kind rto has no option "intialMs"/,
    );
    expect(bad({ kind: 'combined', controller: { gamma: 2 } })).toThrow(
      /a combined controller has no option "gamma"/,
    );
    expect(bad({ kind: 'combined', optimizer: { tzMs: 2 } })).toThrow(
      /a combined optimizer has no option "tzMs"/,
    );
    expect(bad({ kind: 'optimizer', cost: { c2: 1 } })).toThrow(/cost has no option "c2"/);
    expect(bad({ kind: 'optimizer', clock: () => 0 })).toThrow(/no option "clock"/);
    expect(bad({ kind: 'controller', beta: 0.5 })).toThrow(/beta/);
    expect(bad({ kind: 'fixed' })).toThrow(/timeoutMs/);
  });
});
