import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackoffDescription } from '../../src/model/backoff/BackoffDescription.js';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { fixedTimeout } from '../../src/policy/timeouts/TimeoutStrategy.js';
import { runWithContext } from '../../src/runtime/context.js';
import { AttemptTimeoutError, errorCode, isDifftryError } from '../../src/runtime/errors.js';
import { difftryFetch, type FetchFunction } from '../../src/runtime/fetch.js';
import type { RetryEvent } from '../../src/runtime/retry.js';
import {
  bytes,
  closedPortUrl,
  type LoopbackServer,
  neverAnswer,
  reply,
  settle,
  sha256,
  startServer,
} from './loopback.js';

const classes = { high: { retries: 5 }, low: { retries: 1 } };
const immediate: BackoffDescription = { kind: 'constant', delayMs: 0 };
const base = { classes, defaultClass: 'low', backoff: immediate } as const;

const servers: LoopbackServer[] = [];
async function server(...args: Parameters<typeof startServer>): Promise<LoopbackServer> {
  const started = await startServer(...args);
  servers.push(started);
  return started;
}

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A fetch that counts the attempts it is asked to send. */
function countingFetch(): { fetch: FetchFunction; calls: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls++;
      return globalThis.fetch(input, init);
    },
    calls: () => calls,
  };
}

