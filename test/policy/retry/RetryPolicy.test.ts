import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/model/random.js';
import { finagleBudget } from '../../../src/policy/budget/index.js';
import type { RetryBudget } from '../../../src/policy/budget/RetryBudget.js';
import type { AttemptOutcome, HeaderLookup } from '../../../src/policy/retry/AttemptOutcome.js';
import type { RetryContext, RetryPolicyOptions } from '../../../src/policy/retry/RetryPolicy.js';
import { retryPolicy } from '../../../src/policy/retry/RetryPolicy.js';

const CLASSES = { high: { retries: 5 }, mid: { retries: 2 }, low: { retries: 1 } } as const;
const CONSTANT = { kind: 'constant', delayMs: 123 } as const;
const NOW = 1_000_000;

/** A policy with a fixed clock, a seeded random and a constant 123 ms backoff unless overridden. */
function policyWith(options: Partial<RetryPolicyOptions> = {}) {
  return retryPolicy({
    classes: CLASSES,
    backoff: CONSTANT,
    clock: () => NOW,
    random: seededRandom(1),
    ...options,
  });
}

const headers =
  (values: Record<string, string>): HeaderLookup =>
  (name) =>
    values[name.toLowerCase()];
const status = (code: number, values: Record<string, string> = {}): AttemptOutcome => ({
  kind: 'status',
  status: code,
  header: headers(values),
});
const grpc = (code: number, values: Record<string, string> = {}): AttemptOutcome => ({
  kind: 'grpc',
  code,
  metadata: headers(values),
});
const decide = (
  policy: ReturnType<typeof policyWith>,
  outcome: AttemptOutcome,
  context: Partial<RetryContext> = {},
) => policy.decide({ className: 'high', retries: 0, outcome, ...context });

/** A budget that records its `acquireRetry` calls and answers `admit`. */
function spyBudget(admit: boolean): RetryBudget & { calls: [string, number][] } {
  const calls: [string, number][] = [];
  const ignore = () => {};
  return {
    name: 'spy',
    calls,
    requestStarted: ignore,
    requestFinished: ignore,
    attemptSucceeded: ignore,
    attemptFailed: ignore,
    retryFinished: ignore,
    balance: () => (admit ? 1 : 0),
    acquireRetry(className, nowMs) {
      calls.push([className, nowMs]);
      return admit;
    },
  };
}

const outcomes: fc.Arbitrary<AttemptOutcome> = fc.oneof(
  fc.constant({ kind: 'success' } as const),
  fc.record({
    kind: fc.constant('status' as const),
    status: fc.constantFrom(200, 404, 429, 500, 503),
    header: fc.constantFrom(undefined, headers({ 'retry-after': '0' })),
  }),
  fc.record({ kind: fc.constant('grpc' as const), code: fc.constantFrom(2, 8, 14) }),
  fc.record({
    kind: fc.constant('error' as const),
    code: fc.constantFrom(undefined, 'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND'),
  }),
  fc.constant({ kind: 'timeout' } as const),
);

