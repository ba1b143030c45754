import { Readable } from 'node:stream';
import { Agent, type Dispatcher, request, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackoffDescription } from '../../src/model/backoff/BackoffDescription.js';
import { runWithContext } from '../../src/runtime/context.js';
import { AttemptTimeoutError, errorCode } from '../../src/runtime/errors.js';
import type { RetryEvent } from '../../src/runtime/retry.js';
import { type DifftryInterceptorOptions, difftryInterceptor } from '../../src/runtime/undici.js';
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
const agents: Agent[] = [];
async function server(...args: Parameters<typeof startServer>): Promise<LoopbackServer> {
  const started = await startServer(...args);
  servers.push(started);
  return started;
}

/** `new Agent().compose(difftryInterceptor(options))`, closed after the test. */
function dispatcher(options: DifftryInterceptorOptions = base): Dispatcher {
  const agent = new Agent();
  agents.push(agent);
  return agent.compose(difftryInterceptor(options));
}

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('difftryInterceptor: classes', () => {
  it.each([
    ['high', 6, 'high'],
    ['low', 2, 'low'],
    ['platinum', 2, 'low'],
  ])('a %s request makes %i attempts, each labelled %s', async (sent, attempts, label) => {
    const orders = await server();
    const res = await request(orders.url, {
      dispatcher: dispatcher(),
      headers: { 'x-priority': sent },
    });
    expect(res.statusCode).toBe(503);
    expect(await res.body.text()).toBe('rejected');
    expect(orders.requests.map((r) => r.headers['x-priority'])).toEqual(
      Array(attempts).fill(label),
    );
  });

  it('reads the class from headers given as a flat array', async () => {
    const orders = await server();
    await request(orders.url, {
      dispatcher: dispatcher(),
      headers: ['X-Priority', 'high', 'accept', 'text/plain'],
    }).then((res) => res.body.dump());
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests[0]?.headers.accept).toBe('text/plain');
  });

  it('takes the class from the request context', async () => {
    const orders = await server();
    const through = dispatcher();
    const res = await runWithContext({ className: 'high' }, () =>
      request(orders.url, { dispatcher: through }),
    );
    await res.body.dump();
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests.every((r) => r.headers['x-priority'] === 'high')).toBe(true);
  });

  it('hands on the first response that is not rejected, body and all', async () => {
    const orders = await server((_req, res, index) =>
      index < 2 ? reply(res, 503, 'busy') : reply(res, 200, 'order 42', { 'x-order': '42' }),
    );
    const events: string[] = [];
    const res = await request(orders.url, {
      dispatcher: dispatcher({
        ...base,
        onRetry: () => events.push('retry'),
        onSuccess: (e) => events.push(`success after ${e.attempts}`),
      }),
      headers: { 'x-priority': 'high' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-order']).toBe('42');
    expect(await res.body.text()).toBe('order 42');
    expect(events).toEqual(['retry', 'retry', 'success after 3']);
  });

  it("works under undici's fetch too (requests without a body)", async () => {
    const orders = await server();
    const res = await undiciFetch(orders.url, {
      dispatcher: dispatcher(),
      headers: { 'x-priority': 'high' },
    });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('rejected');
    expect(orders.requests).toHaveLength(6);
  });
});

describe('difftryInterceptor: deadline header', () => {
  const deadlineHeader = 'x-difftry-deadline-ms';

  it("takes the caller's remaining time and sends each attempt the time left", async () => {
    const orders = await server();
    const delays: Array<number | undefined> = [];
    // Fake clock and timers: the only time that passes is the 30 ms the test lets pass after each
    // retry is announced, so each attempt's remaining time is known to the millisecond.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const res = await request(orders.url, {
      dispatcher: dispatcher({
        ...base,
        backoff: { kind: 'constant', delayMs: 30 },
        deadlineHeader,
        onRetry: (event) => {
          delays.push(event.delayMs);
          // Once the wait is armed (real setImmediate runs after the retry's promise jobs).
          setImmediate(() => void vi.advanceTimersByTimeAsync(30));
        },
      }),
      headers: { 'x-priority': 'high', 'X-Difftry-Deadline-Ms': '5000' },
    });
    await res.body.dump();
    expect(delays).toEqual([30, 30, 30, 30, 30]);
    expect(orders.requests).toHaveLength(6);
    // One value per attempt, the caller's 5000 less the 30 ms waited before each retry.
    expect(orders.requests.map((r) => r.headers[deadlineHeader])).toEqual([
      '5000',
      '4970',
      '4940',
      '4910',
      '4880',
      '4850',
    ]);
  });

  it('ends the call at the sooner of the caller deadline and its own', async () => {
    const orders = await server(neverAnswer);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let settled = false;
    const pending = request(orders.url, {
      dispatcher: dispatcher({ ...base, deadlineMs: 5000, deadlineHeader }),
      headers: { 'x-priority': 'high', [deadlineHeader]: '80' },
    })
      .catch((e: unknown) => e)
      .finally(() => {
        settled = true;
      });
    await orders.received(1);
    expect(orders.requests[0]?.headers[deadlineHeader]).toBe('80');
    // The caller's 80 ms, not the adapter's 5000: still running at 79 ms, over at 80.
    await vi.advanceTimersByTimeAsync(79);
    await settle();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(settled).toBe(true);
    expect(errorCode(await pending)).toBe('DIFFTRY_TIMEOUT');
    // The deadline spent, no retry goes out though the class has five left.
    expect(orders.requests).toHaveLength(1);
  });

  it('sets the adapter deadline on a request without one, and drops a malformed value', async () => {
    const orders = await server((_req, res) => reply(res, 200, 'ok'));
    const through = dispatcher({ ...base, deadlineMs: 3000, deadlineHeader });
    await request(orders.url, { dispatcher: through }).then((r) => r.body.dump());
    await request(orders.url, {
      dispatcher: dispatcher({ ...base, deadlineHeader }),
      headers: { [deadlineHeader]: 'soon' },
    }).then((r) => r.body.dump());
    const first = Number(orders.requests[0]?.headers[deadlineHeader]);
    expect(first).toBeGreaterThan(2900);
    expect(first).toBeLessThanOrEqual(3000);
    expect(orders.requests[1]?.headers[deadlineHeader]).toBeUndefined();
  });

  it('refuses a deadline header that is the class header', () => {
    expect(() => difftryInterceptor({ ...base, deadlineHeader: 'X-Priority' })).toThrow(RangeError);
  });
});

