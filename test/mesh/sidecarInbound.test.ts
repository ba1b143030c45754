import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSidecar } from '../../src/mesh/index.js';
import { reply } from '../runtime/loopback.js';
import {
  app,
  classes,
  closeAll,
  metricValue,
  outboundTo,
  send,
  sidecar,
  TEST_TIMEOUT_MS,
  waitFor,
} from './sidecarFixtures.js';

// The sidecar's inbound listener: how it classifies what comes in (edge rules, trusted peers, the
// mesh token) and how it admits it (c running, up to m in the system).
// Real sockets on 127.0.0.1, port 0 only. Every request is bounded by an AbortSignal, and every
// server, sidecar and agent is closed after each test, so no test can hang the run
// (sidecarFixtures.ts).

afterEach(closeAll);

describe('sidecar: classification (inbound)', { timeout: TEST_TIMEOUT_MS }, () => {
  it('at the edge, ignores the class header a client sends and classifies by the rules', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar(
      {
        inbound: {
          listen: '127.0.0.1:0',
          app: service.origin,
          capacity: 10,
          edge: {
            rules: [
              { path: '/reserve', class: 'high' },
              { header: 'x-api-key', valueEnv: 'PREMIUM_KEYS', class: 'high' },
            ],
            default: 'low',
          },
        },
      },
      { env: { PREMIUM_KEYS: 'k1, k2' } },
    );
    await send(`${proxy.inboundUrl}/search`, { headers: { 'x-priority': 'high' } });
    await send(`${proxy.inboundUrl}/reserve/7`, { headers: { 'x-priority': 'low' } });
    await send(`${proxy.inboundUrl}/search`, { headers: { 'x-api-key': 'k2' } });
    await send(`${proxy.inboundUrl}/search`, {
      headers: { 'x-api-key': 'k3', 'X-Priority': 'high' },
    });
    expect(service.requests.map((r) => r.headers['x-priority'])).toStrictEqual([
      'low',
      'high',
      'high',
      'low',
    ]);
  });

  it('inside the mesh, believes the class header of listed peers with the mesh token only', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      identity: { tokenEnv: 'MESH_TOKEN' },
      inbound: {
        listen: '127.0.0.1:0',
        app: service.origin,
        capacity: 10,
        trust: { peers: ['search'] },
      },
    });
    const cases: [Record<string, string>, string][] = [
      [{ 'x-priority': 'high' }, 'low'],
      [{ 'x-priority': 'high', 'x-difftry-peer': 'search;test-token' }, 'high'],
      [{ 'x-priority': 'high', 'x-difftry-peer': 'search;guess' }, 'low'],
      [{ 'x-priority': 'high', 'x-difftry-peer': 'geo;test-token' }, 'low'],
      [{ 'x-priority': 'platinum', 'x-difftry-peer': 'search;test-token' }, 'low'],
    ];
    for (const [headers] of cases) await send(`${proxy.inboundUrl}/x`, { headers });
    expect(service.requests.map((r) => r.headers['x-priority'])).toStrictEqual(
      cases.map(([, expected]) => expected),
    );
    // The token never reaches the application.
    expect(service.requests.every((r) => r.headers['x-difftry-peer'] === undefined)).toBe(true);
  });

  it('carries the class from one sidecar to the next, which an outsider cannot do', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const callee = await sidecar({
      service: 'search',
      identity: { tokenEnv: 'MESH_TOKEN' },
      inbound: {
        listen: '127.0.0.1:0',
        app: service.origin,
        capacity: 10,
        trust: { peers: ['frontend'] },
      },
    });
    const caller = await sidecar({
      identity: { tokenEnv: 'MESH_TOKEN' },
      ...outboundTo(callee.inboundUrl as string),
    });
    const impostor = await sidecar(
      { identity: { tokenEnv: 'MESH_TOKEN' }, ...outboundTo(callee.inboundUrl as string) },
      { env: { MESH_TOKEN: 'wrong' } },
    );
    await send(`${caller.outboundUrl}/search/find`, { headers: { 'x-priority': 'high' } });
    await send(`${impostor.outboundUrl}/search/find`, { headers: { 'x-priority': 'high' } });
    await send(`${callee.inboundUrl}/find`, {
      headers: { 'x-priority': 'high', 'x-difftry-peer': 'frontend;nope' },
    });
    expect(service.requests.map((r) => r.headers['x-priority'])).toStrictEqual([
      'high',
      'low',
      'low',
    ]);
  });

  it('sends the mesh token to sidecars of the mesh only, never to an upstream outside it', async () => {
    const inside = await app((_req, res) => reply(res, 200));
    const outside = await app((_req, res) => reply(res, 200));
    const proxy = await sidecar({
      identity: { tokenEnv: 'MESH_TOKEN' },
      outbound: {
        listen: '127.0.0.1:0',
        upstreams: [
          { name: 'search', url: inside.origin },
          { name: 'payments', url: outside.origin, mesh: false },
        ],
      },
    });
    await send(`${proxy.outboundUrl}/search/x`, { headers: { 'x-difftry-peer': 'forged;x' } });
    await send(`${proxy.outboundUrl}/payments/x`, { headers: { 'x-difftry-peer': 'forged;x' } });
    expect(inside.requests[0]?.headers['x-difftry-peer']).toBe('frontend;test-token');
    expect(outside.requests[0]?.headers['x-difftry-peer']).toBeUndefined();
  });

  it('refuses to start when the mesh token variable is not set, naming it', async () => {
    await expect(
      startSidecar(
        {
          service: 'a',
          classes,
          identity: { tokenEnv: 'MESH_TOKEN' },
          ...outboundTo('http://127.0.0.1:1'),
        },
        { env: {}, source: 'a.yaml' },
      ),
    ).rejects.toThrow(
      'a.yaml: identity.tokenEnv: environment variable MESH_TOKEN is not set, expected the mesh token',
    );
  });
});

