import { connect } from 'node:net';
import {
  type Client,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_INTERRUPTED } from '../../src/cli/exitCodes.js';
import { testbedRunCommand } from '../../src/cli/testbedRunCommand.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { measureTestbed } from '../../src/testbed/experiment/measureTestbed.js';
import { predictTestbed } from '../../src/testbed/experiment/predictTestbed.js';
import {
  TESTBED_GRPC_METHOD,
  TESTBED_GRPC_SERVICE,
} from '../../src/testbed/network/startGrpcService.js';
import { startTestbed, type Testbed } from '../../src/testbed/network/startTestbed.js';
import {
  grpcXdsNetwork,
  testbedGrpcCappedClasses,
} from '../../src/testbed/network/testbedNetwork.js';

// The gRPC testbed: gRPC services on loopback behind the same M/M/1/m station as the HTTP
// testbed, calling each other over xds:/// channels configured by a difftry xDS control plane
// the testbed starts. Every retry between services (and the external client's at the entry) is
// made by @grpc/grpc-js from the routes it serves; difftry's code is not in the call path.

const started: Testbed[] = [];
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(started.splice(0).map((t) => t.close()));
});

/** a calls b once and c twice (sequentially) for every request: 3 internal calls. */
function fanOut(gamma: number) {
  return parseNetwork(
    `
name: a-bc
classes:
  - { name: high, retries: 3, backoff: { kind: random, meanMs: 20 } }
  - { name: low, retries: 1, backoff: { kind: random, meanMs: 20 } }
services:
  - name: a
    capacity: 500
    queue: 50
    arrivals: { high: ${gamma}, low: ${gamma} }
    calls: [{ to: b }, { to: c, n: 2 }]
  - { name: b, capacity: 500, queue: 20 }
  - { name: c, capacity: 500, queue: 20 }
`,
    'a-bc.yaml',
  );
}

/** a → b, b as given; gRPC allows k ≤ 4, so high's is 4. */
function twoServices(b: { capacity: number; queue: number }, gamma: number, backoffMs = 20) {
  return parseNetwork(
    `
name: a-b
classes:
  - { name: high, retries: 4, backoff: { kind: random, meanMs: ${backoffMs} } }
  - { name: low, retries: 1, backoff: { kind: random, meanMs: ${backoffMs} } }
services:
  - name: a
    capacity: 500
    queue: 50
    arrivals: { high: ${gamma}, low: ${gamma} }
    calls: [{ to: b }]
  - { name: b, capacity: ${b.capacity}, queue: ${b.queue} }
`,
    'a-b.yaml',
  );
}

const sum = (xs: readonly number[]) => xs.reduce((x, y) => x + y, 0);

