import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/model/random.js';
import type { RetryBudget } from '../../../src/policy/budget/RetryBudget.js';
import type { AttemptOutcome } from '../../../src/policy/retry/AttemptOutcome.js';
import {
  type CallSettings,
  CallTracker,
  DEADLINE_SPENT,
  NO_TIMEOUT,
  SUCCEEDED,
} from '../../../src/policy/retry/CallTracker.js';
import type { RetryEvent, RetryEventKind } from '../../../src/policy/retry/RetryEvent.js';
import {
  type RetryContext,
  type RetryPolicy,
  type RetryPolicyOptions,
  retryPolicy,
} from '../../../src/policy/retry/RetryPolicy.js';
import type { TimeoutObservation } from '../../../src/policy/timeouts/TimeoutStrategy.js';

// The engine alone, on a hand-driven clock: what each step tells the budget, the timeout strategy
// and the event sink, and what it answers. The executors' agreement with it is the conformance
// suite's (test/policy/retry/conformance).

const UNAVAILABLE: AttemptOutcome = { kind: 'status', status: 503 };
const SUCCESS: AttemptOutcome = { kind: 'success' };
const TIMEOUT: AttemptOutcome = { kind: 'timeout' };
const retryAfter = (value: string): AttemptOutcome => ({
  kind: 'status',
  status: 503,
  header: (name) => (name === 'retry-after' ? value : undefined),
});

