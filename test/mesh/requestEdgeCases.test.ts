import { Agent, request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SidecarConfigInput } from '../../src/config/sidecarSchema.js';
import { type SidecarHandle, startSidecar } from '../../src/mesh/index.js';
import { type LoopbackServer, type Responder, reply, startServer } from '../runtime/loopback.js';
import { rawExchange, statusOf } from './rawExchange.js';

// Small correctness items at the sidecar's listeners. Real sockets on
// 127.0.0.1, port 0; requests a client library would refuse to send go as raw bytes.

const TEST_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 5_000;
const classes = [
  { name: 'high', retries: 3 },
  { name: 'low', retries: 1 },
];

const servers: LoopbackServer[] = [];
const sidecars: SidecarHandle[] = [];

afterEach(async () => {
  await Promise.all(sidecars.splice(0).map((s) => s.close({ graceMs: 0 })));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function app(respond: Responder): Promise<LoopbackServer & { origin: string }> {
  const server = await startServer(respond);
  servers.push(server);
  return Object.assign(server, { origin: new URL(server.url).origin });
}

async function sidecar(config: Partial<SidecarConfigInput>): Promise<SidecarHandle> {
  const started = await startSidecar(
    { service: 'frontend', classes, backoff: { kind: 'constant', delayMs: 0 }, ...config },
    { env: {} },
  );
  sidecars.push(started);
  return started;
}

async function inboundTo(origin: string): Promise<SidecarHandle> {
  return sidecar({ inbound: { listen: '127.0.0.1:0', app: origin, capacity: 10 } });
}

describe('sidecar: request edge cases', { timeout: TEST_TIMEOUT_MS }, () => {
  it('answers OPTIONS * on the inbound listener with 400, never forwarding it', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await inboundTo(service.origin);
    const answer = await rawExchange(
      proxy.inboundUrl as string,
      'OPTIONS * HTTP/1.1\r\nHost: frontend\r\nConnection: close\r\n\r\n',
    );
    expect(statusOf(answer), answer).toBe(400);
    expect(service.requests).toHaveLength(0);
  });
});

describe('sidecar: CONNECT', { timeout: TEST_TIMEOUT_MS }, () => {
  it('answers CONNECT with 405 and Allow at both listeners, forwarding nothing', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: service.origin, capacity: 10 },
      outbound: { listen: '127.0.0.1:0', upstreams: [{ name: 'search', url: service.origin }] },
    });
    for (const url of [proxy.inboundUrl, proxy.outboundUrl] as string[]) {
      const answer = await rawExchange(
        url,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      );
      expect(statusOf(answer), answer).toBe(405);
      expect(answer).toMatch(/\r\nAllow: GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH\r\n/);
    }
    expect(service.requests).toHaveLength(0);
  });
});

describe('sidecar: transfer codings', { timeout: TEST_TIMEOUT_MS }, () => {
  it.each(['gzip, chunked', 'deflate,chunked'])(
    'answers Transfer-Encoding: %s with 501 at the inbound listener, forwarding nothing',
    async (coding) => {
      const service = await app((_req, res) => reply(res, 200, 'ok'));
      const proxy = await inboundTo(service.origin);
      const answer = await rawExchange(
        proxy.inboundUrl as string,
        `POST /x HTTP/1.1\r\nHost: frontend\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
      );
      expect(statusOf(answer), answer).toBe(501);
      expect(service.requests).toHaveLength(0);
    },
  );

  it.each(['gzip, chunked', 'deflate,chunked'])(
    'answers Transfer-Encoding: %s with 501 at the outbound listener, forwarding nothing',
    async (coding) => {
      const service = await app((_req, res) => reply(res, 200, 'ok'));
      const proxy = await sidecar({
        outbound: { listen: '127.0.0.1:0', upstreams: [{ name: 'search', url: service.origin }] },
      });
      const answer = await rawExchange(
        proxy.outboundUrl as string,
        `POST /search/x HTTP/1.1\r\nHost: frontend\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
      );
      expect(statusOf(answer), answer).toBe(501);
      expect(service.requests).toHaveLength(0);
    },
  );

  it('still forwards a body in chunked alone (any case)', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await inboundTo(service.origin);
    const answer = await rawExchange(
      proxy.inboundUrl as string,
      'POST /x HTTP/1.1\r\nHost: frontend\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    );
    expect(statusOf(answer), answer).toBe(200);
    expect(service.requests).toHaveLength(1);
  });
});