// Real time, loopback and threads: the integration project's timeout, also when run alone.
describe('the gRPC testbed (transport grpc-xds)', { timeout: 60_000 }, () => {
  it('rejects nothing under light load, with the program’s internal calls per request', async () => {
    const m = await measureTestbed(fanOut(15), {
      transport: 'grpc-xds',
      seed: 3,
      warmupS: 0.5,
      durationS: 2,
    });
    expect(m.aborted).toBe(false);
    expect(m.sidecars).toBe(false);
    for (const c of m.classes) {
      expect(c.finished, c.name).toBeGreaterThan(10);
      expect(c.unfinished, c.name).toBe(0);
      expect(c.finished, c.name).toBe(c.sent);
      expect(c.rejection, c.name).toBeLessThanOrEqual(0.02);
    }
    // The external client's attempts reach a only, marked external (metadata, on every
    // attempt gRPC makes); the services' calls reach b once and c twice per request.
    const [a, b, c] = m.services;
    expect(sum(a?.external ?? [])).toBe(sum(a?.arrivals ?? []));
    expect(sum(b?.external ?? [])).toBe(0);
    expect(sum(c?.external ?? [])).toBe(0);
    expect(m.internalPerRequest).toBeGreaterThan(2.6);
    expect(m.internalPerRequest).toBeLessThan(3.4);
    expect(predictTestbed(m).calls.load.internalPerRequest).toBeCloseTo(3, 2);
    // Both classes arrive at the children with their own class (the class travels on).
    for (const service of [b, c]) {
      expect(service?.arrivals[0], service?.name).toBeGreaterThan(10);
      expect(service?.arrivals[1], service?.name).toBeGreaterThan(10);
    }
  });

  it('with the child overloaded, rejects the high class far less than the low, by k per class', async () => {
    const m = await measureTestbed(twoServices({ capacity: 20, queue: 2 }, 30), {
      transport: 'grpc-xds',
      seed: 4,
      warmupS: 0.5,
      durationS: 3,
      edgeThread: false,
    });
    const [high, low] = m.classes;
    expect(high?.finished).toBeGreaterThan(40);
    expect(low?.finished).toBeGreaterThan(40);
    for (const c of m.classes) expect(c.unfinished, c.name).toBe(0);
    // k = (4, 1) at both hops: about 0.3–0.45 against 0.85–0.9 here.
    expect(high?.rejection ?? 1).toBeLessThan((low?.rejection ?? 0) - 0.2);
    const a = m.services.find((s) => s.name === 'a');
    const b = m.services.find((s) => s.name === 'b');
    expect(sum(b?.rejected ?? [])).toBeGreaterThan(0);
    // Attempts at b per call a made, per class: 1 + s + … + s^k with s (b's rejection) near 1,
    // never above k + 1 (gRPC retries RESOURCE_EXHAUSTED k_b times). The counts are over the
    // window, so calls straddling its edges blur the ratios a little.
    const perCall = (p: number) =>
      (b?.arrivals[p] ?? 0) / ((a?.succeeded[p] ?? 0) + (a?.failed[p] ?? 0));
    expect(perCall(0)).toBeGreaterThan(3);
    expect(perCall(0)).toBeLessThan(5.25);
    expect(perCall(1)).toBeGreaterThan(1.4);
    expect(perCall(1)).toBeLessThan(2.15);
    // a answers UNAVAILABLE when its call failed, and the external client's gRPC retries it.
    expect(m.attemptsPerRequest).toBeGreaterThan(m.internalPerRequest + 1);
    const prediction = predictTestbed(m);
    expect(prediction.calls.endToEnd.high?.rejection ?? 1).toBeLessThan(
      prediction.calls.endToEnd.low?.rejection ?? 0,
    );
  });

  it('makes exactly (k_a + 1)(k_b + 1) attempts at a child that rejects every one, per class', async () => {
    // b's first unit of work lasts ~1000 s: it holds the worker and b's one place (m = 1), so
    // every later attempt at b is turned away (RESOURCE_EXHAUSTED) and every call to b fails.
    const network = parseNetwork(
      `
classes:
  - { name: high, retries: 2, backoff: { kind: constant, delayMs: 1 } }
  - { name: low, retries: 1, backoff: { kind: constant, delayMs: 1 } }
services:
  - { name: a, capacity: 500, queue: 50, arrivals: { high: 1, low: 1 }, calls: [{ to: b }] }
  - { name: b, capacity: 0.001, queue: 1 }
`,
      'plugged.yaml',
    );
    const testbed = await startTestbed(network, { transport: 'grpc-xds', seed: 2 });
    started.push(testbed);
    expect(testbed.transport).toBe('grpc-xds');
    // services a and b, the xDS control plane, the ingress
    expect(testbed.listeners).toHaveLength(4);
    const [a, b] = testbed.services;
    const plug = new AbortController();
    const plugged = request(`${testbed.ingressUrl}/a/`, {
      headers: { 'x-priority': 'high' },
      signal: plug.signal,
    }).catch(() => undefined);
    for (let i = 0; i < 500 && b?.inSystem() !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(b?.inSystem()).toBe(1);
    testbed.startWindow();
    const n = 4;
    for (const className of ['high', 'low']) {
      for (let i = 0; i < n; i++) {
        const response = await request(`${testbed.ingressUrl}/a/`, {
          headers: { 'x-priority': className },
        });
        await response.body.dump();
        expect(response.statusCode, className).toBe(503);
      }
    }
    const aStats = a?.stats();
    const bStats = b?.stats();
    // The ingress's gRPC channel retries a (UNAVAILABLE) k_a times; each attempt at a calls b
    // once, which a's channel retries (RESOURCE_EXHAUSTED) k_b times.
    expect(aStats?.arrivals).toEqual([n * 3, n * 2]);
    expect(aStats?.external).toEqual([n * 3, n * 2]);
    expect(aStats?.failed).toEqual([n * 3, n * 2]);
    expect(aStats?.calls).toBe(n * 5);
    expect(bStats?.arrivals).toEqual([n * 9, n * 4]);
    expect(bStats?.rejected).toEqual([n * 9, n * 4]);
    expect(bStats?.external).toEqual([0, 0]);

    // Without xDS (a plain channel, no retry policy) one call is one attempt, and the codes are
    // the ones the routes retry: RESOURCE_EXHAUSTED at admission, UNAVAILABLE for a failed call.
    const Plain = makeGenericClientConstructor(TESTBED_GRPC_SERVICE, 'Plain');
    const codeOf = (url: string, className: string) => {
      const client = new Plain(url.replace('grpc://', ''), credentials.createInsecure());
      clients.push(client);
      const metadata = new Metadata();
      metadata.set('x-priority', className);
      return new Promise<number>((resolve) =>
        client.makeUnaryRequest(
          TESTBED_GRPC_METHOD,
          (x: Buffer) => x,
          (x: Buffer) => x,
          Buffer.from('/'),
          metadata,
          { deadline: Date.now() + 10_000 },
          (error: ServiceError | null) => resolve(error?.code ?? status.OK),
        ),
      );
    };
    expect(await codeOf(b?.url ?? '', 'high')).toBe(status.RESOURCE_EXHAUSTED);
    expect(b?.stats().arrivals).toEqual([n * 9 + 1, n * 4]);
    expect(await codeOf(a?.url ?? '', 'low')).toBe(status.UNAVAILABLE);
    expect(a?.stats().arrivals).toEqual([n * 3, n * 2 + 1]);
    expect(b?.stats().arrivals).toEqual([n * 9 + 1, n * 4 + 2]);

    plug.abort();
    await plugged;
    await testbed.close();
    for (const url of testbed.listeners) {
      const { port } = new URL(url.replace('grpc://', 'http://'));
      await expect(refused(Number(port)), url).resolves.toBe(true);
    }
  });

  it('refuses an unknown transport, and a class key the xDS routes do not match', async () => {
    const network = fanOut(1);
    await expect(
      startTestbed(network, { transport: 'smtp' as unknown as 'http' }),
    ).rejects.toBeInstanceOf(RangeError);
    await expect(
      startTestbed(network, { transport: 'grpc-xds', header: 'x-class' }),
    ).rejects.toThrow(/x-priority/);
  });

  it('names the classes whose k gRPC cuts to 4 retries', () => {
    expect(testbedGrpcCappedClasses(twoServices({ capacity: 1, queue: 1 }, 1))).toEqual([]);
    const network = parseNetwork(
      `
classes: [{ name: high, retries: 5 }, { name: low, retries: 1 }]
services:
  - { name: a, capacity: 10, queue: 5, arrivals: { high: 1 }, calls: [{ to: b }] }
  - { name: b, capacity: 10, queue: 5, retries: { low: 7 } }
`,
      'capped.yaml',
    );
    expect(testbedGrpcCappedClasses(network)).toEqual([
      { className: 'high', retries: 5 },
      { className: 'low', retries: 7 },
    ]);
  });

  it('serves retry intervals under 1 s, which @grpc/grpc-js-xds reads right', async () => {
    const withDelay = (meanMs: number) =>
      parseNetwork(
        `
classes: [{ name: high, retries: 4 }, { name: low, retries: 1 }]
backoff: { kind: random, meanMs: ${meanMs} }
services:
  - { name: a, capacity: 10, queue: 5, arrivals: { high: 1 } }
`,
        'delay.yaml',
      );
    // Mean 400 ms: intervals of 0.8 s, served as they are.
    const short = withDelay(400);
    expect(grpcXdsNetwork(short).classes).toEqual(short.classes);
    // Mean 500 ms (the testbed's default): 1 s, which grpc-js-xds would read as 10 s.
    for (const c of grpcXdsNetwork(withDelay(500)).classes) {
      expect(c.backoff, c.name).toEqual({
        kind: 'exponential',
        baseMs: 999.999999,
        maxMs: 999.999999,
        jitter: 'full',
      });
    }
    // Longer: refused, before anything starts.
    expect(() => grpcXdsNetwork(withDelay(600))).toThrow(/above 1 s/);
    await expect(startTestbed(withDelay(600), { transport: 'grpc-xds' })).rejects.toThrow(
      RangeError,
    );
  });

  it('difftry testbed run --transport grpc-xds warns in one line about k above 4, and stops on Ctrl-C', async () => {
    const warnings: string[] = [];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const output = await testbedRunCommand(
      {
        transport: 'grpc-xds',
        retries: { high: 5, low: 1 },
        scale: 0.1,
        warmup: 1,
        duration: 60,
        warn: (line) => warnings.push(line),
      },
      controller.signal,
    );
    expect(output.exitCode).toBe(EXIT_INTERRUPTED);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/at most 5 attempts/);
    expect(warnings[0]).toMatch(/high \(k = 5\)/);
    expect(warnings[0]).not.toMatch(/low/);
  });
});

/** Whether a TCP connection to 127.0.0.1:port is refused (nothing listens there). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
