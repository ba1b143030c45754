import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { seededRandom } from '../../../src/model/random.js';
import { DEFAULT_QUEUE, inferNetwork } from '../../../src/traces/infer/inferNetwork.js';
import { TraceFileError } from '../../../src/traces/TraceFileError.js';
import { TraceBuilder } from './traceBuilder.js';

/**
 * Eleven requests at `frontend`, one a second from t = 0 (gold at even seconds, bronze at odd):
 * each calls `cart` over [t + 0.1, t + 0.3]; those at t = 0, 2, 4, 6, 8 also call `payment` in
 * parallel over [t + 0.15, t + 0.35]. Gold's cart call fails once and is retried (resend count
 * 1, over [t + 0.3, t + 0.4]); bronze's payment call never fails.
 */
function checkout(): TraceBuilder {
  const b = new TraceBuilder();
  for (let t = 0; t <= 10; t++) {
    const trace = `t${t}`;
    const gold = t % 2 === 0;
    const root = b.span(trace, undefined, 'frontend', 'server', t, t + 0.5, {
      'difftry.class': gold ? 'gold' : 'bronze',
    });
    if (gold) {
      b.call(trace, root, 'frontend', 'cart', t + 0.1, t + 0.3, {}, true);
      b.call(trace, root, 'frontend', 'cart', t + 0.3, t + 0.4, { 'http.request.resend_count': 1 });
    } else {
      b.call(trace, root, 'frontend', 'cart', t + 0.1, t + 0.3);
    }
    if (gold && t < 10) b.call(trace, root, 'frontend', 'payment', t + 0.15, t + 0.35);
  }
  return b;
}