// RFC 9112 §3.2: a server MUST answer 400 to a request with more than one Host line or an invalid
// Host. node:http keeps the first of two (`req.headers.host`) and checks no value, so an edge rule,
// a host route or the application could each read a different host.
describe('sidecar: Host (RFC 9112 §3.2)', { timeout: TEST_TIMEOUT_MS }, () => {
  const badHosts: readonly (readonly [label: string, lines: string])[] = [
    ['two Host lines', 'Host: frontend\r\nHost: admin\r\n'],
    ['two Host lines, one empty', 'Host: frontend\r\nhost:\r\n'],
    ['a Host with "/"', 'Host: a/b\r\n'],
    ['a Host with "@"', 'Host: user@frontend\r\n'],
    ['a Host with "?"', 'Host: frontend?x\r\n'],
    ['a Host with "#"', 'Host: frontend#x\r\n'],
    ['a Host with "\\"', 'Host: a\\b\r\n'],
    ['a Host with a space', 'Host: a b\r\n'],
    ['a Host with a tab', 'Host: a\tb\r\n'],
    ['a Host with a non-numeric port', 'Host: frontend:8o\r\n'],
    ['a Host with a percent-escape', 'Host: a%2Fb\r\n'],
  ];

  /** Each listener of one sidecar (edge inbound, mesh inbound, outbound), before `origin`. */
  async function listeners(origin: string): Promise<readonly (readonly [string, string])[]> {
    const edge = await sidecar({
      inbound: {
        listen: '127.0.0.1:0',
        app: origin,
        capacity: 10,
        edge: { rules: [{ path: '/premium', class: 'high' }], default: 'low' },
      },
    });
    const mesh = await sidecar({
      inbound: { listen: '127.0.0.1:0', app: origin, capacity: 10 },
      outbound: { listen: '127.0.0.1:0', upstreams: [{ name: 'search', url: origin }] },
    });
    return [
      ['edge inbound', edge.inboundUrl as string],
      ['mesh inbound', mesh.inboundUrl as string],
      ['outbound', mesh.outboundUrl as string],
    ];
  }

  it.each(badHosts)(
    'answers %s with 400 at every listener, forwarding nothing',
    async (label, lines) => {
      const service = await app((_req, res) => reply(res, 200, 'ok'));
      for (const [listener, url] of await listeners(service.origin)) {
        const answer = await rawExchange(
          url,
          `GET /search/premium/x HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`,
        );
        expect({ label, listener, status: statusOf(answer) }, answer).toStrictEqual({
          label,
          listener,
          status: 400,
        });
      }
      expect(service.requests).toHaveLength(0);
    },
  );

  it.each([
    'Host: frontend\r\n',
    'Host: frontend:8080\r\n',
    'Host: search\r\n',
    'Host: 127.0.0.1:80\r\n',
    'Host: [::1]:80\r\n',
    'Host: my_service.internal\r\n',
    'Host:\r\n',
  ])('still serves %j at every listener', async (lines) => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    for (const [listener, url] of await listeners(service.origin)) {
      const answer = await rawExchange(
        url,
        `GET /search/premium/x HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`,
      );
      expect({ listener, status: statusOf(answer) }, answer).toStrictEqual({
        listener,
        status: 200,
      });
    }
  });

  it.each(['http://a%2Fb/search/x', 'http://search:8o/search/x', 'http://a\\b/search/x'])(
    'answers the absolute-form target %s (an invalid authority) with 400 at every listener',
    async (target) => {
      const service = await app((_req, res) => reply(res, 200, 'ok'));
      for (const [listener, url] of await listeners(service.origin)) {
        const answer = await rawExchange(
          url,
          `GET ${target} HTTP/1.1\r\nHost: frontend\r\nConnection: close\r\n\r\n`,
        );
        expect({ listener, status: statusOf(answer) }, answer).toStrictEqual({
          listener,
          status: 400,
        });
      }
      expect(service.requests).toHaveLength(0);
    },
  );
});

