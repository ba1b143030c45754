import { describe, expect, it } from 'vitest';
import type { NetworkModel } from '../../../src/model/index.js';
import {
  type RetryContext,
  type RetryDecision,
  retryPolicy,
} from '../../../src/policy/retry/RetryPolicy.js';
import {
  fixedTimeout,
  type TimeoutObservation,
  type TimeoutStrategy,
} from '../../../src/policy/timeouts/TimeoutStrategy.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';

const oneClass = [{ name: 'only', retryLimit: 0 }] as const;

/** An M/M/1 queue with room enough that nothing is ever refused: λ = 50, μ = 100. */
const mm1: NetworkModel = {
  classes: oneClass,
  services: [
    {
      name: 'server',
      capacity: 100,
      queue: 400,
      model: 'mm1m',
      arrivals: [50],
      retryLimits: [0],
      routes: [],
    },
  ],
};

/** A fast service `a` (μ = 10,000) that calls a slow one `b` (μ = 100) once, λ = 50. */
const chain: NetworkModel = {
  mode: 'calls',
  classes: oneClass,
  services: [
    {
      name: 'a',
      capacity: 10_000,
      queue: 400,
      model: 'mm1m',
      arrivals: [50],
      retryLimits: [0],
      routes: [],
      calls: [{ to: 1, n: 1 }],
    },
    {
      name: 'b',
      capacity: 100,
      queue: 400,
      model: 'mm1m',
      arrivals: [0],
      retryLimits: [0],
      routes: [],
    },
  ],
};

/** A timeout strategy that records what it is told. */
function watched(timeoutMs: number): TimeoutStrategy & {
  readonly seen: { outcome: TimeoutObservation; latencyMs: number }[];
} {
  const inner = fixedTimeout(timeoutMs);
  const seen: { outcome: TimeoutObservation; latencyMs: number }[] = [];
  return {
    seen,
    next: (attempt) => inner.next(attempt),
    observe: (outcome, latencyMs) => {
      seen.push({ outcome, latencyMs });
    },
  };
}

describe('simulateNetwork per-try timeouts', () => {
  it('abandons attempts at the timeout: P(W > T) = e^{−(μ−λ)T} in an M/M/1 queue', () => {
    const strategy = watched(20);
    const result = simulateNetwork(mm1, {
      duration: 2_000,
      warmup: 50,
      seed: 21,
      timeouts: () => strategy,
    });
    const e = result.endToEnd.only;
    // FCFS M/M/1 sojourn time is exponential with rate μ − λ = 50/s; T = 20 ms ⇒ e^{−1}.
    expect(e?.rejection).toBeCloseTo(Math.exp(-1), 2);
    expect(Math.abs((e?.rejection ?? 0) - Math.exp(-1))).toBeLessThan(0.01);
    // The abandoned attempts are the rejected requests (k = 0), and the server still did them.
    const server = result.services.server?.classes.only;
    expect((server?.timeouts ?? 0) * result.duration).toBe(e?.rejected);
    expect(result.services.server?.rho).toBeCloseTo(0.5, 1);
    // The strategy saw successes below T and timeouts at exactly T.
    const timeouts = strategy.seen.filter((s) => s.outcome === 'timeout');
    const successes = strategy.seen.filter((s) => s.outcome === 'success');
    expect(timeouts.length).toBeGreaterThan(1000);
    expect(timeouts.every((s) => Math.abs(s.latencyMs - 20) < 1e-9)).toBe(true);
    expect(successes.every((s) => s.latencyMs < 20)).toBe(true);
  });

  it('a class timeout in the policy applies when no strategy is given', () => {
    const withClassTimeout = simulateNetwork(mm1, {
      duration: 500,
      seed: 5,
      retryPolicy: (_i, options) =>
        retryPolicy({ ...options, classes: { only: { retries: 0, timeoutMs: 20 } } }),
    });
    const withStrategy = simulateNetwork(mm1, {
      duration: 500,
      seed: 5,
      timeouts: () => fixedTimeout(20),
    });
    expect(withClassTimeout.endToEnd).toEqual(withStrategy.endToEnd);
  });

  it('times out whole subtrees in call-graph mode and frees the abandoned work', () => {
    const result = simulateNetwork(chain, {
      duration: 2_000,
      warmup: 50,
      seed: 8,
      timeouts: (service) => (service === 0 ? fixedTimeout(20) : undefined),
    });
    const e = result.endToEnd.only;
    expect(e?.completed).toBeDefined();
    expect((e?.completed ?? 0) + (e?.rejected ?? 0)).toBe(e?.originals);
    // Tandem M/M/1 sojourns are independent exponentials (rates 9,950 and 50 per second):
    // P(W_a + W_b > T) = (r1 e^{−r2 T} − r2 e^{−r1 T}) / (r1 − r2).
    const r1 = 9_950;
    const r2 = 50;
    const t = 0.02;
    const exact = (r1 * Math.exp(-r2 * t) - r2 * Math.exp(-r1 * t)) / (r1 - r2);
    expect(Math.abs((e?.rejection ?? 0) - exact)).toBeLessThan(0.01);
    // Abandoned attempts still made their calls: b received every call (no retries, k = 0).
    expect(result.services.b?.classes.only?.in).toBeCloseTo(50, 0);
    expect(result.services.b?.classes.only?.rejection).toBe(0);
  });

  it('retries a timed-out attempt on a timeout outcome; abandoned work still loads the server', () => {
    const contexts: RetryContext[] = [];
    const result = simulateNetwork(mm1, {
      duration: 200,
      seed: 2,
      timeouts: () => fixedTimeout(20),
      retryPolicy: (_i, options) => {
        const policy = retryPolicy({
          ...options,
          classes: { only: { retries: 1, backoff: { kind: 'constant', delayMs: 5 } } },
        });
        return {
          ...policy,
          decide: (context: RetryContext): RetryDecision => {
            contexts.push(context);
            return policy.decide(context);
          },
        };
      },
    });
    const timeouts = contexts.filter((c) => c.outcome.kind === 'timeout');
    expect(timeouts.length).toBeGreaterThan(1000);
    expect(timeouts.some((c) => c.retries === 1)).toBe(true);
    // The metastable failure timeouts invite: at ρ = 0.5 the first timeouts (37 %) add retries
    // while the server still does the abandoned attempts, the queue grows, more attempts time
    // out, until every request makes both attempts (ρ = 2λ/μ = 1) and almost none gets through.
    expect(result.load.attemptsPerRequest).toBeGreaterThan(1.95);
    expect(result.services.server?.rho).toBeGreaterThan(0.95);
    expect(result.endToEnd.only?.rejection).toBeGreaterThan(0.9);
  });
});

