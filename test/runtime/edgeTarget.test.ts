import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { currentContext } from '../../src/runtime/context.js';
import { type RequestContextOptions, withRequestContext } from '../../src/runtime/http.js';
import { rawGet } from '../mesh/rawExchange.js';

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