describe('difftryInterceptor: Retry-After', () => {
  it('waits the second the server asks for before the retry', async () => {
    const orders = await server((_req, res, index) =>
      index === 0 ? reply(res, 503, 'busy', { 'retry-after': '1' }) : reply(res, 200, 'ok'),
    );
    const delays: Array<number | undefined> = [];
    let retried: () => void = () => {};
    const retryAnnounced = new Promise<void>((resolve) => {
      retried = resolve;
    });
    const through = dispatcher({
      ...base,
      onRetry: (event) => {
        delays.push(event.delayMs);
        retried();
      },
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const pending = request(orders.url, { dispatcher: through, headers: { 'x-priority': 'high' } });
    await retryAnnounced;
    expect(delays).toEqual([1000]);
    await vi.advanceTimersByTimeAsync(999);
    await settle();
    expect(orders.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('ok');
    expect(orders.requests).toHaveLength(2);
  });
});

describe('difftryInterceptor: bodies and methods', () => {
  const twoMegabytes = Buffer.from(bytes(2 * 1024 * 1024, 7));

  it('replays a 2 MB buffer byte for byte on every attempt', async () => {
    const orders = await server();
    const res = await request(orders.url, {
      dispatcher: dispatcher(),
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body: twoMegabytes,
    });
    await res.body.dump();
    expect(res.statusCode).toBe(503);
    expect(orders.requests.map((r) => r.bodyHash)).toEqual(Array(6).fill(sha256(twoMegabytes)));
  });

  it('replays a string body', async () => {
    const orders = await server();
    await request(orders.url, {
      dispatcher: dispatcher(),
      method: 'PUT',
      headers: { 'x-priority': 'low' },
      body: 'order 42',
    }).then((res) => res.body.dump());
    expect(orders.requests.map((r) => r.bodyHash)).toEqual(Array(2).fill(sha256('order 42')));
  });

  it('sends a stream body once, intact, with no retry', async () => {
    const orders = await server();
    const res = await request(orders.url, {
      dispatcher: dispatcher(),
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body: Readable.from([twoMegabytes.subarray(0, 1000), twoMegabytes.subarray(1000)]),
    });
    await res.body.dump();
    expect(res.statusCode).toBe(503);
    expect(orders.requests.map((r) => r.bodyHash)).toEqual([sha256(twoMegabytes)]);
  });

  it('sends a POST once by default and retries it when the policy allows it', async () => {
    const orders = await server();
    const send = (through: Dispatcher) =>
      request(orders.url, {
        dispatcher: through,
        method: 'POST',
        headers: { 'x-priority': 'high' },
        body: 'order',
      }).then((res) => res.body.dump());
    await send(dispatcher());
    expect(orders.requests).toHaveLength(1);
    await send(dispatcher({ ...base, methods: ['POST'] }));
    expect(orders.requests).toHaveLength(7);
  });
});

describe('difftryInterceptor: errors, timeouts, abort', () => {
  it('retries a refused connection, then reports the error', async () => {
    const url = await closedPortUrl();
    const failures: RetryEvent[] = [];
    const error = await request(url, {
      dispatcher: dispatcher({ ...base, onFailure: (e) => failures.push(e) }),
      headers: { 'x-priority': 'high' },
    }).catch((e: unknown) => e);
    expect(errorCode(error)).toBe('ECONNREFUSED');
    expect(failures).toHaveLength(6);
  });

  it('retries a per-try timeout, then reports a AttemptTimeoutError', async () => {
    const orders = await server(neverAnswer);
    const error = await request(orders.url, {
      dispatcher: dispatcher({ ...base, timeoutMs: 500 }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    await orders.received(2);
    expect(orders.requests).toHaveLength(2);
  });

  it('stops at once when the caller aborts during a wait', async () => {
    const orders = await server();
    const caller = new AbortController();
    const reason = new Error('caller gave up');
    const error = await request(orders.url, {
      dispatcher: dispatcher({
        ...base,
        backoff: { kind: 'constant', delayMs: 60_000 },
        onRetry: () => setImmediate(() => caller.abort(reason)),
      }),
      headers: { 'x-priority': 'high' },
      signal: caller.signal,
    }).catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(orders.requests).toHaveLength(1);
  });

  it('stops at once when the caller aborts during an attempt', async () => {
    const orders = await server(neverAnswer);
    const caller = new AbortController();
    const reason = new Error('caller gave up');
    void orders.received(1).then(() => caller.abort(reason));
    const error = await request(orders.url, {
      dispatcher: dispatcher(),
      headers: { 'x-priority': 'high' },
      signal: caller.signal,
    }).catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(orders.requests).toHaveLength(1);
  });
});
