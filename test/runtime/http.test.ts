import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { currentContext } from '../../src/runtime/context.js';
import { difftryFetch } from '../../src/runtime/fetch.js';
import {
  classFromRequest,
  type RequestContextOptions,
  withRequestContext,
} from '../../src/runtime/http.js';
import { type LoopbackServer, startServer } from './loopback.js';

const policy = retryPolicy({
  classes: { high: { retries: 5 }, low: { retries: 1 } },
  defaultClass: 'low',
  backoff: { kind: 'constant', delayMs: 0 },
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function downstream(): Promise<LoopbackServer> {
  const orders = await startServer();
  closers.push(() => orders.close());
  return orders;
}

/** What the frontend saw of a request, as it reports it in its response. */
interface Seen {
  readonly className: string | undefined;
  readonly deadlineMs: number | undefined;
  readonly header: string | string[] | undefined;
  readonly rawHeaders: string[];
  readonly downstreamStatus: number;
}

/**
 * A frontend wrapped in `withRequestContext` that, while serving a request, calls the orders
 * service through `difftryFetch` without naming a class, and reports what it saw.
 */
async function frontend(
  ordersUrl: string,
  options?: RequestContextOptions,
  through = policy,
): Promise<string> {
  const fetchWithRetries = difftryFetch({ policy: through });
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    // Reading the body first: the context must survive awaiting the request's stream.
    for await (const _ of req);
    const context = currentContext();
    const orders = await fetchWithRetries(ordersUrl);
    await orders.body?.cancel();
    const seen: Seen = {
      className: context?.className,
      deadlineMs: context?.deadlineMs,
      header: req.headers['x-priority'],
      rawHeaders: req.rawHeaders,
      downstreamStatus: orders.status,
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
  };
  return listen(createServer(withRequestContext(through, handler, options)));
}

async function visit(url: string, headers: Record<string, string> = {}): Promise<Seen> {
  const res = await fetch(url, { method: 'POST', headers, body: 'order' });
  expect(res.status).toBe(200);
  return (await res.json()) as Seen;
}

const byTier: RequestContextOptions = {
  edge: (req) => (req.headers['x-tier'] === 'gold' ? 'high' : undefined),
};

describe('withRequestContext: edge mode', () => {
  it("ignores and removes a client's x-priority: high", async () => {
    const orders = await downstream();
    const url = await frontend(orders.url, byTier);
    const seen = await visit(url, { 'x-priority': 'high' });
    expect(seen.className).toBe('low');
    expect(seen.header).toBeUndefined();
    expect(seen.rawHeaders.map((h) => h.toLowerCase())).not.toContain('x-priority');
    expect(orders.requests.map((r) => r.headers['x-priority'])).toEqual(['low', 'low']);
  });

  it('takes the class from the edge function and carries it to the next hop', async () => {
    const orders = await downstream();
    const url = await frontend(orders.url, byTier);
    const seen = await visit(url, { 'x-tier': 'gold', 'x-priority': 'low' });
    expect(seen.className).toBe('high');
    expect(seen.downstreamStatus).toBe(503);
    expect(orders.requests).toHaveLength(6);
    expect(orders.requests.every((r) => r.headers['x-priority'] === 'high')).toBe(true);
  });

  it('gives an unknown edge answer the default class, never a higher one', async () => {
    const orders = await downstream();
    const url = await frontend(orders.url, { edge: () => 'platinum' });
    expect((await visit(url, { 'x-priority': 'high' })).className).toBe('low');
    expect(orders.requests).toHaveLength(2);
  });

  it('trusts the header of the callers trustHeader picks', async () => {
    const orders = await downstream();
    const url = await frontend(orders.url, {
      ...byTier,
      trustHeader: (req) => req.headers['x-internal'] === 'yes',
    });
    expect((await visit(url, { 'x-priority': 'high', 'x-internal': 'yes' })).className).toBe(
      'high',
    );
    expect((await visit(url, { 'x-priority': 'high' })).className).toBe('low');
  });
});

describe('withRequestContext: trusted mode', () => {
  it('takes the class from the inbound header and carries it to the next hop', async () => {
    const orders = await downstream();
    const url = await frontend(orders.url);
    const seen = await visit(url, { 'x-priority': 'HIGH' });
    expect(seen.className).toBe('high');
    expect(seen.header).toBe('HIGH');
    expect(orders.requests).toHaveLength(6);
  });

  it('gives an unlabelled request the default class', async () => {
    const orders = await downstream();
    const url = await frontend(orders.url);
    expect((await visit(url)).className).toBe('low');
    expect(orders.requests).toHaveLength(2);
  });

  it('ignores the header when trustHeader is false', async () => {
    const orders = await downstream();
    const url = await frontend(orders.url, { trustHeader: false });
    const seen = await visit(url, { 'x-priority': 'high' });
    expect(seen.className).toBe('low');
    expect(seen.header).toBeUndefined();
  });

  it('turns a remaining-time header into the deadline', async () => {
    const orders = await downstream();
    // A policy clock that stands still: the deadline is exactly its reading plus the header's.
    const stillClock = retryPolicy({
      classes: { high: { retries: 5 }, low: { retries: 1 } },
      defaultClass: 'low',
      backoff: { kind: 'constant', delayMs: 0 },
      clock: () => 5_000,
    });
    const url = await frontend(orders.url, { deadlineHeader: 'X-Deadline-Ms' }, stillClock);
    const seen = await visit(url, { 'x-deadline-ms': '60000' });
    expect(seen.deadlineMs).toBe(65_000);
    expect(orders.requests).toHaveLength(2);
    expect((await visit(url, { 'x-deadline-ms': 'soon' })).deadlineMs).toBeUndefined();
  });
});

describe('withRequestContext: the deadline clock', () => {
  it("puts the deadline on the policy's own clock", () => {
    const atThousand = retryPolicy({ classes: { high: { retries: 5 } }, clock: () => 1000 });
    const handle = withRequestContext(atThousand, () => currentContext(), {
      deadlineHeader: 'x-deadline-ms',
    });
    const req = { headers: { 'x-deadline-ms': '250' }, rawHeaders: ['x-deadline-ms', '250'] };
    const context = handle(req as unknown as IncomingMessage, {} as ServerResponse);
    expect(context?.deadlineMs).toBe(1250);
  });
});

describe('classFromRequest', () => {
  it('resolves the class header, case-insensitively, with the default for the rest', () => {
    expect(classFromRequest(policy, { headers: { 'x-priority': ' High ' } })).toBe('high');
    expect(classFromRequest(policy, { headers: { 'x-priority': 'gold' } })).toBe('low');
    expect(classFromRequest(policy, { headers: {} })).toBe('low');
  });
});
