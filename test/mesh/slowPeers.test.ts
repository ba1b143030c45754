import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { SidecarConfigInput } from '../../src/config/sidecarSchema.js';
import { type SidecarHandle, startSidecar } from '../../src/mesh/index.js';
import { type LoopbackServer, neverAnswer, reply, startServer } from '../runtime/loopback.js';

// Slow peers, on real sockets (127.0.0.1, port 0): a client that trickles its head
// or body, and an upstream that never answers or stalls mid-body, are cut within the configured
// bound (200 ms here) instead of Node's and undici's 300 s. Only "finished before a generous
// bound" is asserted, never a speed.

const TEST_TIMEOUT_MS = 15_000;
/** Far above every bound configured here, far below the 300 s defaults this replaces. */
const GENEROUS_MS = 5_000;
const BOUND_MS = 200;
const classes = [
  { name: 'high', retries: 1 },
  { name: 'low', retries: 0 },
];
const limits = { headersTimeoutMs: BOUND_MS, requestTimeoutMs: 2 * BOUND_MS };

const servers: LoopbackServer[] = [];
const sidecars: SidecarHandle[] = [];
const agents: Agent[] = [];
const sockets: ReturnType<typeof connect>[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(sidecars.splice(0).map((s) => s.close({ graceMs: 0 })));
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function app(respond: Parameters<typeof startServer>[0]): Promise<string> {
  const server = await startServer(respond);
  servers.push(server);
  return new URL(server.url).origin;
}

async function sidecar(config: Partial<SidecarConfigInput>): Promise<SidecarHandle> {
  const started = await startSidecar({
    service: 'frontend',
    classes,
    backoff: { kind: 'constant', delayMs: 0 },
    limits,
    ...config,
  });
  sidecars.push(started);
  return started;
}

/** One request on a fresh agent, bounded by GENEROUS_MS; the body is read whole. */
async function send(url: string): Promise<{ status: number; text: string }> {
  const agent = new Agent();
  agents.push(agent);
  const res = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(GENEROUS_MS) });
  return { status: res.statusCode, text: await res.body.text() };
}

/**
 * Opens a connection, writes `text` and then nothing more (a stalled client). Resolves with what
 * the server sent once it closes the connection; rejects after GENEROUS_MS.
 */
