import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { currentContext } from '../../src/runtime/context.js';
import { type RequestContextOptions, withRequestContext } from '../../src/runtime/http.js';
import { rawExchange, rawGet, statusOf } from '../mesh/rawExchange.js';

// The runtime library's edge mode: the route `edge(req)` classifies
// must be the route the handler serves, and no look-alike of the class header may reach it. A
// real node:http server on 127.0.0.1 (port 0); requests sent as raw bytes so that dot segments
// and header spellings arrive as an attacker sends them.

const policy = retryPolicy({
  classes: { high: { retries: 5 }, low: { retries: 1 } },
  defaultClass: 'low',
  backoff: { kind: 'constant', delayMs: 0 },
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Seen {
  readonly url: string;
  readonly className: string | undefined;
  readonly headers: string[];
}

/** An edge server whose handler reports what it saw; `/premium…` is high. */
async function edgeServer(
  seen: Seen[],
  options: Partial<RequestContextOptions> = {},
): Promise<string> {
  const server: Server = createServer(
    withRequestContext(
      policy,
      (req, res) => {
        const report: Seen = {
          url: req.url ?? '',
          className: currentContext()?.className,
          headers: Object.keys(req.headers).filter((name) => name.includes('priority')),
        };
        seen.push(report);
        res.end(JSON.stringify(report));
      },
      {
        edge: (req) => ((req.url ?? '').startsWith('/premium') ? 'high' : undefined),
        ...options,
      },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('withRequestContext edge mode: targets', () => {
  it.each([
    ['/premium/x', '/premium/x', 'high'],
    ['/premium/../admin', '/admin', 'low'],
    ['/premium/%2e%2e/admin', '/admin', 'low'],
    ['/admin/../premium/x?q=/..', '/premium/x?q=/..', 'high'],
    ['/%70remium/x', '/premium/x', 'high'],
  ])('GET %s is served as %s, class %s', async (target, url, className) => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen);
    const answer = await rawGet(server, target);
    expect(answer.status).toBe(200);
    expect(seen).toStrictEqual([{ url, className, headers: [] }]);
  });

  it.each(['/premium/..%2Fadmin', '/premium/%252e%252e/admin', '/premium/..;/admin'])(
    'answers 400 to GET %s without running the handler',
    async (target) => {
      const seen: Seen[] = [];
      const server = await edgeServer(seen);
      const answer = await rawGet(server, target);
      expect({ status: answer.status, seen }).toStrictEqual({ status: 400, seen: [] });
      expect(answer.body).toMatch(/^difftry: request target refused: /);
    },
  );

  it('leaves the target as received with normalizeTarget: false', async () => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen, { normalizeTarget: false });
    await rawGet(server, '/premium/../admin');
    expect(seen).toStrictEqual([{ url: '/premium/../admin', className: 'high', headers: [] }]);
  });
});

describe('withRequestContext: look-alikes of the class header', () => {
  it('removes x_priority, X_PRIORITY and x-priority at the edge', async () => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen);
    await rawGet(server, '/admin', 'x_priority: high\r\nX_PRIORITY: high\r\nx-priority: high\r\n');
    expect(seen).toStrictEqual([{ url: '/admin', className: 'low', headers: [] }]);
  });

  it('keeps a trusted class header but still removes its look-alikes', async () => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen, { trustHeader: true });
    await rawGet(server, '/admin', 'x_priority: low\r\nx-priority: high\r\n');
    expect(seen).toStrictEqual([{ url: '/admin', className: 'high', headers: ['x-priority'] }]);
  });
});

describe('withRequestContext edge mode: non-ASCII targets', () => {
  it.each([
    ['/premium/..%C0%AFadmin', 'UTF-8'],
    ['/premium/%C0%AE%C0%AE/admin', 'UTF-8'],
    ['/premium/%E0%80%AE%E0%80%AE/admin', 'UTF-8'],
    ['/premium/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin', 'look-alike'],
    ['/premium/..%E2%88%95admin', 'look-alike'],
  ])('answers 400 to GET %s (%s) without running the handler', async (target, reason) => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen);
    const answer = await rawGet(server, target);
    expect({ target, status: answer.status, seen }).toStrictEqual({
      target,
      status: 400,
      seen: [],
    });
    expect(answer.body).toMatch(/^difftry: request target refused: /);
    expect(answer.body).toContain(reason);
  });

  it.each([
    ['/caf%C3%A9', '/caf%C3%A9', 'low'],
    ['/premium/caf%c3%a9', '/premium/caf%C3%A9', 'high'],
    ['/premium/cafe%CC%81', '/premium/cafe%CC%81', 'high'],
  ])('serves the valid non-ASCII GET %s as %s, class %s', async (target, url, className) => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen);
    const answer = await rawGet(server, target);
    expect(answer.status).toBe(200);
    expect(seen).toStrictEqual([{ url, className, headers: [] }]);
  });

  it('passes look-alikes with refuseLookAlikes: false, but never invalid UTF-8', async () => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen, { refuseLookAlikes: false });
    const lookAlike = '/premium/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin';
    expect((await rawGet(server, lookAlike)).status).toBe(200);
    expect((await rawGet(server, '/premium/..%C0%AFadmin')).status).toBe(400);
    expect(seen).toStrictEqual([{ url: lookAlike, className: 'high', headers: [] }]);
  });
});

describe('withRequestContext edge mode: Host (RFC 9112 §3.2)', () => {
  it.each([
    ['two Host lines', 'Host: frontend\r\nHost: admin\r\n'],
    ['a Host with "/"', 'Host: a/b\r\n'],
    ['a Host with "@"', 'Host: user@frontend\r\n'],
    ['a Host with a space', 'Host: a b\r\n'],
  ])('answers %s with 400 without running the handler', async (_label, lines) => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen);
    const answer = await rawExchange(
      server,
      `GET /premium/x HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`,
    );
    expect({ status: statusOf(answer), seen }).toStrictEqual({ status: 400, seen: [] });
    expect(answer).toContain('difftry: request refused: ');
  });

  it('serves one valid Host', async () => {
    const seen: Seen[] = [];
    const server = await edgeServer(seen);
    const answer = await rawExchange(
      server,
      'GET /premium/x HTTP/1.1\r\nHost: shop.example:8080\r\nConnection: close\r\n\r\n',
    );
    expect(statusOf(answer)).toBe(200);
    expect(seen).toHaveLength(1);
  });
});
