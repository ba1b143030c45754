import { type Client, status } from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { createXdsServer, type XdsRequestEvent, type XdsServer } from '../../src/xds/xdsServer.js';
import { callOnce, refusingServer, xdsClient } from './grpcProbe.js';

// DiffTry on a real xDS data plane: @grpc/grpc-js-xds clients, bootstrapped at a difftry control
// plane on loopback, call a gRPC server that always refuses. Every retry is gRPC's own, from the
// routes the control plane serves; difftry's code is not in the call path.

register();

const NETWORK = (bronze: number) => `
classes:
  - { name: gold, retries: 5 }
  - { name: silver, retries: 3 }
  - { name: bronze, retries: ${bronze} }
backoff: { kind: exponential, baseMs: 1, maxMs: 4, jitter: full }
services:
  - { name: web, capacity: 100, queue: 10, arrivals: { gold: 1, silver: 1, bronze: 1 }, calls: [{ to: geo }] }
  - { name: geo, capacity: 100, queue: 10 }
`;

describe('difftry xds: real proxyless gRPC clients do DiffTry from its routes', () => {
  let backend: Awaited<ReturnType<typeof refusingServer>>;
  let exhausted: Awaited<ReturnType<typeof refusingServer>>;
  let xds: XdsServer;
  const events: XdsRequestEvent[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    backend = await refusingServer(status.UNAVAILABLE);
    exhausted = await refusingServer(status.RESOURCE_EXHAUSTED);
    xds = await createXdsServer({
      network: parseNetwork(NETWORK(1), 'net.yaml'),
      endpoints: { geo: [{ host: '127.0.0.1', port: backend.port }] },
      onRequest: (event) => {
        events.push(event);
        if (process.env.XDS_DEBUG) console.log(JSON.stringify(event));
      },
    });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await xds?.close();
    backend?.server.forceShutdown();
    exhausted?.server.forceShutdown();
  });

  it('makes k + 1 attempts per class (at most 5), the default class’s for none or unknown', async () => {
    const client = xdsClient(xds.port, 'node-a');
    clients.push(client);
    const cases: [string | undefined, number][] = [
      ['gold', 5], // k = 5: gRPC caps a call at 5 attempts
      ['silver', 4],
      ['bronze', 2],
      ['SILVER', 4], // the class match ignores case, in gRPC as in Envoy
      [undefined, 2],
      ['platinum', 2],
    ];
    for (const [className, expected] of cases) {
      const result = await callOnce(client, backend.attempts, className);
      expect(result.code, `class ${className}`).toBe(status.UNAVAILABLE);
      expect(result.attempts, `class ${className}`).toBe(expected);
    }
    // The client accepted every resource type (an ACK each), and refused none.
    const kinds = (typeUrl: string) =>
      events.filter((e) => e.node === 'node-a' && e.typeUrl.endsWith(typeUrl)).map((e) => e.kind);
    for (const type of ['Listener', 'RouteConfiguration', 'Cluster', 'ClusterLoadAssignment']) {
      expect(kinds(type), type).toContain('ack');
      expect(kinds(type), type).not.toContain('nack');
    }
  });

  it('retries RESOURCE_EXHAUSTED (an admission rejection) the same way', async () => {
    xds.update(parseNetwork(NETWORK(1), 'net.yaml'), {
      geo: [{ host: '127.0.0.1', port: exhausted.port }],
    });
    const client = xdsClient(xds.port, 'node-b');
    clients.push(client);
    for (const [className, expected] of [
      ['silver', 4],
      ['bronze', 2],
    ] as const) {
      const result = await callOnce(client, exhausted.attempts, className);
      expect(result.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(result.attempts).toBe(expected);
    }
    xds.update(parseNetwork(NETWORK(1), 'net.yaml'), {
      geo: [{ host: '127.0.0.1', port: backend.port }],
    });
  });

  it('pushes a live update to a connected client: k_bronze 1 → 0 is ACKed and applies', async () => {
    const client = xdsClient(xds.port, 'node-c');
    clients.push(client);
    expect((await callOnce(client, backend.attempts, 'bronze')).attempts).toBe(2);
    const before = xds.version;
    xds.update(parseNetwork(NETWORK(0), 'net.yaml'));
    expect(Number(xds.version)).toBe(Number(before) + 1);
    await until(() =>
      events.some(
        (e) =>
          e.node === 'node-c' &&
          e.kind === 'ack' &&
          e.typeUrl.endsWith('RouteConfiguration') &&
          e.versionInfo === xds.version,
      ),
    );
    expect((await callOnce(client, backend.attempts, 'bronze')).attempts).toBe(1);
    expect((await callOnce(client, backend.attempts, undefined)).attempts).toBe(1);
    expect((await callOnce(client, backend.attempts, 'silver')).attempts).toBe(4);
  });

  it('refuses a bad update: it throws, and the last good version stays served', async () => {
    const client = xdsClient(xds.port, 'node-d');
    clients.push(client);
    const version = xds.version;
    const bad = parseNetwork(NETWORK(0), 'net.yaml');
    // A network the mapping cannot serve: a class without a policy for the default class.
    expect(() => xds.update({ ...bad, classes: [] } as unknown as typeof bad)).toThrow();
    expect(xds.version).toBe(version);
    expect((await callOnce(client, backend.attempts, 'silver')).attempts).toBe(4);
    expect((await callOnce(client, backend.attempts, 'bronze')).attempts).toBe(1);
  });

  it('gives a client on another node the same resources', async () => {
    const a = events.filter((e) => e.node === 'node-c' && e.kind === 'ack').map((e) => e.typeUrl);
    const d = events.filter((e) => e.node === 'node-d' && e.kind === 'ack').map((e) => e.typeUrl);
    expect(new Set(d)).toEqual(new Set(a));
    expect(new Set(events.map((e) => e.node))).toEqual(
      new Set(['node-a', 'node-b', 'node-c', 'node-d']),
    );
  });
});

/** Waits (at most 5 s, polling every 10 ms) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
