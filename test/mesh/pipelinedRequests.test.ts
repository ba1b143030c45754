import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import { createInbound } from '../../src/mesh/inbound.js';
import type { SidecarHandle } from '../../src/mesh/index.js';
import { splitRequestHead } from '../../src/mesh/requestHead.js';
import { createSidecarMetrics } from '../../src/mesh/sidecarMetrics.js';
import { classTable } from '../../src/policy/classes/ClassTable.js';
import { type LoopbackServer, reply, startServer } from '../runtime/loopback.js';
import { startInboundSidecar, type TestInbound } from './inboundSidecar.js';
import { rawExchange } from './rawExchange.js';

// Found by the fuzzing suite: requests that node:http answers or queues in ways the
// sidecar did not expect must still give back every place they took. Pipelined requests on a
// connection that then closes, a target the application's pool cannot be sent, a request undici
// refuses to build. Real sockets on 127.0.0.1, port 0; a plain probe afterwards must be served.

const TEST_TIMEOUT_MS = 15_000;

const servers: LoopbackServer[] = [];
const sidecars: SidecarHandle[] = [];
const plainServers: Server[] = [];
afterEach(async () => {
  await Promise.all(sidecars.splice(0).map((s) => s.close({ graceMs: 0 })));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const server of plainServers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function probe(url: string): Promise<string> {
  const answer = await rawExchange(
    url,
    'GET /probe HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
  );
  return answer.split('\r\n', 1)[0] as string;
}

async function sidecarFor(inbound: TestInbound) {
  const app = await startServer((_req, res) => setTimeout(() => reply(res, 200, 'ok'), 20));
  servers.push(app);
  const sidecar = await startInboundSidecar(new URL(app.url).origin, {
    concurrency: 2,
    capacity: 8,
    ...inbound,
  });
  sidecars.push(sidecar);
  return { sidecar, app, url: sidecar.inboundUrl as string };
}

async function inFlight(sidecar: SidecarHandle): Promise<string> {
  return sidecar.registry.getSingleMetricAsString('difftry_in_flight_requests');
}

describe('pipelined requests on a connection that goes away', { timeout: TEST_TIMEOUT_MS }, () => {
  const edge = { edge: { rules: [{ path: '/premium', class: 'high' }], default: 'low' } };
  it.each([
    [
      'two requests, then a half-close',
      'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n',
    ],
    [
      'one without Host (node:http answers 400), then one',
      'GET /x HTTP/1.1\r\n\r\nGET /premium/y HTTP/1.1\r\nHost: a\r\n\r\n',
    ],
    [
      'two requests, then bytes that do not parse',
      'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\nGARBAGE\r\n\r\n',
    ],
  ])('%s: every place comes back, twice over c', async (_what, text) => {
    for (const config of [{}, edge]) {
      const { sidecar, url } = await sidecarFor(config);
      // c = 2: before the fix, two such connections left no place for anyone.
      for (let i = 0; i < 3; i++) await rawExchange(url, text, { end: true });
      expect(await probe(url)).toBe('HTTP/1.1 200 OK');
      await expect.poll(() => sidecar.admission()).toEqual({ running: 0, queued: 0, uploading: 0 });
      expect(await inFlight(sidecar)).toMatch(/listener="inbound"[^\n]*\} 0/);
    }
  });

  it('never answers a request still in flight with the 400 of a later one', async () => {
    const { url } = await sidecarFor({});
    const answer = await rawExchange(url, 'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGARBAGE\r\n\r\n');
    expect(answer.startsWith('HTTP/1.1 400')).toBe(false);
  });
});

describe('pipelined requests behind one with a body', { timeout: TEST_TIMEOUT_MS }, () => {
  it('are admitted in their order on the connection, so c = 1 cannot deadlock', async () => {
    // Found by the fuzzing suite: bodies are read before admission, so GET /y (no body) took the
    // one place while POST /x read its byte; node:http writes /x's response first, and /x waited
    // for /y's place: neither answered while the client stayed connected.
    const { sidecar, app, url } = await sidecarFor({ concurrency: 1 });
    const answer = await rawExchange(
      url,
      'POST /x HTTP/1.1\r\nHost: a\r\ncontent-length: 1\r\n\r\n<' +
        'GET /y HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(answer.match(/HTTP\/1\.1 200 OK/g)?.length).toBe(2);
    expect(app.requests.map((r) => r.method)).toStrictEqual(['POST', 'GET']);
    expect(sidecar.admission()).toEqual({ running: 0, queued: 0, uploading: 0 });
  });
});

describe('targets the application’s pool cannot be sent, inside the mesh', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it.each([
    ['GET HTTP://shop:1/x?q HTTP/1.1', 200, 'shop:1'],
    ['GET Https://shop/x HTTP/1.1', 200, 'shop'],
    ['GET ftp://shop/x HTTP/1.1', 400, undefined],
  ])('%s gets %d, and c = 1 still serves the next', async (line, status, host) => {
    const { url, app } = await sidecarFor({ concurrency: 1 });
    for (let i = 0; i < 2; i++) {
      const answer = await rawExchange(url, `${line}\r\nHost: f\r\nConnection: close\r\n\r\n`);
      expect(answer.split('\r\n', 1)[0]).toBe(
        `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Bad Request'}`,
      );
    }
    expect(await probe(url)).toBe('HTTP/1.1 200 OK');
    // The absolute form's authority is the Host the application sees; a refused one never arrives.
    const hosts = app.requests.map((r) => r.headers.host);
    expect(hosts).toStrictEqual(host === undefined ? ['a'] : [host, host, 'a']);
  });
});

describe('a request undici refuses to build', { timeout: TEST_TIMEOUT_MS }, () => {
  it('gets 400, and costs a fresh pool rather than every later request (c = 1)', async () => {
    // Nothing a client sends reaches dispatch in such a shape any more; the defence is checked by
    // handing the inbound a header undici refuses (a control character), behind a real listener.
    const app = await startServer((_req, res) => reply(res, 200, 'ok'));
    servers.push(app);
    const spec = checkSidecarConfig({
      service: 'frontend',
      classes: [{ name: 'low', retries: 0 }],
      inbound: { listen: '127.0.0.1:0', app: new URL(app.url).origin, concurrency: 1, capacity: 4 },
    });
    const classes = classTable({ low: { retries: 0 } }, 'low');
    const metrics = createSidecarMetrics({
      service: 'frontend',
      classes: classes.names,
      upstreams: [],
      inbound: true,
      gauges: {
        timeoutMs: () => undefined,
        admission: () => ({ running: 0, queued: 0 }),
        inFlight: () => 0,
      },
    });
    const inbound = createInbound({
      service: 'frontend',
      inbound: spec.inbound as NonNullable<typeof spec.inbound>,
      limits: spec.limits,
      classHeader: 'x-priority',
      classes,
      clock: Date.now,
      metrics,
    });
    const names = {
      classHeader: 'x-priority',
      deadlineHeader: 'x-difftry-deadline-ms',
      peerHeader: 'x-difftry-peer',
    };
    const server = createServer((req, res) => {
      const head = splitRequestHead(req.rawHeaders, names);
      if (req.url === '/bad') head.headers['x-bad'] = 'a\u0001b';
      inbound.handle(req, res, head);
    });
    plainServers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (let i = 0; i < 3; i++) {
      const answer = await rawExchange(
        url,
        'GET /bad HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
      );
      expect(answer.split('\r\n', 1)[0]).toBe('HTTP/1.1 400 Bad Request');
    }
    expect(await probe(url)).toBe('HTTP/1.1 200 OK');
    expect(inbound.gate.active).toBe(0);
    await inbound.close();
  });
});