describe('retryPolicy', () => {
  describe('retry limits', () => {
    it('never allows more than k_class retries for a call (property)', () => {
      fc.assert(
        fc.property(
          fc.dictionary(
            fc.constantFrom('gold', 'silver', 'bronze', 'tin'),
            fc.record({ retries: fc.integer({ min: 0, max: 6 }) }),
            { minKeys: 1 },
          ),
          fc.array(
            fc.record({
              className: fc.constantFrom('gold', 'silver', 'bronze', 'tin', 'GOLD', 'unknown', ''),
              outcomes: fc.array(outcomes, { minLength: 1, maxLength: 12, size: 'max' }),
            }),
            { maxLength: 30, size: 'max' },
          ),
          fc.boolean(),
          fc.integer(),
          (classes, calls, withBudget, seed) => {
            const policy = retryPolicy({
              classes,
              backoff: { kind: 'exponential', baseMs: 10, jitter: 'full' },
              clock: () => NOW,
              random: seededRandom(seed),
              budget: withBudget ? finagleBudget({ minRetriesPerSec: 1 }) : undefined,
            });
            for (const call of calls) {
              const limit = policy.retryLimit(call.className);
              expect(limit).toBe(classes[policy.classify(call.className)]?.retries);
              let retries = 0;
              for (let i = 0; ; i++) {
                const outcome = call.outcomes[i % call.outcomes.length] as AttemptOutcome;
                const decision = policy.decide({ className: call.className, retries, outcome });
                if (!decision.retry) break;
                retries++;
                expect(retries, JSON.stringify({ classes, call })).toBeLessThanOrEqual(limit);
              }
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it('stops at the class limit with reason limit', () => {
      const policy = policyWith();
      expect(decide(policy, status(503), { className: 'low', retries: 0 }).retry).toBe(true);
      expect(decide(policy, status(503), { className: 'low', retries: 1 })).toEqual({
        retry: false,
        reason: 'limit',
      });
      expect(decide(policy, status(503), { className: 'high', retries: 4 }).retry).toBe(true);
      expect(decide(policy, status(503), { className: 'high', retries: 5 })).toEqual({
        retry: false,
        reason: 'limit',
      });
    });
  });

  describe('classes', () => {
    it('unknown, empty or missing class names fall back to the default class (the lowest), never the highest', () => {
      const policy = policyWith();
      for (const value of ['platinum', '', '  ', undefined, null]) {
        expect(policy.classify(value), String(value)).toBe('low');
      }
      expect(policy.retryLimit('platinum')).toBe(1);
      expect(decide(policy, status(503), { className: 'platinum', retries: 1 })).toEqual({
        retry: false,
        reason: 'limit',
      });
      expect(policy.classify(' HIGH ')).toBe('high');
    });

    it('an explicit defaultClass is used for unknown names', () => {
      const policy = policyWith({ defaultClass: 'mid' });
      expect(policy.classify('platinum')).toBe('mid');
      expect(policy.retryLimit('platinum')).toBe(2);
    });

    // JavaScript orders integer-like keys first, so a class named '1' declared last would not be
    // last and the highest class would become every unknown request's fallback: refused.
    it('refuses a class named like an integer, naming it', () => {
      expect(() => retryPolicy({ classes: { gold: { retries: 5 }, '1': { retries: 0 } } })).toThrow(
        /class names should not be integers.*"1"/,
      );
    });

    it('per-class timeouts and backoffs override the policy’s', () => {
      const policy = policyWith({
        classes: {
          high: { retries: 3, timeoutMs: 50, backoff: { kind: 'constant', delayMs: 7 } },
          low: { retries: 1 },
        },
        timeoutMs: 200,
      });
      expect(policy.timeoutMs('high')).toBe(50);
      expect(policy.timeoutMs('low')).toBe(200);
      expect(policy.timeoutMs('unknown')).toBe(200);
      expect(policy.backoff('high').delayMs(1)).toBe(7);
      expect(policy.backoff('low').delayMs(1)).toBe(123);
      expect(policyWith().timeoutMs('high')).toBeUndefined();
    });
  });

  describe('what is retried', () => {
    it('retries 503, 429, ECONNREFUSED, ECONNRESET, EPIPE, UND_ERR_SOCKET, gRPC 14 and 8, and timeouts', () => {
      const policy = policyWith();
      const retryable: AttemptOutcome[] = [
        status(503),
        status(429),
        { kind: 'error', code: 'ECONNREFUSED' },
        { kind: 'error', code: 'ECONNRESET' },
        { kind: 'error', code: 'EPIPE' },
        { kind: 'error', code: 'UND_ERR_SOCKET' },
        grpc(14),
        grpc(8),
        { kind: 'timeout' },
      ];
      for (const outcome of retryable) {
        expect(policy.isRetryable(outcome), JSON.stringify(outcome)).toBe(true);
        expect(decide(policy, outcome), JSON.stringify(outcome)).toEqual({
          retry: true,
          delayMs: 123,
          fromServer: false,
        });
      }
    });

    it('does not retry 500, 404, other codes, unknown errors or a success', () => {
      const policy = policyWith();
      const final: AttemptOutcome[] = [
        status(500),
        status(404),
        status(502),
        status(200),
        grpc(2),
        grpc(4),
        { kind: 'error', code: 'ENOTFOUND' },
        { kind: 'error' },
      ];
      for (const outcome of final) {
        expect(policy.isRetryable(outcome), JSON.stringify(outcome)).toBe(false);
        expect(decide(policy, outcome), JSON.stringify(outcome)).toEqual({
          retry: false,
          reason: 'not-retryable',
        });
      }
      expect(decide(policy, { kind: 'success' })).toEqual({ retry: false, reason: 'success' });
    });

    it('follows retryOn when given', () => {
      const policy = policyWith({
        retryOn: { statuses: [500], errorCodes: ['ENOTFOUND'], grpcCodes: [2], timeouts: false },
      });
      expect(policy.isRetryable(status(500))).toBe(true);
      expect(policy.isRetryable(status(503))).toBe(false);
      expect(policy.isRetryable({ kind: 'error', code: 'ENOTFOUND' })).toBe(true);
      expect(policy.isRetryable({ kind: 'error', code: 'ECONNREFUSED' })).toBe(false);
      expect(policy.isRetryable(grpc(2))).toBe(true);
      expect(policy.isRetryable(grpc(14))).toBe(false);
      expect(policy.isRetryable({ kind: 'timeout' })).toBe(false);
    });

    it('does not retry POST (or PATCH) by default; retries it when methods includes it', () => {
      const policy = policyWith();
      for (const method of ['POST', 'post', 'PATCH']) {
        expect(decide(policy, status(503), { method }), method).toEqual({
          retry: false,
          reason: 'non-idempotent',
        });
      }
      for (const method of ['GET', 'get', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']) {
        expect(decide(policy, status(503), { method }).retry, method).toBe(true);
      }
      expect(decide(policy, status(503)).retry).toBe(true); // no method: gRPC, a function
      const withPost = policyWith({ methods: ['get', 'post'] });
      expect(decide(withPost, status(503), { method: 'POST' }).retry).toBe(true);
      expect(decide(withPost, status(503), { method: 'PUT' })).toEqual({
        retry: false,
        reason: 'non-idempotent',
      });
    });
  });

  describe('server pushback', () => {
    it('Retry-After: 1 waits 1000 ms, from the server', () => {
      expect(decide(policyWith(), status(503, { 'retry-after': '1' }))).toEqual({
        retry: true,
        delayMs: 1000,
        fromServer: true,
      });
    });

    it('Retry-After as an HTTP date waits the difference from the policy’s clock (0 if past)', () => {
      const at = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
      const policy = policyWith({ clock: () => at - 4_500 });
      expect(
        decide(policy, status(429, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' })),
      ).toEqual({ retry: true, delayMs: 4_500, fromServer: true });
      const later = policyWith({ clock: () => at + 10_000 });
      expect(
        decide(later, status(429, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' })),
      ).toEqual({ retry: true, delayMs: 0, fromServer: true });
    });

    it('a malformed Retry-After falls back to the backoff', () => {
      for (const value of ['soon', '1.5', '-1', '', 'Wed, 99 Foo 2026', '5 minutes']) {
        expect(decide(policyWith(), status(503, { 'retry-after': value })), value).toEqual({
          retry: true,
          delayMs: 123,
          fromServer: false,
        });
      }
    });

    it('grpc-retry-pushback-ms: 250 waits 250 ms; -1 or garbage gives up (pushback)', () => {
      expect(decide(policyWith(), grpc(14, { 'grpc-retry-pushback-ms': '250' }))).toEqual({
        retry: true,
        delayMs: 250,
        fromServer: true,
      });
      for (const value of ['-1', 'soon', '1.5']) {
        expect(decide(policyWith(), grpc(14, { 'grpc-retry-pushback-ms': value })), value).toEqual({
          retry: false,
          reason: 'pushback',
        });
      }
    });

    it('gives up (pushback) when the server asks for more than maxPushbackMs', () => {
      expect(decide(policyWith(), status(503, { 'retry-after': '60' })).retry).toBe(true);
      expect(decide(policyWith(), status(503, { 'retry-after': '61' }))).toEqual({
        retry: false,
        reason: 'pushback',
      });
      const strict = policyWith({ maxPushbackMs: 200 });
      expect(decide(strict, grpc(14, { 'grpc-retry-pushback-ms': '201' }))).toEqual({
        retry: false,
        reason: 'pushback',
      });
      expect(decide(strict, grpc(14, { 'grpc-retry-pushback-ms': '200' })).retry).toBe(true);
    });

    it('ignores pushback when respectPushback is false', () => {
      const policy = policyWith({ respectPushback: false });
      expect(decide(policy, status(503, { 'retry-after': '600' }))).toEqual({
        retry: true,
        delayMs: 123,
        fromServer: false,
      });
      expect(decide(policy, grpc(14, { 'grpc-retry-pushback-ms': '-1' })).retry).toBe(true);
    });
  });

  describe('deadline and budget', () => {
    it('gives up (deadline) when now + delay ≥ deadline', () => {
      const policy = policyWith();
      expect(decide(policy, status(503), { deadlineMs: NOW + 123 })).toEqual({
        retry: false,
        reason: 'deadline',
      });
      expect(decide(policy, status(503), { deadlineMs: NOW + 124 }).retry).toBe(true);
      expect(
        decide(policy, status(503, { 'retry-after': '2' }), { deadlineMs: NOW + 1_999 }),
      ).toEqual({ retry: false, reason: 'deadline' });
    });

    it('gives up (budget) when the budget refuses, asking it with the resolved class and the clock', () => {
      const budget = spyBudget(false);
      const policy = policyWith({ budget });
      expect(decide(policy, status(503), { className: 'platinum' })).toEqual({
        retry: false,
        reason: 'budget',
      });
      expect(budget.calls).toEqual([['low', NOW]]);
    });

    it('asks the budget last: not for successes, final outcomes, limits, pushback or deadlines', () => {
      const budget = spyBudget(true);
      const policy = policyWith({ budget });
      decide(policy, { kind: 'success' });
      decide(policy, status(500));
      decide(policy, status(503), { method: 'POST' });
      decide(policy, status(503), { className: 'low', retries: 1 });
      decide(policy, grpc(14, { 'grpc-retry-pushback-ms': '-1' }));
      decide(policy, status(503), { deadlineMs: NOW });
      expect(budget.calls).toEqual([]);
      expect(decide(policy, status(503)).retry).toBe(true);
      expect(budget.calls).toEqual([['high', NOW]]);
    });
  });

  describe('determinism', () => {
    it('the same clock and random give the same decisions', () => {
      const run = (seed: number) => {
        const policy = policyWith({
          backoff: { kind: 'exponential', baseMs: 50, maxMs: 5_000, jitter: 'decorrelated' },
          random: seededRandom(seed),
        });
        let previousDelayMs: number | undefined;
        const delays: number[] = [];
        for (let retries = 0; retries < 5; retries++) {
          const d = decide(policy, status(503), { retries, previousDelayMs });
          if (!d.retry) throw new Error('expected a retry');
          delays.push(d.delayMs);
          previousDelayMs = d.delayMs;
        }
        return delays;
      };
      expect(run(7)).toEqual(run(7));
      expect(run(7)).not.toEqual(run(8));
    });
  });

  describe('options', () => {
    it('rejects bad options, naming them', () => {
      expect(() => retryPolicy({ classes: {} })).toThrow(RangeError);
      expect(() => retryPolicy({ classes: CLASSES, defaultClass: 'gold' })).toThrow(/defaultClass/);
      expect(() => retryPolicy({ classes: CLASSES, header: 'x priority' })).toThrow(TypeError);
      expect(() => retryPolicy({ classes: CLASSES, timeoutMs: 0 })).toThrow(/timeoutMs/);
      expect(() => retryPolicy({ classes: CLASSES, maxPushbackMs: -1 })).toThrow(/maxPushbackMs/);
      expect(() =>
        retryPolicy({ classes: CLASSES, backoff: { kind: 'exponential', baseMs: 0 } }),
      ).toThrow(/baseMs/);
    });

    it('lower-cases the class header (default x-priority)', () => {
      expect(policyWith().header).toBe('x-priority');
      expect(policyWith({ header: 'X-Class' }).header).toBe('x-class');
    });
  });
});