describe('difftryFetch: classes', () => {
  it.each([
    ['high', 6, 'high'],
    ['low', 2, 'low'],
    ['platinum', 2, 'low'],
    ['HIGH', 6, 'high'],
  ])('a %s request makes %i attempts, each labelled %s', async (sent, attempts, label) => {
    const orders = await server();
    const fetchWithRetries = difftryFetch(base);
    const res = await fetchWithRetries(orders.url, { headers: { 'x-priority': sent } });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('rejected');
    expect(orders.requests).toHaveLength(attempts);
    expect(orders.requests.map((r) => r.headers['x-priority'])).toEqual(
      Array(attempts).fill(label),
    );
  });

  it('labels an unlabelled request with the default class', async () => {
    const orders = await server();
    await difftryFetch(base)(orders.url);
    expect(orders.requests.map((r) => r.headers['x-priority'])).toEqual(['low', 'low']);
  });

  it('takes the class from the request context when the request has no header', async () => {
    const orders = await server();
    const fetchWithRetries = difftryFetch(base);
    await runWithContext({ className: 'high' }, () => fetchWithRetries(orders.url));
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests.every((r) => r.headers['x-priority'] === 'high')).toBe(true);
  });

  it("prefers the request's own header to the context", async () => {
    const orders = await server();
    const fetchWithRetries = difftryFetch(base);
    await runWithContext({ className: 'high' }, () =>
      fetchWithRetries(orders.url, { headers: { 'X-Priority': 'low' } }),
    );
    expect(orders.requests).toHaveLength(2);
  });

  it('uses a custom class header and a shared policy object', async () => {
    const orders = await server();
    const policy = retryPolicy({ ...base, header: 'X-Class' });
    const res = await difftryFetch({ policy })(orders.url, { headers: { 'x-class': 'high' } });
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests[0]?.headers['x-class']).toBe('high');
    expect(orders.requests[0]?.headers['x-priority']).toBeUndefined();
  });

  it('returns the first response that is not rejected, after cancelling the rejected ones', async () => {
    const orders = await server((_req, res, index) =>
      index < 2 ? reply(res, 503, 'busy') : reply(res, 200, 'order 42'),
    );
    const res = await difftryFetch(base)(orders.url, { headers: { 'x-priority': 'high' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('order 42');
    expect(orders.requests).toHaveLength(3);
  });

  it('does not retry a status the policy does not retry (404)', async () => {
    const orders = await server((_req, res) => reply(res, 404, 'no such order'));
    const failures: RetryEvent[] = [];
    const res = await difftryFetch({ ...base, onFailure: (e) => failures.push(e) })(orders.url, {
      headers: { 'x-priority': 'high' },
    });
    expect(res.status).toBe(404);
    expect(orders.requests).toHaveLength(1);
    expect(failures).toHaveLength(1);
  });

  it('works with the backoffs of the issue, as written', async () => {
    const orders = await server();
    for (const backoff of [
      { kind: 'exponential', baseMs: 1, maxMs: 4, jitter: 'full' },
      { kind: 'constant', delayMs: 10 },
    ] as const) {
      const fetchWithRetries = difftryFetch({ ...base, header: 'x-priority', backoff });
      const res = await fetchWithRetries(orders.url, { headers: { 'x-priority': 'low' } });
      expect(res.status).toBe(503);
    }
    expect(orders.requests).toHaveLength(4);
  });
});

describe('difftryFetch: Retry-After', () => {
  it('waits the second the server asks for before the retry', async () => {
    const orders = await server((_req, res, index) =>
      index === 0 ? reply(res, 503, 'busy', { 'retry-after': '1' }) : reply(res, 200, 'ok'),
    );
    const counter = countingFetch();
    const delays: Array<number | undefined> = [];
    let retried: () => void = () => {};
    const retryAnnounced = new Promise<void>((resolve) => {
      retried = resolve;
    });
    // The backoff alone would retry at once: only the header explains a wait.
    const fetchWithRetries = difftryFetch({
      ...base,
      fetch: counter.fetch,
      onRetry: (event) => {
        delays.push(event.delayMs);
        retried();
      },
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const pending = fetchWithRetries(orders.url, { headers: { 'x-priority': 'high' } });
    await retryAnnounced;
    expect(delays).toEqual([1000]);
    await vi.advanceTimersByTimeAsync(999);
    await settle();
    expect(counter.calls()).toBe(1);
    expect(orders.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(counter.calls()).toBe(2);
    expect(orders.requests).toHaveLength(2);
  });
});

describe('difftryFetch: idempotency', () => {
  it('sends a POST once by default', async () => {
    const orders = await server();
    const res = await difftryFetch(base)(orders.url, {
      method: 'POST',
      headers: { 'x-priority': 'high' },
      body: 'order',
    });
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(1);
  });

  it('retries a POST when the policy allows it', async () => {
    const orders = await server();
    const res = await difftryFetch({ ...base, methods: ['GET', 'POST'] })(orders.url, {
      method: 'post',
      headers: { 'x-priority': 'high' },
      body: 'order',
    });
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests.every((r) => r.method === 'POST' && r.bodyBytes === 5)).toBe(true);
  });
});

describe('difftryFetch: abort', () => {
  it('stops at once when the caller aborts during a wait', async () => {
    const orders = await server();
    const counter = countingFetch();
    const caller = new AbortController();
    const reason = new Error('caller gave up');
    const fetchWithRetries = difftryFetch({
      ...base,
      backoff: { kind: 'constant', delayMs: 60_000 },
      fetch: counter.fetch,
      // Abort once the wait has begun (a real turn of the event loop later).
      onRetry: () => setImmediate(() => caller.abort(reason)),
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await expect(
      fetchWithRetries(orders.url, { headers: { 'x-priority': 'high' }, signal: caller.signal }),
    ).rejects.toBe(reason);
    expect(counter.calls()).toBe(1);
  });

  it('stops at once when the caller aborts during an attempt', async () => {
    const orders = await server(neverAnswer);
    const caller = new AbortController();
    const reason = new Error('caller gave up');
    void orders.received(1).then(() => caller.abort(reason));
    await expect(
      difftryFetch(base)(orders.url, {
        headers: { 'x-priority': 'high' },
        signal: caller.signal,
      }),
    ).rejects.toBe(reason);
    expect(orders.requests).toHaveLength(1);
  });

  it('rejects with the reason of a signal aborted before the call', async () => {
    const counter = countingFetch();
    const reason = new Error('too late');
    await expect(
      difftryFetch({ ...base, fetch: counter.fetch })('http://127.0.0.1:9/', {
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
    expect(counter.calls()).toBe(0);
  });
});

describe('difftryFetch: attempt signals', () => {
  /** A fetch that records the signal of each attempt and answers 503. */
  function signalFetch(): { fetch: FetchFunction; signals: Array<AbortSignal | null | undefined> } {
    const signals: Array<AbortSignal | null | undefined> = [];
    return {
      signals,
      fetch: async (_input, init) => {
        signals.push(init?.signal);
        return new Response('busy', { status: 503 });
      },
    };
  }

  it('gives an attempt nothing can abort no signal at all (never one shared by every fetch)', async () => {
    const recorder = signalFetch();
    const fetchWithRetries = difftryFetch({ ...base, fetch: recorder.fetch });
    await fetchWithRetries('http://orders/', { headers: { 'x-priority': 'high' } });
    await fetchWithRetries('http://orders/');
    expect(recorder.signals).toHaveLength(8);
    expect(recorder.signals.every((signal) => signal === undefined)).toBe(true);
  });

  it("passes the caller's own signal without a per-try timeout, a fresh one per attempt with it", async () => {
    const caller = new AbortController();
    const plain = signalFetch();
    await difftryFetch({ ...base, fetch: plain.fetch })('http://orders/', {
      signal: caller.signal,
    });
    expect(plain.signals).toEqual([caller.signal, caller.signal]);

    const timed = signalFetch();
    await difftryFetch({ ...base, fetch: timed.fetch, timeout: fixedTimeout(1000) })(
      'http://orders/',
      { signal: caller.signal },
    );
    expect(timed.signals).toHaveLength(2);
    expect(timed.signals[0]).toBeInstanceOf(AbortSignal);
    expect(timed.signals[0]).not.toBe(timed.signals[1]);
    expect(timed.signals[0]).not.toBe(caller.signal);
    caller.abort(new Error('late'));
    // The attempts are over: their signals no longer follow the caller's.
    expect(timed.signals[0]?.aborted).toBe(false);
  });
});

describe('difftryFetch: bodies', () => {
  const twoMegabytes = bytes(2 * 1024 * 1024);
  const hash = sha256(twoMegabytes);

  it('replays a 2 MB body byte for byte on every attempt', async () => {
    const orders = await server();
    const body = twoMegabytes.slice();
    const pending = difftryFetch({ ...base, maxBufferBytes: 4 * 1024 * 1024 })(orders.url, {
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body,
    });
    body.fill(0); // the caller reusing its buffer must not change a retry
    const res = await pending;
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests.map((r) => r.bodyHash)).toEqual(Array(6).fill(hash));
  });

  it('replays a 2 MB stream that fits the buffer', async () => {
    const orders = await server();
    const res = await difftryFetch({ ...base, maxBufferBytes: 2 * 1024 * 1024 })(orders.url, {
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body: chunked(twoMegabytes, 64 * 1024),
      duplex: 'half',
    });
    expect(res.status).toBe(503);
    expect(orders.requests.map((r) => r.bodyHash)).toEqual(Array(6).fill(hash));
  });

  it('sends a body above the limit once, intact, with no retry', async () => {
    const orders = await server();
    const res = await difftryFetch(base)(orders.url, {
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body: twoMegabytes,
    });
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(1);
    expect(orders.requests[0]?.bodyHash).toBe(hash);
  });

  it('sends a stream above the limit once, intact, with no retry', async () => {
    const orders = await server();
    const res = await difftryFetch(base)(orders.url, {
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body: chunked(twoMegabytes, 300 * 1024),
      duplex: 'half',
    });
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(1);
    expect(orders.requests[0]?.bodyHash).toBe(hash);
  });

  it('replays the body of a Request input', async () => {
    const orders = await server();
    const request = new Request(orders.url, {
      method: 'PUT',
      headers: { 'x-priority': 'high', 'content-type': 'application/json' },
      body: '{"order":42}',
    });
    const res = await difftryFetch(base)(request);
    expect(res.status).toBe(503);
    expect(orders.requests).toHaveLength(6);
    for (const received of orders.requests) {
      expect(received.bodyHash).toBe(sha256('{"order":42}'));
      expect(received.headers['content-type']).toBe('application/json');
      expect(received.headers['x-priority']).toBe('high');
    }
  });
});

describe('difftryFetch: network errors and timeouts', () => {
  it('retries a refused connection, then throws the error', async () => {
    const url = await closedPortUrl();
    const counter = countingFetch();
    const error = await difftryFetch({ ...base, fetch: counter.fetch })(url, {
      headers: { 'x-priority': 'high' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(errorCode(error)).toBe('ECONNREFUSED');
    expect(counter.calls()).toBe(6);
  });

  it('retries a per-try timeout, then throws a AttemptTimeoutError', async () => {
    const orders = await server(neverAnswer);
    const giveUps: RetryEvent[] = [];
    const error = await difftryFetch({
      ...base,
      timeout: fixedTimeout(500),
      onGiveUp: (e) => giveUps.push(e),
    })(orders.url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(isDifftryError(error) && error.code).toBe('DIFFTRY_TIMEOUT');
    await orders.received(2);
    expect(orders.requests).toHaveLength(2);
    expect(giveUps.map((e) => [e.reason, e.attempts, e.outcome.kind])).toEqual([
      ['limit', 2, 'timeout'],
    ]);
  });

  it('ends the call at its deadline even without a per-try timeout', async () => {
    const orders = await server(neverAnswer);
    const counter = countingFetch();
    const giveUps: RetryEvent[] = [];
    const fetchWithRetries = difftryFetch({
      ...base,
      fetch: counter.fetch,
      deadlineMs: 300,
      onGiveUp: (e) => giveUps.push(e),
    });
    const error = await fetchWithRetries(orders.url, { headers: { 'x-priority': 'high' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(giveUps.map((e) => e.reason)).toEqual(['deadline']);
    expect(counter.calls()).toBe(1);
  });
});

/** A web stream of `data` in chunks of `size` bytes. */
function chunked(data: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) {
        controller.close();
        return;
      }
      controller.enqueue(data.slice(offset, offset + size));
      offset += size;
    },
  });
}