/** The value of the series named `name` whose labels include every one of `labels`. */
async function metricValue(
  handle: SidecarHandle,
  name: string,
  labels: readonly string[],
): Promise<number | undefined> {
  const text = await handle.registry.metrics();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The count of a histogram's series whose labels include every one of `labels`. */
async function histogramCount(
  handle: SidecarHandle,
  name: string,
  labels: readonly string[],
): Promise<number | undefined> {
  const text = await handle.registry.metrics();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}_count{`) && labels.every((label) => l.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('sidecar: cut responses are measured', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('records a response the application cut mid-body in the inbound latency histogram', async () => {
    const service = await app((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
    });
    const proxy = await inboundTo(service.origin);
    const answer = await rawExchange(
      proxy.inboundUrl as string,
      'GET /x HTTP/1.1\r\nHost: frontend\r\nConnection: close\r\n\r\n',
    );
    expect(statusOf(answer), answer).toBe(200);
    expect(answer.endsWith('partial'), answer).toBe(true);
    // The sidecar may see its response close just after the client does.
    await vi.waitFor(async () => {
      expect(await histogramCount(proxy, 'difftry_inbound_latency_seconds', ['class="low"'])).toBe(
        1,
      );
    });
  });
});

describe('sidecar: cut responses are measured at the outbound listener too', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('records a response the upstream cut mid-body in the outbound latency histogram', async () => {
    const service = await app((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
    });
    const proxy = await sidecar({
      outbound: { listen: '127.0.0.1:0', upstreams: [{ name: 'search', url: service.origin }] },
    });
    const answer = await rawExchange(
      proxy.outboundUrl as string,
      'GET /search/x HTTP/1.1\r\nHost: frontend\r\nx-priority: high\r\nConnection: close\r\n\r\n',
    );
    expect(statusOf(answer), answer).toBe(200);
    await vi.waitFor(async () => {
      expect(
        await histogramCount(proxy, 'difftry_outbound_latency_seconds', [
          'upstream="search"',
          'class="high"',
        ]),
      ).toBe(1);
    });
  });
});

describe('sidecar: a spent deadline', { timeout: TEST_TIMEOUT_MS }, () => {
  it('answers a deadline header of 0 with 504, sending and counting no attempt', async () => {
    const service = await app((_req, res) => reply(res, 200, 'ok'));
    const proxy = await sidecar({
      outbound: {
        listen: '127.0.0.1:0',
        upstreams: [{ name: 'search', url: service.origin }],
      },
    });
    const answer = await rawExchange(
      proxy.outboundUrl as string,
      'GET /search/x HTTP/1.1\r\nHost: frontend\r\nx-priority: high\r\nx-difftry-deadline-ms: 0\r\nConnection: close\r\n\r\n',
    );
    expect(statusOf(answer), answer).toBe(504);
    expect(service.requests).toHaveLength(0);
    const labels = ['upstream="search"', 'class="high"'];
    expect(await metricValue(proxy, 'difftry_outbound_requests_total', labels)).toBe(1);
    expect(await metricValue(proxy, 'difftry_outbound_attempts_total', labels)).toBe(0);
    expect(
      await metricValue(proxy, 'difftry_outbound_giveups_total', [...labels, 'reason="deadline"']),
    ).toBe(1);
  });
});

describe('sidecar: why a streamed call was not retried', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it.each([
    ['POST', 'non-idempotent'],
    ['PUT', 'unreplayable'],
  ])('counts a rejected 2 MB %s as give-up %s', async (method, reason) => {
    const service = await app((_req, res) => reply(res, 503, 'busy'));
    const proxy = await sidecar({
      outbound: { listen: '127.0.0.1:0', upstreams: [{ name: 'search', url: service.origin }] },
    });
    const agent = new Agent();
    try {
      const res = await request(`${proxy.outboundUrl}/search/x`, {
        dispatcher: agent,
        method: method as 'POST',
        headers: { 'x-priority': 'high' },
        body: Buffer.alloc(2 * 1024 * 1024, 7),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await res.body.text();
      expect(res.statusCode).toBe(503);
    } finally {
      await agent.destroy();
    }
    expect(service.requests).toHaveLength(1);
    const labels = ['upstream="search"', 'class="high"'];
    const giveUps = async (why: string) =>
      metricValue(proxy, 'difftry_outbound_giveups_total', [...labels, `reason="${why}"`]);
    expect(await giveUps(reason)).toBe(1);
    expect(await giveUps(reason === 'unreplayable' ? 'non-idempotent' : 'unreplayable')).toBe(0);
  });
});
