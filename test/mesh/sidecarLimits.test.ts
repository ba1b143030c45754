import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { bytes, reply } from '../runtime/loopback.js';
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

// The sidecar's limits on what a request may carry (body bytes, header lines, header bytes) and
// its answer to a malformed request, at both listeners.
// Real sockets on 127.0.0.1, port 0 only. Every request is bounded by an AbortSignal, and every
// server, sidecar and agent is closed after each test, so no test can hang the run
// (sidecarFixtures.ts).

afterEach(closeAll);

describe('sidecar: limits', { timeout: TEST_TIMEOUT_MS }, () => {
  const limits = { maxHeaderBytes: 4096, maxHeaders: 20, maxBodyBytes: 1000, replayBodyBytes: 500 };

  it('answers 413 to a declared body over maxBodyBytes, before reading it', async () => {
    const service = await app((_req, res) => reply(res, 200));
    const proxy = await sidecar({ ...outboundTo(service.origin), limits });
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      method: 'PUT',
      body: bytes(1001),
    });
    expect(answer.status).toBe(413);
    expect(service.requests).toHaveLength(0);
  });

  it.each([
    ['buffered (over the limit while reading)', 600, 2],
    ['streamed (over the limit after the replay part)', 400, 3],
  ])('answers 413 to a chunked body over maxBodyBytes, %s', async (_how, chunk, count) => {
    const service = await app((_req, res) => reply(res, 200));
    const proxy = await sidecar({ ...outboundTo(service.origin), limits });
    const answer = await send(`${proxy.outboundUrl}/search/x`, {
      method: 'PUT',
      body: Readable.from(Array.from({ length: count }, () => Buffer.from(bytes(chunk)))),
    });
    // The sidecar answers 413 and closes the connection (the rest of the body is not read).
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(
      await metricValue(
        proxy,
        'difftry_limit_rejections_total{listener="outbound",limit="body_bytes"',
      ),
    ).toBe(1);
    expect(service.requests.filter((r) => r.bodyBytes > 1000)).toHaveLength(0);
    expect(await send(`${proxy.outboundUrl}/search/ok`)).toMatchObject({ status: 200 });
  });

  it('answers 413 to a chunked body over maxBodyBytes at the inbound listener too', async () => {
    const service = await app((_req, res) => reply(res, 200));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
      limits,
    });
    const answer = await send(`${proxy.inboundUrl}/x`, {
      method: 'PUT',
      body: Readable.from([Buffer.from(bytes(800)), Buffer.from(bytes(800))]),
    });
    expect(answer.status).toBe(413);
    expect(service.requests.filter((r) => r.bodyBytes > 1000)).toHaveLength(0);
  });

  it('answers 431 to more header lines than maxHeaders', async () => {
    const service = await app((_req, res) => reply(res, 200));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
      limits,
    });
    const headers = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`x-h${i}`, 'v']));
    expect((await send(`${proxy.inboundUrl}/x`, { headers })).status).toBe(431);
    expect(service.requests).toHaveLength(0);
  });

  it('answers 431 to headers over maxHeaderBytes', async () => {
    const service = await app((_req, res) => reply(res, 200));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
      limits,
    });
    const answer = await rawExchange(
      proxy.inboundUrl as string,
      `GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(8000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(service.requests).toHaveLength(0);
    expect(
      await metricValue(
        proxy,
        'difftry_limit_rejections_total{listener="inbound",limit="header_bytes"',
      ),
    ).toBe(1);
  });

  it('answers 400 to a malformed request and keeps serving', async () => {
    const service = await app((_req, res) => reply(res, 200, 'fine'));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
    });
    expect(await rawExchange(proxy.inboundUrl as string, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    expect(await send(`${proxy.inboundUrl}/x`)).toMatchObject({ status: 200, text: 'fine' });
  });
});