describe('simulateNetwork per-class backoffs, internal calls, progress', () => {
  it('each class retries with its own backoff', () => {
    const twoClasses: NetworkModel = {
      classes: [
        { name: 'high', retryLimit: 3 },
        { name: 'low', retryLimit: 3 },
      ],
      services: [
        {
          name: 'tiny',
          capacity: 10,
          queue: 2,
          model: 'mm1m',
          arrivals: [10, 10],
          retryLimits: [3, 3],
          routes: [],
        },
      ],
    };
    const delays: Record<string, Set<number>> = { high: new Set(), low: new Set() };
    simulateNetwork(twoClasses, {
      duration: 50,
      seed: 4,
      classBackoffs: [
        { kind: 'constant', delayMs: 10 },
        { kind: 'constant', delayMs: 500 },
      ],
      retryPolicy: (_i, options) => {
        const policy = retryPolicy(options);
        return {
          ...policy,
          decide: (context: RetryContext): RetryDecision => {
            const decision = policy.decide(context);
            if (decision.retry) delays[context.className]?.add(decision.delayMs);
            return decision;
          },
        };
      },
    });
    expect([...(delays.high ?? [])]).toEqual([10]);
    expect([...(delays.low ?? [])]).toEqual([500]);
  });

  it('counts internal calls per request: a chain a → b calls b once per request', () => {
    const result = simulateNetwork(chain, { duration: 100, seed: 3 });
    expect(result.load.internalPerRequest).toBe(1);
    expect(result.load.attemptsPerRequest).toBe(2);
    expect(result.load.internalPerSuccess).toBe(1);
    const routing: NetworkModel = {
      classes: oneClass,
      services: [
        {
          ...(chain.services[0] as NetworkModel['services'][number]),
          calls: [],
          routes: [{ to: 1, p: 0.5 }],
        },
        chain.services[1] as NetworkModel['services'][number],
      ],
    };
    const routed = simulateNetwork(routing, { duration: 400, seed: 3 });
    expect(routed.load.internalPerRequest).toBeCloseTo(0.5, 1);
    expect(routed.load.attemptsPerRequest - routed.load.internalPerRequest).toBe(1);
  });

  it('reports progress as a non-decreasing fraction up to 1', () => {
    const fractions: number[] = [];
    simulateNetwork(mm1, {
      duration: 3_000,
      seed: 1,
      onProgress: (fraction) => fractions.push(fraction),
    });
    expect(fractions.length).toBeGreaterThan(2);
    expect(
      fractions.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= (fractions[i - 1] ?? 0))),
    ).toBe(true);
  });
});