/** A clock the test moves, a budget that logs every hook, events and decide() contexts logged. */
function harness(options: Partial<RetryPolicyOptions> = {}, admit = true) {
  let now = 1_000;
  const log: string[] = [];
  const budget: RetryBudget = {
    name: 'log',
    requestStarted: (c, t) => log.push(`requestStarted ${c} ${t}`),
    requestFinished: (c, t) => log.push(`requestFinished ${c} ${t}`),
    attemptSucceeded: (c, t) => log.push(`attemptSucceeded ${c} ${t}`),
    attemptFailed: (c, t) => log.push(`attemptFailed ${c} ${t}`),
    acquireRetry: (c, t) => {
      log.push(`acquireRetry ${c} ${t}`);
      return admit;
    },
    retryFinished: (c, t) => log.push(`retryFinished ${c} ${t}`),
    balance: () => 0,
  };
  const inner = retryPolicy({
    classes: { high: { retries: 2 }, low: { retries: 0 } },
    backoff: { kind: 'constant', delayMs: 10 },
    clock: () => now,
    random: seededRandom(1),
    budget,
    ...options,
  });
  const asked: RetryContext[] = [];
  const policy: RetryPolicy = {
    ...inner,
    decide: (context) => {
      asked.push({ ...context });
      return inner.decide(context);
    },
  };
  const events: [RetryEventKind, RetryEvent][] = [];
  const sink = {
    wants: () => true,
    emit: (k: RetryEventKind, e: RetryEvent) => events.push([k, e]),
  };
  const observed: [TimeoutObservation, number][] = [];
  const strategy = {
    next: (attempt: number) => 100 + attempt,
    observe: (o: TimeoutObservation, ms: number) => observed.push([o, ms]),
  };
  const tracker = new CallTracker();
  const begin = (settings: CallSettings = {}, className = 'high') =>
    tracker.begin(policy, className, { events: sink, ...settings });
  return {
    tracker,
    begin,
    log,
    events,
    asked,
    observed,
    strategy,
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}

const kinds = (events: [RetryEventKind, RetryEvent][]) =>
  events.map(([kind, e]) => [kind, e.attempts, e.delayMs ?? e.reason ?? e.outcome.kind]);

describe('CallTracker', () => {
  it('reports a call that succeeds first time to the budget and the sink, and ends it', () => {
    const h = harness();
    h.begin();
    expect(h.tracker.open).toBe(true);
    expect(h.tracker.startAttempt()).toBe(NO_TIMEOUT);
    h.advance(7);
    expect(h.tracker.attemptEnded(SUCCESS)).toBe(SUCCEEDED);
    expect(h.tracker.open).toBe(false);
    expect(h.log).toEqual([
      'requestStarted high 1000',
      'attemptSucceeded high 1007',
      'requestFinished high 1007',
    ]);
    expect(kinds(h.events)).toEqual([['success', 1, 'success']]);
    h.tracker.abandon(); // a no-op once ended
    expect(h.log).toHaveLength(3);
  });

  it('retries to the class limit, holding each admitted retry until its attempt ends', () => {
    const h = harness();
    h.begin();
    const decisions = [0, 1, 2].map(() => {
      h.tracker.startAttempt();
      h.advance(1);
      return h.tracker.attemptEnded(UNAVAILABLE);
    });
    expect(decisions).toEqual([
      { retry: true, delayMs: 10, fromServer: false },
      { retry: true, delayMs: 10, fromServer: false },
      { retry: false, reason: 'limit' },
    ]);
    expect(h.log).toEqual([
      'requestStarted high 1000',
      'attemptFailed high 1001',
      'acquireRetry high 1001',
      'retryFinished high 1002',
      'attemptFailed high 1002',
      'acquireRetry high 1002',
      'retryFinished high 1003',
      'attemptFailed high 1003',
      'requestFinished high 1003',
    ]);
    expect(kinds(h.events)).toEqual([
      ['failure', 1, 'status'],
      ['retry', 1, 10],
      ['failure', 2, 'status'],
      ['retry', 2, 10],
      ['failure', 3, 'status'],
      ['giveUp', 3, 'limit'],
    ]);
    expect(h.asked.map((c) => c.retries)).toEqual([0, 1, 2]);
  });

  it('gives up on the budget, and tells it of failures only the policy would retry', () => {
    const refused = harness({}, false);
    refused.begin();
    refused.tracker.startAttempt();
    expect(refused.tracker.attemptEnded(UNAVAILABLE)).toEqual({ retry: false, reason: 'budget' });
    const notRetryable = harness();
    notRetryable.begin();
    notRetryable.tracker.startAttempt();
    expect(notRetryable.tracker.attemptEnded({ kind: 'status', status: 404 })).toEqual({
      retry: false,
      reason: 'not-retryable',
    });
    expect(notRetryable.log).toEqual(['requestStarted high 1000', 'requestFinished high 1000']);
  });

  it("cuts an attempt's timeout to the deadline and observes only the strategy's own timeouts", () => {
    const h = harness();
    h.begin({ deadlineMs: 1_150, timeout: h.strategy });
    expect(h.tracker.startAttempt()).toBe(100); // the strategy's: 150 ms are left
    h.advance(100);
    expect(h.tracker.attemptEnded(TIMEOUT).retry).toBe(true);
    h.advance(10);
    expect(h.tracker.startAttempt()).toBe(40); // the deadline's rest, below the strategy's 101
    h.advance(40);
    expect(h.tracker.attemptEnded(TIMEOUT)).toEqual({ retry: false, reason: 'deadline' });
    expect(h.observed).toEqual([['timeout', 100]]);
  });

  it('ends the call when an attempt cut to the deadline times out, though its timer fired early', () => {
    const h = harness();
    h.begin({ deadlineMs: 1_060 });
    expect(h.tracker.startAttempt()).toBe(60); // the deadline's rest: no strategy of its own
    // The timer runs on the event loop's cached time: under load it fires short of the deadline,
    // here by 15 ms, more than the 10 ms backoff.
    h.advance(45);
    expect(h.tracker.attemptEnded(TIMEOUT)).toEqual({ retry: false, reason: 'deadline' });
    expect(h.tracker.open).toBe(false);
    expect(kinds(h.events).at(-1)).toEqual(['giveUp', 1, 'deadline']);
    expect(h.asked).toEqual([]); // the policy is not asked: the deadline decides
  });

  it('gives up before an attempt once the deadline is spent: no attempt, the retry given back', () => {
    const h = harness();
    h.begin({ deadlineMs: 1_015 });
    h.tracker.startAttempt();
    h.advance(1);
    expect(h.tracker.attemptEnded(UNAVAILABLE).retry).toBe(true);
    h.advance(20); // a late timer: the deadline passed during the wait
    expect(h.tracker.startAttempt()).toBe(DEADLINE_SPENT);
    expect(h.tracker.open).toBe(false);
    expect(kinds(h.events).at(-1)).toEqual(['giveUp', 1, 'deadline']);
    expect(h.log.slice(-2)).toEqual(['retryFinished high 1021', 'requestFinished high 1021']);
  });

  it('stops at the call’s own retry limit as limit, or as non-idempotent when that is why', () => {
    const capped = harness();
    capped.begin({ retryLimit: 0 });
    capped.tracker.startAttempt();
    expect(capped.tracker.attemptEnded(UNAVAILABLE)).toEqual({ retry: false, reason: 'limit' });
    expect(capped.log).not.toContain('acquireRetry high 1000');
    const post = harness();
    post.begin({ retryLimit: 0, method: 'POST' });
    post.tracker.startAttempt();
    expect(post.tracker.attemptEnded(UNAVAILABLE)).toEqual({
      retry: false,
      reason: 'non-idempotent',
    });
    const stopped = harness();
    stopped.begin();
    stopped.tracker.startAttempt();
    stopped.tracker.stopRetrying(); // e.g. a request stream past its replay buffer
    expect(stopped.tracker.attemptEnded(UNAVAILABLE)).toEqual({ retry: false, reason: 'limit' });
    expect(() => harness().begin({ retryLimit: 1.5 })).toThrow(/retryLimit should be an integer/);
  });

  it("waits the server's Retry-After without feeding it to the backoff's previous delay", () => {
    const h = harness({
      backoff: { kind: 'exponential', baseMs: 10, maxMs: 1_000, jitter: 'decorrelated' },
    });
    h.begin();
    h.tracker.startAttempt();
    const first = h.tracker.attemptEnded(UNAVAILABLE);
    h.tracker.startAttempt();
    const server = h.tracker.attemptEnded(retryAfter('3'));
    h.tracker.startAttempt();
    h.tracker.attemptEnded(UNAVAILABLE);
    expect(server).toEqual({ retry: true, delayMs: 3_000, fromServer: true });
    expect(h.asked.map((c) => c.previousDelayMs)).toEqual([
      undefined,
      first.retry ? first.delayMs : Number.NaN,
      first.retry ? first.delayMs : Number.NaN,
    ]);
  });

  it('gives a held retry back on abandon, with no event, once', () => {
    const h = harness();
    h.begin();
    h.tracker.startAttempt();
    h.tracker.attemptEnded(UNAVAILABLE);
    const before = h.events.length;
    h.advance(3);
    h.tracker.abandon();
    h.tracker.abandon();
    expect(h.events).toHaveLength(before);
    expect(h.log.slice(-2)).toEqual(['retryFinished high 1003', 'requestFinished high 1003']);
    expect(h.log.filter((line) => line.startsWith('requestFinished'))).toHaveLength(1);
  });

  it('builds no event for a sink that wants none, and can be begun again under another policy', () => {
    const h = harness();
    let built = 0;
    h.begin({
      events: {
        wants: (kind) => kind === 'giveUp',
        emit: () => {
          built++;
        },
      },
    });
    h.tracker.startAttempt();
    h.tracker.attemptEnded(UNAVAILABLE);
    h.tracker.startAttempt();
    h.tracker.attemptEnded(SUCCESS);
    expect(built).toBe(0);
    const other = retryPolicy({
      classes: { low: { retries: 0 } },
      clock: () => 0,
      random: seededRandom(2),
    });
    h.tracker.begin(other, 'low');
    expect(h.tracker.policy).toBe(other);
    expect(h.tracker.attempts).toBe(0);
    expect(h.tracker.className).toBe('low');
  });
});
