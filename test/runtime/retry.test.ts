import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome } from '../../src/policy/retry/AttemptOutcome.js';
import type { RetryPolicyOptions } from '../../src/policy/retry/RetryPolicy.js';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { fixedTimeout, type TimeoutStrategy } from '../../src/policy/timeouts/TimeoutStrategy.js';
import { currentContext, runWithContext } from '../../src/runtime/context.js';
import { AttemptTimeoutError } from '../../src/runtime/errors.js';
import {
  type AttemptInfo,
  channels,
  type RetryEvent,
  type RetryOptions,
  retry,
} from '../../src/runtime/retry.js';

const options: RetryPolicyOptions = {
  classes: { high: { retries: 5 }, low: { retries: 1 } },
  defaultClass: 'low',
  backoff: { kind: 'constant', delayMs: 100 },
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** Records every event of a call. */
function recorder() {
  const events: Array<[string, RetryEvent]> = [];
  const listeners = {
    onRetry: (e: RetryEvent) => events.push(['retry', e]),
    onGiveUp: (e: RetryEvent) => events.push(['giveUp', e]),
    onSuccess: (e: RetryEvent) => events.push(['success', e]),
    onFailure: (e: RetryEvent) => events.push(['failure', e]),
  } satisfies Partial<RetryOptions<unknown>>;
  const count = (kind: string) => events.filter(([k]) => k === kind).length;
  return { events, listeners, count };
}

/** Runs `retry` to completion under fake timers, resolving to its value or its error. */
async function settleRetry<T>(
  fn: (info: AttemptInfo) => Promise<T>,
  retryOptions: RetryOptions<T>,
): Promise<{ value?: T; error?: unknown }> {
  const outcome = retry(fn, retryOptions).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  return outcome;
}

describe('retry: events', () => {
  it('retries a high call 5 times, with the events to match', async () => {
    const { listeners, count, events } = recorder();
    const fn = vi.fn(() => Promise.reject(refused()));
    const { error } = await settleRetry(fn, { policy: options, className: 'high', ...listeners });
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(fn).toHaveBeenCalledTimes(6);
    expect([count('failure'), count('retry'), count('giveUp'), count('success')]).toEqual([
      6, 5, 1, 0,
    ]);
    const retries = events.filter(([kind]) => kind === 'retry').map(([, e]) => e);
    expect(retries.map((e) => [e.attempts, e.delayMs, e.className])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, 100, 'high']),
    );
    const giveUp = events.find(([kind]) => kind === 'giveUp')?.[1];
    expect(giveUp).toMatchObject({ attempts: 6, reason: 'limit', outcome: { kind: 'error' } });
  });

  it('succeeds on the third attempt with two retries and one success', async () => {
    const { listeners, count, events } = recorder();
    let calls = 0;
    const { value } = await settleRetry(
      async ({ attempt }) => {
        calls++;
        if (attempt < 2) throw refused();
        return 'order 42';
      },
      { policy: options, className: 'high', ...listeners },
    );
    expect(value).toBe('order 42');
    expect(calls).toBe(3);
    expect([count('failure'), count('retry'), count('giveUp'), count('success')]).toEqual([
      2, 2, 0, 1,
    ]);
    expect(events.at(-1)?.[1].attempts).toBe(3);
  });

  it('waits the backoff between attempts', async () => {
    const fn = vi.fn(() => Promise.reject(refused()));
    const call = retry(fn, { policy: options, className: 'high' }).catch(() => {});
    await vi.advanceTimersByTimeAsync(0);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledTimes(2);
    await vi.runAllTimersAsync();
    await call;
    expect(fn).toHaveBeenCalledTimes(6);
  });

  it('returns a classified failure as it came after the last attempt', async () => {
    const classify = (status: number): AttemptOutcome => ({ kind: 'status', status });
    const discard = vi.fn();
    const { value } = await settleRetry(() => Promise.resolve(503), {
      policy: options,
      className: 'low',
      classify,
      discard,
    });
    expect(value).toBe(503);
    expect(discard).toHaveBeenCalledTimes(1);
  });

  it('does not retry a thrown error the policy does not retry', async () => {
    const { listeners, events } = recorder();
    const bug = new TypeError('not a function');
    const fn = vi.fn(() => Promise.reject(bug));
    const { error } = await settleRetry(fn, { policy: options, className: 'high', ...listeners });
    expect(error).toBe(bug);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(events.map(([kind, e]) => [kind, e.reason])).toEqual([
      ['failure', undefined],
      ['giveUp', 'not-retryable'],
    ]);
  });

  it('treats a synchronous throw as a failed attempt', async () => {
    const { error } = await settleRetry(
      () => {
        throw refused();
      },
      { policy: options, className: 'low' },
    );
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('caps the retries of one call with retryLimit', async () => {
    const fn = vi.fn(() => Promise.reject(refused()));
    const { listeners, events } = recorder();
    await settleRetry(fn, { policy: options, className: 'high', retryLimit: 0, ...listeners });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(events.at(-1)?.[1].reason).toBe('limit');
    await expect(retry(fn, { policy: options, retryLimit: -1 })).rejects.toThrow(RangeError);
  });
});

describe('retry: diagnostics_channel', () => {
  it('publishes retries on difftry:retry when subscribed', async () => {
    const published: RetryEvent[] = [];
    const listener = (message: unknown) => published.push(message as RetryEvent);
    subscribe('difftry:retry', listener);
    try {
      expect(channels.retry.hasSubscribers).toBe(true);
      await settleRetry(() => Promise.reject(refused()), { policy: options, className: 'high' });
    } finally {
      unsubscribe('difftry:retry', listener);
    }
    expect(published.map((e) => [e.className, e.attempts])).toEqual(
      [1, 2, 3, 4, 5].map((n) => ['high', n]),
    );
    expect(channels.retry.hasSubscribers).toBe(false);
  });
});

describe('retry: abort, timeouts, deadline', () => {
  it('rejects with the abort reason at once during a wait', async () => {
    const caller = new AbortController();
    const reason = new Error('caller gave up');
    const fn = vi.fn(() => Promise.reject(refused()));
    const call = retry(fn, {
      policy: options,
      className: 'high',
      signal: caller.signal,
      onRetry: () => queueMicrotask(() => caller.abort(reason)),
    });
    await expect(call).rejects.toBe(reason);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the abort reason at once during an attempt, aborting its signal', async () => {
    const caller = new AbortController();
    const reason = new Error('caller gave up');
    let attemptSignal: AbortSignal | undefined;
    const call = retry(
      ({ signal }) => {
        attemptSignal = signal;
        return new Promise<never>(() => {});
      },
      { policy: options, className: 'high', signal: caller.signal },
    );
    caller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(attemptSignal?.reason).toBe(reason);
  });

  it('times out each attempt, retries, then throws the AttemptTimeoutError', async () => {
    const observed: string[] = [];
    const timeout: TimeoutStrategy = {
      ...fixedTimeout(250),
      observe: (outcome, latencyMs) => observed.push(`${outcome} ${latencyMs}`),
    };
    const signals: AbortSignal[] = [];
    const { error } = await settleRetry(
      ({ signal }) => {
        signals.push(signal);
        return new Promise<never>(() => {});
      },
      { policy: options, className: 'low', timeout },
    );
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(signals.map((s) => s.reason instanceof AttemptTimeoutError)).toEqual([true, true]);
    expect(observed).toEqual(['timeout 250', 'timeout 250']);
  });

  it('makes the signal when first read: already aborted if the attempt timed out before', async () => {
    let late: AbortSignal | undefined;
    const { error } = await settleRetry(
      (info) =>
        new Promise<number>((resolve) => {
          setTimeout(() => {
            late = info.signal;
            resolve(1);
          }, 400);
        }),
      { policy: options, className: 'low', timeout: fixedTimeout(250), retryLimit: 0 },
    );
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(late?.aborted).toBe(true);
    expect(late?.reason).toBeInstanceOf(AttemptTimeoutError);
  });

  it("hands an attempt the caller's own signal when only the caller can abort it", async () => {
    const caller = new AbortController();
    const seen: AbortSignal[] = [];
    await settleRetry(
      async ({ signal }) => {
        seen.push(signal);
        return 1;
      },
      { policy: options, className: 'low', signal: caller.signal },
    );
    expect(seen).toEqual([caller.signal]);
  });

  it('ends the call at its deadline, without a per-try timeout', async () => {
    const fn = vi.fn(() => new Promise<never>(() => {}));
    const { listeners, events } = recorder();
    const start = Date.now();
    const { error } = await settleRetry(fn, {
      policy: options,
      className: 'high',
      deadlineMs: 300,
      ...listeners,
    });
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(events.at(-1)?.[1].reason).toBe('deadline');
    expect(Date.now() - start).toBe(300);
  });

  it('sends nothing once the deadline inherited from the request context has passed', async () => {
    const fn = vi.fn(() => Promise.resolve('late'));
    const { error } = await runWithContext({ className: 'high', deadlineMs: Date.now() - 1 }, () =>
      settleRetry(fn, { policy: options }),
    );
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(fn).not.toHaveBeenCalled();
  });

  it('runs each attempt inside the request context', async () => {
    const seen: unknown[] = [];
    await runWithContext({ className: 'high' }, () =>
      settleRetry(
        async ({ attempt }) => {
          seen.push(currentContext());
          if (attempt < 1) throw refused();
        },
        { policy: retryPolicy(options) },
      ),
    );
    expect(seen).toEqual([
      { className: 'high', deadlineMs: undefined, attempt: 0 },
      { className: 'high', deadlineMs: undefined, attempt: 1 },
    ]);
  });
});

describe('retry: the deadline of a call made while serving a request', () => {
  const policy = retryPolicy({ classes: { high: { retries: 2 } }, clock: () => 1_000 });
  const deadlineOf = (deadlineMs: number | undefined, context: number | undefined) => {
    let seen: number | undefined;
    const call = () =>
      retry(
        async (info) => {
          seen = info.deadlineMs;
          return 'ok';
        },
        { policy, className: 'high', ...(deadlineMs !== undefined && { deadlineMs }) },
      );
    return (
      context === undefined
        ? call()
        : runWithContext({ className: 'high', deadlineMs: context }, call)
    ).then(() => seen);
  };

  it('is the sooner of its own and the request context’s', async () => {
    expect(await deadlineOf(5_000, 1_200)).toBe(1_200); // the request's ends first
    expect(await deadlineOf(100, 9_000)).toBe(1_100); // its own ends first
    expect(await deadlineOf(100, undefined)).toBe(1_100);
    expect(await deadlineOf(undefined, 1_200)).toBe(1_200);
    expect(await deadlineOf(undefined, undefined)).toBeUndefined();
  });
});