function stall(url: string, text: string): { connected: Promise<void>; closed: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the sidecar kept a stalled connection open for ${GENEROUS_MS} ms`));
    }, GENEROUS_MS);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {}); // a reset is a close too
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
  socket.write(text);
  return { connected, closed };
}

async function until(condition: () => boolean): Promise<void> {
  const end = performance.now() + GENEROUS_MS;
  while (!condition()) {
    if (performance.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The answer docs/mesh.md promises a client too slow with its head or body: 408, then a close. */
function timedOut(received: string): boolean {
  return received.startsWith('HTTP/1.1 408 Request Timeout');
}

describe('slow clients at the inbound listener', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('a client that stalls its headers is cut, and the listener then serves another', async () => {
    const origin = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: origin, concurrency: 1, capacity: 1 },
    });
    const url = proxy.inboundUrl as string;
    const stalled = stall(url, 'GET / HTTP/1.1\r\nHost: app\r\nx-slow: ');
    const received = await stalled.closed;
    expect(timedOut(received), received).toBe(true);
    expect(await send(`${url}/`)).toEqual({ status: 200, text: 'ok' });
  });

  it('a client that stalls its body holds no admission place, and is cut', async () => {
    const origin = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: origin, concurrency: 1, capacity: 1 },
    });
    const url = proxy.inboundUrl as string;
    const stalled = stall(
      url,
      'POST /upload HTTP/1.1\r\nHost: app\r\nContent-Length: 100000\r\n\r\nx',
    );
    // While it uploads it holds an upload place, not the one running place (c = m = 1)...
    await until(() => proxy.admission()?.uploading === 1);
    expect(proxy.admission()).toEqual({ running: 0, queued: 0, uploading: 1 });
    expect(await send(`${url}/`)).toEqual({ status: 200, text: 'ok' });
    // ...until the request timeout cuts it.
    const received = await stalled.closed;
    expect(timedOut(received), received).toBe(true);
    await until(() => proxy.admission()?.uploading === 0);
    expect(proxy.admission()).toEqual({ running: 0, queued: 0, uploading: 0 });
  });

  it('twenty trickling uploads at c = 4, m = 20 leave every place to other callers', async () => {
    const origin = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: origin, concurrency: 4, capacity: 20 },
    });
    const url = proxy.inboundUrl as string;
    const stalled = Array.from({ length: 20 }, () =>
      stall(url, 'POST /upload HTTP/1.1\r\nHost: app\r\nContent-Length: 100000\r\n\r\nx'),
    );
    await until(() => proxy.admission()?.uploading === 20);
    const others = await Promise.all(Array.from({ length: 8 }, () => send(`${url}/`)));
    expect(others).toEqual(Array.from({ length: 8 }, () => ({ status: 200, text: 'ok' })));
    const received = await Promise.all(stalled.map((s) => s.closed));
    for (const text of received) expect(timedOut(text), text).toBe(true);
    await until(() => proxy.admission()?.uploading === 0);
    expect(proxy.admission()).toEqual({ running: 0, queued: 0, uploading: 0 });
  });

  it('uploads beyond inbound.uploads get 503 at once, counted as a limit', async () => {
    const origin = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: origin, concurrency: 1, capacity: 5, uploads: 2 },
    });
    const url = proxy.inboundUrl as string;
    const stalled = Array.from({ length: 2 }, () =>
      stall(url, 'POST /upload HTTP/1.1\r\nHost: app\r\nContent-Length: 10\r\n\r\nx'),
    );
    await until(() => proxy.admission()?.uploading === 2);
    const third = stall(url, 'POST /upload HTTP/1.1\r\nHost: app\r\nContent-Length: 10\r\n\r\nx');
    const answer = await third.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toContain('receiving 2 request bodies already');
    const metrics = await proxy.registry.getSingleMetricAsString('difftry_limit_rejections_total');
    expect(metrics).toMatch(/limit="uploads"[^\n]*\} 1/);
    for (const s of stalled) await s.closed;
  });

  it('a body the application must not wait for arrives whole, large ones streamed', async () => {
    const server = await startServer((_req, res) => reply(res, 200, 'ok'));
    servers.push(server);
    const origin = new URL(server.url).origin;
    const proxy = await sidecar({
      limits: { ...limits, replayBodyBytes: 1000 },
      inbound: { listen: '127.0.0.1:0', app: origin, concurrency: 1, capacity: 2 },
    });
    const agent = new Agent();
    agents.push(agent);
    for (const size of [10, 1000, 5000]) {
      const res = await request(`${proxy.inboundUrl}/upload`, {
        method: 'POST',
        body: Buffer.alloc(size, 97),
        dispatcher: agent,
        signal: AbortSignal.timeout(GENEROUS_MS),
      });
      expect({ status: res.statusCode, text: await res.body.text() }).toEqual({
        status: 200,
        text: 'ok',
      });
    }
    expect(server.requests.map((r) => r.bodyBytes)).toEqual([10, 1000, 5000]);
  });
});

describe('slow upstreams at the outbound listener', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('an upstream that never answers gives the caller 504 after headersTimeoutMs', async () => {
    const origin = await app(neverAnswer);
    const proxy = await sidecar({
      outbound: {
        listen: '127.0.0.1:0',
        upstreams: [{ name: 'search', url: origin, headersTimeoutMs: BOUND_MS }],
      },
    });
    const answer = await send(`${proxy.outboundUrl}/search/find`);
    expect(answer.status).toBe(504);
    expect(answer.text).toContain('upstream search');
  });

  it('an upstream that stalls mid-body has its response cut after bodyTimeoutMs', async () => {
    const origin = await app((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
    });
    const proxy = await sidecar({
      outbound: {
        listen: '127.0.0.1:0',
        upstreams: [{ name: 'search', url: origin, bodyTimeoutMs: BOUND_MS }],
      },
    });
    await expect(send(`${proxy.outboundUrl}/search/find`)).rejects.toThrow();
    // The sidecar keeps serving: the next call gets its own (cut) answer, not a hang.
    await expect(send(`${proxy.outboundUrl}/search/find`)).rejects.toThrow();
  });
});

describe('a silent application behind the inbound listener', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('an application that never answers gives the caller 504 after appHeadersTimeoutMs', async () => {
    const origin = await app(neverAnswer);
    const proxy = await sidecar({
      inbound: {
        listen: '127.0.0.1:0',
        app: origin,
        concurrency: 1,
        capacity: 1,
        appHeadersTimeoutMs: BOUND_MS,
      },
    });
    const url = proxy.inboundUrl as string;
    const answer = await send(`${url}/`);
    expect(answer.status).toBe(504);
    // Its place came free: the next caller is not turned away with 503 while the first hangs.
    expect((await send(`${url}/`)).status).toBe(504);
  });
});