describe('inferNetwork: a network file from spans', () => {
  it('finds the entries, their rates per class, the calls and the retries', () => {
    const { network, evidence } = inferNetwork(checkout().store());
    // 11 entry requests over [0, 10] s: 10 gaps, so 1/s in all, gold 6/11 of it.
    expect(evidence.window).toMatchObject({ from: 0, to: 10, seconds: 10 });
    expect(network.classes).toEqual([
      { name: 'gold', retries: 1 },
      { name: 'bronze', retries: 0 },
    ]);
    const [frontend, cart, payment] = network.services;
    expect(frontend).toMatchObject({
      name: 'frontend',
      queue: DEFAULT_QUEUE,
      arrivals: { gold: Number((6 / 11).toPrecision(4)), bronze: Number((5 / 11).toPrecision(4)) },
      // Every request calls cart once (gold's retry is the same call); 5 of 11 call payment too,
      // always overlapping cart: payment is parallel, cart (overlapped in 5 of its 11 calls, less
      // than half) sequential.
      calls: [{ to: 'cart' }],
      branches: [
        { p: Math.floor((5 / 11) * 1e6) / 1e6, calls: [{ to: 'payment', mode: 'parallel' }] },
      ],
    });
    expect(cart?.name).toBe('cart');
    expect(payment?.name).toBe('payment');
    // The cart hop: gold retried once per call, bronze never.
    expect(evidence.hops.filter((h) => h.callee === 'cart')).toEqual([
      {
        callee: 'cart',
        className: 'gold',
        calls: 6,
        attempts: 12,
        failedAttempts: 6,
        maxRetries: 1,
      },
      {
        callee: 'cart',
        className: 'bronze',
        calls: 5,
        attempts: 5,
        failedAttempts: 0,
        maxRetries: 0,
      },
    ]);
    // Gold's limit is 1 (cart); no attempt into payment failed, so it shows nothing of its limit
    // and keeps the class's, as bronze's hops do.
    expect(cart?.retries).toBeUndefined();
    expect(payment?.retries).toBeUndefined();
    expect(() => parseNetwork(JSON.stringify(network), 'inferred')).not.toThrow();
  });

  it('estimates capacity by the utilization law, μ = X / U, outside the calls', () => {
    const { evidence } = inferNetwork(checkout().store());
    const of = (name: string) => evidence.services.find((s) => s.name === name)?.capacity;
    // cart: requests start at t + 0.1001 (t = 0 … 9 in the window; gold's retry at t + 0.3001),
    // each 0.1998 s (gold's retry 0.0998 s): X = 15 / 10 s.
    const cartBusy = 10 * 0.1998 + 5 * 0.0998;
    expect(of('cart')?.throughput).toBeCloseTo(1.5, 12);
    expect(of('cart')?.busyShare).toBeCloseTo(cartBusy / 10, 12);
    expect(of('cart')?.value).toBeCloseTo(1.5 / (cartBusy / 10), 9);
    // frontend: 0.5 s a request, less its calls: gold [t + 0.1, t + 0.4] (and payment inside
    // it), bronze [t + 0.1, t + 0.3].
    const own = (gold: boolean) => 0.5 - (gold ? 0.3 : 0.2);
    let busy = 0;
    for (let t = 0; t < 10; t++) busy += own(t % 2 === 0);
    // t = 10: its own time [10, 10.1] and [10.4, 10.5] lies past the window's end (10 s).
    expect(of('frontend')?.busyShare).toBeCloseTo(busy / 10, 12);
    expect(of('frontend')?.value).toBeCloseTo(11 / 10 / (busy / 10), 9);
    expect(of('frontend')?.method).toBe('utilization');
  });

  it('counts no busy time while a request waits to retry a call', () => {
    // Each request: [t, t + 1]; its call's first attempt [t + 0.1, t + 0.2] is refused, the
    // retry [t + 0.5, t + 0.6] answered: it is in its own part only for 0.1 + 0.4 s.
    const b = new TraceBuilder();
    for (let t = 0; t < 5; t++) {
      const root = b.span(`t${t}`, undefined, 'web', 'server', t, t + 1);
      b.call(`t${t}`, root, 'web', 'db', t + 0.1, t + 0.2, {}, true);
      b.call(`t${t}`, root, 'web', 'db', t + 0.5, t + 0.6, { 'http.request.resend_count': 1 });
    }
    const { evidence } = inferNetwork(b.store());
    const web = evidence.services.find((s) => s.name === 'web')?.capacity;
    // The window is [0, 4]: requests t = 0 … 4 start in it; t = 4's own time lies past its end.
    expect(web?.busyShare).toBeCloseTo((4 * 0.5) / 4, 12);
  });

  it('groups repeated failed client spans into one call where no resend count is recorded', () => {
    const b = new TraceBuilder();
    for (let t = 0; t < 4; t++) {
      const root = b.span(`t${t}`, undefined, 'web', 'server', t, t + 1);
      b.call(`t${t}`, root, 'web', 'db', t + 0.1, t + 0.2, {}, true);
      b.call(`t${t}`, root, 'web', 'db', t + 0.25, t + 0.3, {}, true);
      b.call(`t${t}`, root, 'web', 'db', t + 0.35, t + 0.4);
      // a second, separate call after a success
      b.call(`t${t}`, root, 'web', 'db', t + 0.5, t + 0.6);
    }
    const { network, evidence } = inferNetwork(b.store());
    expect(evidence.hops).toEqual([
      {
        callee: 'db',
        className: 'default',
        calls: 8,
        attempts: 16,
        failedAttempts: 8,
        maxRetries: 2,
      },
    ]);
    expect(network.services[0]).toMatchObject({ calls: [{ to: 'db', n: 2 }] });
    expect(network.classes).toEqual([{ name: 'default', retries: 2 }]);
    // The window runs from the first entry request to the last (t = 3): web's 4 requests and
    // db's 12 that started by then, none with a class.
    expect(evidence.unclassedRequests).toBe(16);
  });

  it('takes a load generator’s client span as outside, and drops the weakest edge of a cycle', () => {
    const b = new TraceBuilder();
    for (let t = 0; t < 6; t++) {
      const client = b.span(`t${t}`, undefined, 'loadgen', 'client', t, t + 1);
      const a = b.span(`t${t}`, client, 'a', 'server', t, t + 1);
      const atB = b.call(`t${t}`, a, 'a', 'b', t + 0.1, t + 0.5);
      if (t === 0) b.call(`t${t}`, atB, 'b', 'a', t + 0.2, t + 0.3);
    }
    const { network, evidence } = inferNetwork(b.store());
    expect(network.services.map((s) => s.name)).toEqual(['a', 'b']);
    // a's requests: 6 from outside, each calling b, and the one b made (calling nothing).
    expect(network.services[0]).toMatchObject({
      arrivals: { default: 1 },
      branches: [{ p: Math.floor((6 / 7) * 1e6) / 1e6, calls: [{ to: 'b' }] }],
    });
    expect(network.services[1]?.calls).toBeUndefined();
    expect(evidence.droppedEdges).toEqual([{ caller: 'b', callee: 'a', calls: 1 }]);
  });

  it('takes a callee no span records from peer.service or a host name, never an IP address', () => {
    const b = new TraceBuilder();
    for (let t = 0; t < 3; t++) {
      const root = b.span(`t${t}`, undefined, 'web', 'server', t, t + 1);
      b.span(`t${t}`, root, 'web', 'client', t + 0.1, t + 0.2, { 'server.address': 'redis' });
      b.span(`t${t}`, root, 'web', 'client', t + 0.3, t + 0.4, { 'server.address': '10.0.0.7' });
      b.span(`t${t}`, root, 'web', 'client', t + 0.5, t + 0.6, { 'peer.service': 'billing' });
    }
    const { network, evidence } = inferNetwork(b.store());
    expect(network.services.map((s) => s.name)).toEqual(['web', 'billing', 'redis']);
    expect(network.services[0]?.calls).toEqual([{ to: 'billing' }, { to: 'redis' }]);
    expect(evidence.services[0]?.unresolvedCalls).toBe(3);
    // Their capacities come from the client spans calling them.
    expect(evidence.services[1]?.capacity.method).toBe('client-spans');
  });

  it('recovers an M/M/1 queue’s λ and μ from its spans (seeded, 20,000 requests)', () => {
    // λ = 50/s into a FIFO single server of μ = 80/s; each request's server span is its sojourn.
    const random = seededRandom(20261205);
    const exp = (rate: number) => -Math.log(1 - random()) / rate;
    const b = new TraceBuilder();
    let arrival = 0;
    let free = 0;
    for (let k = 0; k < 20_000; k++) {
      arrival += exp(50);
      const start = Math.max(arrival, free);
      free = start + exp(80);
      b.span(`r${k}`, undefined, 'svc', 'server', arrival, free);
    }
    const { network, evidence } = inferNetwork(b.store());
    const svc = network.services[0];
    // Sampling error: about 1/√20,000 = 0.7 % for each; 3 % is four standard deviations.
    expect(Math.abs((svc?.arrivals?.default ?? 0) / 50 - 1)).toBeLessThan(0.03);
    expect(Math.abs((svc?.capacity ?? 0) / 80 - 1)).toBeLessThan(0.03);
    expect(evidence.services[0]?.capacity.busyShare).toBeCloseTo(50 / 80, 1);
  });

  it('refuses data it cannot infer from, saying why', () => {
    const noServer = new TraceBuilder();
    noServer.span('t', undefined, 'a', 'client', 0, 1);
    expect(() => inferNetwork(noServer.store())).toThrow(/^no server spans/);
    const one = new TraceBuilder();
    one.span('t', undefined, 'a', 'server', 0, 1);
    expect(() => inferNetwork(one.store())).toThrow(/one entry request: no time/);
    expect(() =>
      inferNetwork(checkout().store(), {
        window: { from: { seconds: 20, relative: true }, to: { seconds: 30, relative: true } },
      }),
    ).toThrow(/^no entry request in the window 1970-01-01T00:00:20\.000Z/);
    expect(() => inferNetwork(checkout().store(), { classes: ['gold'] })).toThrow(
      'the traces carry the class "bronze", which --classes does not list (gold)',
    );
    expect(() => inferNetwork(checkout().store(), { capacities: { nope: 3 } })).toThrow(
      /--capacity names "nope"/,
    );
    try {
      inferNetwork(noServer.store());
    } catch (error) {
      expect(error).toBeInstanceOf(TraceFileError);
      expect((error as TraceFileError).code).toBe('DIFFTRY_TRACES_INVALID');
    }
  });

  it('orders classes as --classes gives them, and takes --capacity and --queue', () => {
    const { network, evidence } = inferNetwork(checkout().store(), {
      classes: ['bronze', 'gold', 'silver'],
      capacities: { cart: 42 },
      queue: 7,
    });
    expect(network.classes.map((c) => c.name)).toEqual(['bronze', 'gold', 'silver']);
    expect(network.services.find((s) => s.name === 'cart')).toMatchObject({
      capacity: 42,
      queue: 7,
    });
    expect(evidence.services.find((s) => s.name === 'cart')?.capacity.method).toBe('given');
  });
});
