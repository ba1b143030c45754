/**
 * `difftryInterceptor` over an in-process dispatch (no socket): the executor's steps that a
 * loopback server cannot stage exactly — a dispatch that throws, a request that never answers
 * under fake timers, a success that must leave no timer behind, an abort during a wait.
 */
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fixedTimeout } from '../../src/policy/timeouts/TimeoutStrategy.js';
import { AttemptTimeoutError } from '../../src/runtime/errors.js';
import type { RetryEvent } from '../../src/runtime/retry.js';
import { type DifftryInterceptorOptions, difftryInterceptor } from '../../src/runtime/undici.js';
import { settle } from './loopback.js';

const classes = { high: { retries: 3 }, low: { retries: 1 } };

/** The controller an in-process dispatch gives its handler; records aborts. */
class Controller implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

/** What one attempt's request looked like, and its controller. */
interface Sent {
  readonly headers: Record<string, string | string[]>;
  readonly controller: Controller;
}

/**
 * An in-process dispatch whose attempt `index` is answered by `answer` (a status, answered on a
 * microtask with a 2-byte body; 'never'; or 'throw', a synchronous throw).
 */
function inProcess(answer: (index: number) => number | 'never' | 'throw') {
  const sent: Sent[] = [];
  const dispatch: Dispatcher.Dispatch = (opts, handler) => {
    const index = sent.length;
    const controller = new Controller();
    sent.push({ headers: opts.headers as Record<string, string | string[]>, controller });
    const answered = answer(index);
    if (answered === 'throw') throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    handler.onRequestStart?.(controller, undefined);
    if (answered === 'never') return true;
    queueMicrotask(() => {
      if (controller.aborted) return;
      handler.onResponseStart?.(controller, answered, { 'content-length': '2' }, '');
      handler.onResponseData?.(controller, Buffer.from('ok'));
      handler.onResponseEnd?.(controller, {});
    });
    return true;
  };
  return { dispatch, sent };
}

/** The handler's side of one call: its events in order, and a promise of how it ended. */
function call(
  options: DifftryInterceptorOptions,
  dispatch: Dispatcher.Dispatch,
  headers: Record<string, string> = { 'x-priority': 'high' },
) {
  const events: string[] = [];
  let controller: Dispatcher.DispatchController | undefined;
  let returned = false;
  const ended = new Promise<{ status: number; body: string } | Error>((resolve) => {
    let status = 0;
    let body = '';
    difftryInterceptor(options)(dispatch)(
      { origin: 'http://upstream', path: '/x', method: 'GET', headers },
      {
        onRequestStart: (given) => {
          controller = given;
        },
        onResponseStart: (_c, statusCode) => {
          events.push(`start ${statusCode}`);
          status = statusCode;
        },
        onResponseData: (_c, chunk) => {
          body += chunk.toString();
        },
        onResponseEnd: () => {
          events.push('end');
          resolve({ status, body });
        },
        onResponseError: (_c, error) => {
          events.push(returned ? 'error' : 'error inside dispatch');
          resolve(error);
        },
      },
    );
    returned = true;
  });
  return { events, ended, abort: (reason: Error) => controller?.abort(reason) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('difftryInterceptor, in process', () => {
  it('hands on a success and leaves no per-try timer behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { dispatch, sent } = inProcess(() => 200);
    const successes: RetryEvent[] = [];
    const { events, ended } = call(
      { classes, timeout: fixedTimeout(1000), onSuccess: (e) => successes.push(e) },
      dispatch,
    );
    expect(await ended).toEqual({ status: 200, body: 'ok' });
    await settle();
    expect(events).toEqual(['start 200', 'end']);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['x-priority']).toBe('high');
    expect(successes.map((e) => [e.className, e.attempts])).toEqual([['high', 1]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('counts a throwing dispatch as a failed attempt; the error comes after dispatch', async () => {
    const { dispatch, sent } = inProcess(() => 'throw');
    const failures: RetryEvent[] = [];
    const giveUps: RetryEvent[] = [];
    const { events, ended } = call(
      {
        classes,
        backoff: { kind: 'constant', delayMs: 0 },
        onFailure: (e) => failures.push(e),
        onGiveUp: (e) => giveUps.push(e),
      },
      dispatch,
    );
    const error = await ended;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error & { code?: string }).code).toBe('ECONNREFUSED');
    expect(events).toEqual(['error']);
    expect(sent).toHaveLength(4);
    expect(failures.map((e) => e.outcome)).toEqual(
      Array(4).fill({ kind: 'error', code: 'ECONNREFUSED' }),
    );
    expect(giveUps.map((e) => e.reason)).toEqual(['limit']);
  });

  it('aborts an attempt at its per-try timeout, retries, then ends with the timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { dispatch, sent } = inProcess(() => 'never');
    const { ended } = call(
      { classes, timeout: fixedTimeout(100), backoff: { kind: 'constant', delayMs: 10 } },
      dispatch,
      { 'x-priority': 'low' },
    );
    await vi.advanceTimersByTimeAsync(99);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.controller.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent[0]?.controller.reason).toBeInstanceOf(AttemptTimeoutError);
    await vi.advanceTimersByTimeAsync(10);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(100);
    const error = await ended;
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect((error as AttemptTimeoutError).timeoutMs).toBe(100);
    expect(sent.map((s) => s.controller.aborted)).toEqual([true, true]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends at once, with no attempt more, when the handler aborts during a wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { dispatch, sent } = inProcess(() => 503);
    const retries: RetryEvent[] = [];
    const { ended, abort } = call(
      {
        classes,
        backoff: { kind: 'constant', delayMs: 5000 },
        onRetry: (e) => retries.push(e),
      },
      dispatch,
    );
    await settle();
    expect(retries).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('caller gave up');
    abort(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(await ended).toBe(reason);
    expect(sent).toHaveLength(1);
  });

  it('aborts the request in flight when the handler aborts during an attempt', async () => {
    const { dispatch, sent } = inProcess(() => 'never');
    const { events, ended, abort } = call({ classes }, dispatch);
    const reason = new Error('caller gave up');
    abort(reason);
    expect(sent[0]?.controller.reason).toBe(reason);
    expect(await ended).toBe(reason);
    expect(events).toEqual(['error']);
    expect(sent).toHaveLength(1);
  });
});