describe('sidecar: admission (inbound)', { timeout: TEST_TIMEOUT_MS }, () => {
  it('runs c, queues up to m in the system, and rejects the next one at once with 503', async () => {
    const held: ServerResponse[] = [];
    const service = await app((_req, res) => held.push(res));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, concurrency: 1, capacity: 3 },
    });
    const url = `${proxy.inboundUrl}/work`;
    const admitted = [1, 2, 3].map((i) => send(`${url}/${i}`));
    await service.received(1);
    await waitFor(() => proxy.admission()?.queued === 2);
    expect(proxy.admission()).toStrictEqual({ running: 1, queued: 2, uploading: 0 });
    // m = 3 are in the system: the fourth is rejected before the application sees it.
    const rejected = await send(`${url}/4`);
    expect(rejected.status).toBe(503);
    expect(rejected.text).toMatch(/at capacity \(3 requests in the system\)/);
    expect(service.requests).toHaveLength(1);
    // Served one at a time, in arrival order, as slots free up.
    for (let i = 1; i <= 3; i++) {
      await service.received(i);
      reply(held[i - 1] as ServerResponse, 200, `done ${i}`);
    }
    expect((await Promise.all(admitted)).map((a) => a.text)).toStrictEqual([
      'done 1',
      'done 2',
      'done 3',
    ]);
    expect(await metricValue(proxy, 'difftry_inbound_admission_rejections_total{class="low"')).toBe(
      1,
    );
    expect(await metricValue(proxy, 'difftry_inbound_requests_total{class="low"')).toBe(4);
  });

  it('takes a queued request out when its caller goes away, and frees a slot when a running one does', async () => {
    const held: ServerResponse[] = [];
    const service = await app((_req, res) => held.push(res));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, concurrency: 1, capacity: 2 },
    });
    const running = new AbortController();
    const queued = new AbortController();
    const first = request(`${proxy.inboundUrl}/a`, { signal: running.signal }).catch(() => {});
    await service.received(1);
    const second = request(`${proxy.inboundUrl}/b`, { signal: queued.signal }).catch(() => {});
    await waitFor(() => proxy.admission()?.queued === 1);
    queued.abort();
    await waitFor(() => proxy.admission()?.queued === 0);
    running.abort(); // e.g. the caller's per-try timeout
    await waitFor(() => proxy.admission()?.running === 0);
    await Promise.all([first, second]);
    const next = send(`${proxy.inboundUrl}/c`);
    await service.received(2);
    reply(held[1] as ServerResponse, 200, 'c');
    expect((await next).text).toBe('c');
  });
});
