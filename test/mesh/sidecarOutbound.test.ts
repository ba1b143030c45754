import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { bytes, neverAnswer, reply, sha256 } from '../runtime/loopback.js';
import { rawExchange } from './rawExchange.js';
import {
  app,
  closeAll,
  metricValue,
  outboundTo,
  send,
  sidecar,
  TEST_TIMEOUT_MS,
} from './sidecarFixtures.js';

// The sidecar's outbound listener: routing, what it forwards, bodies replayed for retries, which
// requests it retries, and the per-try timeouts and deadlines it gives up by.
// Real sockets on 127.0.0.1, port 0 only. Every request is bounded by an AbortSignal, and every
// server, sidecar and agent is closed after each test, so no test can hang the run
// (sidecarFixtures.ts).

afterEach(closeAll);

describe('sidecar: outbound forwarding', { timeout: TEST_TIMEOUT_MS }, () => {
  it('routes by prefix (stripped) and by Host, propagating class and deadline, not hop-by-hop headers', async () => {
    const service = await app((_req, res) =>
      reply(res, 200, 'ok', { connection: 'keep-alive', 'x-answer': '1' }),
    );
    const proxy = await sidecar(outboundTo(`${service.origin}/api`));
    const viaPrefix = await send(`${proxy.outboundUrl}/search/find?q=1`, {
      headers: {
        'x-priority': 'high',
        'x-difftry-deadline-ms': '5000',
        'x-kept': 'yes',
      },
    });
    const viaHost = await send(`${proxy.outboundUrl}/find`, { headers: { host: 'search' } });
    // undici never sends a Connection header of its own making: write this one by hand.
    const raw = await rawExchange(
      proxy.outboundUrl as string,
      'GET /search/raw HTTP/1.1\r\nHost: a\r\nConnection: close, x-hop\r\nX-Hop: gone\r\nKeep-Alive: 5\r\n\r\n',
    );
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect([viaPrefix.status, viaHost.status]).toStrictEqual([200, 200]);
    expect(viaPrefix.headers['x-answer']).toBe('1');
    const [first, second, third] = service.requests;
    expect(first?.headers['x-priority']).toBe('high');
    expect(first?.headers['x-kept']).toBe('yes');
    expect(third?.headers['x-hop']).toBeUndefined();
    expect(third?.headers['keep-alive']).toBeUndefined();
    const remaining = Number(first?.headers['x-difftry-deadline-ms']);
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(5000);
    // No class header: the default (lowest) class, set on the way out.
    expect(second?.headers['x-priority']).toBe('low');
    expect(second?.headers['x-difftry-deadline-ms']).toBeUndefined();
  });

  it('answers 404 for a request no upstream takes', async () => {
    const proxy = await sidecar(outboundTo('http://127.0.0.1:1'));
    const answer = await send(`${proxy.outboundUrl}/nowhere`);
    expect(answer.status).toBe(404);
    expect(answer.text).toContain('no upstream');
  });

  it('delivers a request body intact upstream after retries', async () => {
    const service = await app((_req, res, index) =>
      index < 2 ? reply(res, 503, 'busy') : reply(res, 200, 'stored'),
    );
    const proxy = await sidecar(outboundTo(service.origin));
    const body = bytes(200_000, 7);
    const answer = await send(`${proxy.outboundUrl}/search/orders`, {
      method: 'PUT',
      headers: { 'x-priority': 'high', 'content-type': 'application/octet-stream' },
      body,
    });
    expect(answer).toMatchObject({ status: 200, text: 'stored' });
    expect(service.requests).toHaveLength(3);
    for (const received of service.requests) {
      expect(received.bodyBytes).toBe(body.length);
      expect(received.bodyHash).toBe(sha256(body));
    }
  });

  it('replays a chunked body of unknown length too', async () => {
    const service = await app((_req, res, index) =>
      index < 1 ? reply(res, 503, 'busy') : reply(res, 200, 'ok'),
    );
    const proxy = await sidecar(outboundTo(service.origin));
    const parts = [bytes(1000, 1), bytes(3000, 2), bytes(10, 3)];
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      method: 'PUT',
      headers: { 'x-priority': 'low' },
      body: Readable.from(parts.map((p) => Buffer.from(p))),
    });
    expect(answer.status).toBe(200);
    const whole = Buffer.concat(parts.map((p) => Buffer.from(p)));
    expect(service.requests.map((r) => r.bodyHash)).toStrictEqual([sha256(whole), sha256(whole)]);
  });

  it('streams a body over replayBodyBytes through once, without retries', async () => {
    const service = await app((_req, res) => reply(res, 503, 'busy'));
    const proxy = await sidecar({
      ...outboundTo(service.origin),
      limits: { replayBodyBytes: 1000, maxBodyBytes: 100_000 },
    });
    const body = bytes(50_000, 3);
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      method: 'PUT',
      headers: { 'x-priority': 'high' },
      body,
    });
    expect(answer.status).toBe(503);
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]?.bodyHash).toBe(sha256(body));
    expect(
      await metricValue(
        proxy,
        'difftry_outbound_giveups_total{upstream="search",class="high",reason="unreplayable"',
      ),
    ).toBe(1);
  });

  it('does not retry a POST (not idempotent) unless the config lists it', async () => {
    const service = await app((_req, res) => reply(res, 503, 'busy'));
    const strict = await sidecar(outboundTo(service.origin));
    expect(
      (await send(`${strict.outboundUrl}/search/x`, { method: 'POST', body: 'a' })).status,
    ).toBe(503);
    expect(service.requests).toHaveLength(1);
    const lenient = await sidecar({ ...outboundTo(service.origin), methods: ['GET', 'POST'] });
    await send(`${lenient.outboundUrl}/search/x`, { method: 'POST', body: 'a' });
    expect(service.requests).toHaveLength(3); // 1 + (1 + low's 1 retry)
  });

  it('retries an upstream that closes the connection before answering, within the limit', async () => {
    // Mid-exchange: the request read, the connection closed, no response.
    const service = await app((req) => req.socket.destroy());
    const proxy = await sidecar(outboundTo(service.origin));
    const low = await send(`${proxy.outboundUrl}/search/x`, { headers: { 'x-priority': 'low' } });
    expect(low.status).toBe(503);
    expect(low.text).toMatch(/upstream search/);
    expect(service.requests).toHaveLength(2); // low: 1 + 1 retry
  });

  it('retries a response cut mid-headers and succeeds on the next attempt', async () => {
    const service = await app((_req, res, index) => {
      if (index === 0) {
        res.socket?.write('HTTP/1.1 200 OK\r\nContent-Le');
        res.socket?.destroy();
      } else reply(res, 200, 'whole');
    });
    const proxy = await sidecar(outboundTo(service.origin));
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      headers: { 'x-priority': 'high' },
    });
    expect(answer).toMatchObject({ status: 200, text: 'whole' });
    expect(service.requests).toHaveLength(2);
  });

  it('cuts the response of an upstream that closes mid-body, and keeps serving', async () => {
    const service = await app((_req, res, index) => {
      if (index === 0) {
        res.writeHead(200, { 'content-length': '100' });
        res.write('x'.repeat(10));
        setTimeout(() => res.socket?.destroy(), 20);
      } else reply(res, 200, 'next');
    });
    const proxy = await sidecar(outboundTo(service.origin));
    await expect(send(`${proxy.outboundUrl}/search/x`)).rejects.toThrow();
    expect(await send(`${proxy.outboundUrl}/search/y`)).toMatchObject({
      status: 200,
      text: 'next',
    });
  });

  it('gives up on an upstream that never answers after the per-try timeouts, with 504', async () => {
    const service = await app(neverAnswer);
    const proxy = await sidecar(outboundTo(service.origin, { timeoutMs: 50 }));
    // No clock here: the 504 naming the 50 ms per-try timeout and the 4 attempts are the
    // decision; `send` gives up after REQUEST_TIMEOUT_MS, which only catches a hang.
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      headers: { 'x-priority': 'high' },
    });
    expect(answer.status).toBe(504);
    expect(answer.text).toMatch(/timed out after 50 ms/);
    expect(service.requests).toHaveLength(4); // high: 1 + 3 retries
    expect(
      await metricValue(proxy, 'difftry_outbound_rejections_total{upstream="search",class="high"'),
    ).toBe(1);
  });

  it('takes its per-try timeouts from any TimeoutStrategy description', async () => {
    const service = await app(neverAnswer);
    const proxy = await sidecar(
      outboundTo(service.origin, { timeout: { kind: 'rto', initialMs: 40, minMs: 40 } }),
    );
    const before = await metricValue(
      proxy,
      'difftry_outbound_timeout_seconds{upstream="search",class="low"',
    );
    expect(before).toBe(0.04);
    const answer = await send(`${proxy.outboundUrl}/search/x`);
    expect(answer.status).toBe(504);
    expect(service.requests).toHaveLength(2); // low: 1 + 1 retry, each timed out
    // RTO backs off after timeouts (RFC 6298 §5.5): the next call starts with a longer one.
    const after = await metricValue(
      proxy,
      'difftry_outbound_timeout_seconds{upstream="search",class="low"',
    );
    expect(after).toBeGreaterThan(0.04);
  });

  it('stops at the deadline the caller sends', async () => {
    const service = await app(neverAnswer);
    const proxy = await sidecar(outboundTo(service.origin, { timeoutMs: 1000 }));
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      headers: { 'x-priority': 'high', 'x-difftry-deadline-ms': '60' },
    });
    expect(answer.status).toBe(504);
    expect(service.requests).toHaveLength(1);
  });

  it('answers 503 after the retries when the upstream refuses connections', async () => {
    const proxy = await sidecar(outboundTo('http://127.0.0.1:1'));
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      headers: { 'x-priority': 'high' },
    });
    expect(answer.status).toBe(503);
    expect(answer.text).toMatch(/ECONNREFUSED/);
  });
});
