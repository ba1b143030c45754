import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSidecar } from '../../src/mesh/index.js';
import { neverAnswer, reply, settle } from '../runtime/loopback.js';
import {
  app,
  classes,
  closeAll,
  outboundTo,
  send,
  sidecar,
  TEST_TIMEOUT_MS,
  waitFor,
} from './sidecarFixtures.js';

// The sidecar's /metrics and /healthz (on its listeners or admin.listen), and its shutdown: an
// in-flight request drained, or cut when the grace period ends.
// Real sockets on 127.0.0.1, port 0 only. Every request is bounded by an AbortSignal, and every
// server, sidecar and agent is closed after each test, so no test can hang the run
// (sidecarFixtures.ts).

afterEach(closeAll);

describe('sidecar: metrics, health and shutdown', { timeout: TEST_TIMEOUT_MS }, () => {
  it('exposes per-upstream-and-class counters, latency and the current timeout at /metrics', async () => {
    const service = await app((_req, res, index) =>
      index === 0 ? reply(res, 503, 'busy') : reply(res, 200, 'ok'),
    );
    const proxy = await sidecar(outboundTo(service.origin, { timeoutMs: 250 }));
    await send(`${proxy.outboundUrl}/search/x`, { headers: { 'x-priority': 'high' } });
    await send(`${proxy.outboundUrl}/search/y`);
    const metrics = await send(`${proxy.outboundUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    for (const line of [
      'difftry_outbound_requests_total{upstream="search",class="high",service="frontend"} 1',
      'difftry_outbound_attempts_total{upstream="search",class="high",service="frontend"} 2',
      'difftry_outbound_retries_total{upstream="search",class="high",service="frontend"} 1',
      'difftry_outbound_requests_total{upstream="search",class="low",service="frontend"} 1',
      'difftry_outbound_attempts_total{upstream="search",class="low",service="frontend"} 1',
      'difftry_outbound_rejections_total{upstream="search",class="low",service="frontend"} 0',
      'difftry_outbound_latency_seconds_count{service="frontend",upstream="search",class="high"} 1',
      'difftry_outbound_timeout_seconds{upstream="search",class="high",service="frontend"} 0.25',
    ]) {
      expect(metrics.text).toContain(line);
    }
    const health = await send(`${proxy.outboundUrl}/healthz`);
    expect(health).toMatchObject({ status: 200, text: 'ok\n' });
  });

  it('serves /metrics and /healthz on admin.listen when given, and not on the others', async () => {
    const service = await app((_req, res) => reply(res, 200, 'from the app'));
    const proxy = await sidecar({
      ...outboundTo(service.origin),
      inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
      admin: { listen: '127.0.0.1:0' },
    });
    expect((await send(`${proxy.adminUrl}/metrics`)).text).toContain(
      'difftry_inbound_requests_total',
    );
    expect((await send(`${proxy.inboundUrl}/healthz`)).text).toBe('from the app');
    expect((await send(`${proxy.outboundUrl}/healthz`)).status).toBe(404);
  });

  it('answers /metrics before path prefixes, but after Host routing', async () => {
    const service = await app((req, res) => reply(res, 200, `app saw ${req.url}`));
    const proxy = await sidecar(outboundTo(service.origin, { prefix: '/' }));
    expect((await send(`${proxy.outboundUrl}/metrics?x=1`)).text).toContain('difftry_');
    expect((await send(`${proxy.outboundUrl}/other`)).text).toBe('app saw /other');
    const viaHost = await send(`${proxy.outboundUrl}/healthz`, { headers: { host: 'search' } });
    expect(viaHost.text).toBe('app saw /healthz');
  });

  it('drains an in-flight request on close, refusing new connections meanwhile', async () => {
    const held: ServerResponse[] = [];
    const service = await app((_req, res) => held.push(res));
    const proxy = await startSidecar(
      {
        service: 'frontend',
        classes,
        inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
      },
      {},
    );
    const inFlight = send(`${proxy.inboundUrl}/slow`);
    await service.received(1);
    let closed = false;
    const closing = proxy.close({ graceMs: 10_000 }).then(() => {
      closed = true;
    });
    await settle();
    await expect(send(`${proxy.inboundUrl}/new`)).rejects.toThrow();
    expect(closed).toBe(false);
    reply(held[0] as ServerResponse, 200, 'finished');
    const answer = await inFlight;
    expect(answer).toMatchObject({ status: 200, text: 'finished' });
    expect(answer.headers.connection).toBe('close');
    await closing;
    expect(closed).toBe(true);
  });

  it('cuts what is still in flight when the grace period ends', async () => {
    const service = await app(neverAnswer);
    const proxy = await startSidecar(
      {
        service: 'frontend',
        classes,
        inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 5 },
      },
      {},
    );
    let cut = false;
    const inFlight = send(`${proxy.inboundUrl}/stuck`)
      .catch((error: unknown) => error)
      .finally(() => {
        cut = true;
      });
    await service.received(1);
    // The grace period on fake timers (the sockets stay real): the stuck request is waited for
    // through 49 ms and cut at 50.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let closed = false;
    const closing = proxy.close({ graceMs: 50 }).then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(49);
    await settle();
    expect({ closed, cut }).toEqual({ closed: false, cut: false });
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    await waitFor(() => closed && cut);
    await closing;
    // Cut by the sidecar (the socket closed under it), not by the client's own give-up.
    expect(await inFlight).toMatchObject({ code: 'UND_ERR_SOCKET' });
  });
});
