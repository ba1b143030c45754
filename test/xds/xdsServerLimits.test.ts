import { connect as connectHttp2 } from 'node:http2';
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { requestLine } from '../../src/cli/xdsServe.js';
import { XDS_TYPES } from '../../src/xds/xdsResources.js';
import { createXdsServer, type XdsRequestEvent, type XdsServer } from '../../src/xds/xdsServer.js';
import { type AdsStream, adsStream, sleep } from './adsClient.js';
import { XDS_TEST_NETWORK as NETWORK } from './xdsTestNetwork.js';

// The control plane's bounds, on real sockets with a raw ADS client: NACK floods log a line and a
// count, client strings are escaped, unknown types are not kept, and the stream, name and size
// limits end what goes over them with RESOURCE_EXHAUSTED.

const open: { servers: XdsServer[]; streams: AdsStream[] } = { servers: [], streams: [] };
afterEach(async () => {
  for (const stream of open.streams.splice(0)) stream.close();
  await Promise.all(open.servers.splice(0).map((server) => server.close()));
});

async function start(options: Partial<Parameters<typeof createXdsServer>[0]> = {}) {
  const events: XdsRequestEvent[] = [];
  const server = await createXdsServer({
    network: NETWORK,
    endpoints: { geo: [{ host: '127.0.0.1', port: 1 }] },
    onRequest: (event) => events.push(event),
    ...options,
  });
  open.servers.push(server);
  /** The lines `difftry xds serve` would print for the events so far. */
  const lines = () => events.flatMap((event) => requestLine(event) ?? []);
  return { server, events, lines };
}

function stream(port: number): AdsStream {
  const made = adsStream(port);
  open.streams.push(made);
  return made;
}

/** Waits (at most 10 s) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control character may pass
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('createXdsServer: NACK logs', () => {
  it('logs a flood of 1 MiB NACKs as one cut line, then one count when the stream ends', async () => {
    const { server, events, lines } = await start();
    const ads = stream(server.port);
    ads.send({ node: { id: 'flood' }, typeUrl: XDS_TYPES.cluster });
    const { nonce } = await ads.next(XDS_TYPES.cluster);
    const detail = `bad cluster ${'x'.repeat(1024 * 1024)}`;
    const count = 60;
    for (let i = 0; i < count; i++) {
      ads.send({
        node: { id: 'flood' },
        typeUrl: XDS_TYPES.cluster,
        responseNonce: nonce,
        errorDetail: { code: 3, message: detail },
      });
    }
    await until(() => events.filter((e) => e.kind === 'nack').length === count, 'the NACKs');
    ads.close();
    await until(() => events.some((e) => e.kind === 'closed'), 'the end of the stream');
    const printed = lines();
    expect(printed).toHaveLength(2);
    expect(printed[0]).toMatch(
      /^difftry xds: NACK from flood: Cluster \(it keeps version none\): bad cluster x+…\(\+\d+ chars\)$/,
    );
    expect(printed[1]).toMatch(
      new RegExp(
        `^difftry xds: node flood: ${count - 1} more NACKs of Cluster since \\S+ \\(stream ended\\)$`,
      ),
    );
    for (const line of printed) expect(line.length).toBeLessThan(400);
  });

  it('escapes every client string: a node id cannot forge a line or drive the terminal', async () => {
    const { server, lines } = await start();
    const ads = stream(server.port);
    const node = 'n1\ndifftry xds: version 9 (2 services)\u001b[2J\u2028\u202e';
    ads.send({ node: { id: node }, typeUrl: XDS_TYPES.listener });
    const { nonce } = await ads.next(XDS_TYPES.listener);
    ads.send({
      node: { id: node },
      typeUrl: XDS_TYPES.listener,
      versionInfo: 'v\r\n1',
      responseNonce: nonce,
      errorDetail: { code: 3, message: 'line one\nline two\u009b' },
    });
    await until(() => lines().length === 1, 'the NACK line');
    const [line] = lines() as [string];
    expect(line).not.toMatch(RAW_CONTROL);
    expect(line).toBe(
      'difftry xds: NACK from n1\\ndifftry xds: version 9 (2 services)\\x1b[2J\\u2028\\u202e: Listener (it keeps version v\\r\\n1): line one\\nline two\\x9b',
    );
  });
});

describe('createXdsServer: what a client can make it hold', () => {
  it('neither answers nor keeps types it does not serve; pushes only the served ones', async () => {
    const { server, events } = await start();
    const ads = stream(server.port);
    for (let i = 0; i < 500; i++) {
      ads.send({ node: { id: 'n' }, typeUrl: `type.googleapis.com/made.up.T${i}` });
    }
    ads.send({ node: { id: 'n' }, typeUrl: XDS_TYPES.listener });
    await ads.next(XDS_TYPES.listener);
    expect(events.filter((e) => e.kind === 'unknown')).toHaveLength(500);
    const from = ads.responses.length;
    server.update(NETWORK);
    await ads.next(XDS_TYPES.listener, from);
    await sleep(100);
    expect(ads.responses.map((r) => r.typeUrl)).toEqual([XDS_TYPES.listener, XDS_TYPES.listener]);
  });

  it('ends a stream whose request names more than 10,000 resources (the default)', async () => {
    const { server, events } = await start();
    const names = (n: number) => Array.from({ length: n }, (_, i) => `r${i}`);
    const fits = stream(server.port);
    fits.send({ typeUrl: XDS_TYPES.route, resourceNames: names(10_000) });
    expect((await fits.next(XDS_TYPES.route)).resources).toEqual([]);
    const over = stream(server.port);
    over.send({ typeUrl: XDS_TYPES.route, resourceNames: names(10_001) });
    const end = await over.ended();
    expect(end === 'ok' ? end : end?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(end === 'ok' ? '' : end?.details).toBe(
      'a DiscoveryRequest may name at most 10000 resources, got 10001',
    );
    expect(events.filter((e) => e.kind === 'refused')).toHaveLength(1);
  });

  it('serves at most limits.maxStreams streams at once', async () => {
    const { server } = await start({ limits: { maxStreams: 2 } });
    const first = stream(server.port);
    const second = stream(server.port);
    for (const ads of [first, second]) {
      ads.send({ typeUrl: XDS_TYPES.listener });
      await ads.next(XDS_TYPES.listener);
    }
    const third = stream(server.port);
    third.send({ typeUrl: XDS_TYPES.listener });
    const end = await third.ended();
    expect(end === 'ok' ? end : end?.code).toBe(status.RESOURCE_EXHAUSTED);
    first.close();
    await sleep(100);
    const fourth = stream(server.port);
    fourth.send({ typeUrl: XDS_TYPES.listener });
    expect((await fourth.next(XDS_TYPES.listener)).resources).toHaveLength(2);
  });

  it('refuses a request larger than limits.maxRequestBytes; takes a 1 MiB NACK by default', async () => {
    const small = await start({ limits: { maxRequestBytes: 64 * 1024 } });
    const big = stream(small.server.port);
    big.send({ typeUrl: XDS_TYPES.listener, resourceNames: ['x'.repeat(100 * 1024)] });
    const end = await big.ended();
    expect(end === 'ok' ? end : end?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(small.events).toEqual([]);

    const { server, events } = await start();
    const ads = stream(server.port);
    ads.send({ typeUrl: XDS_TYPES.listener });
    const { nonce } = await ads.next(XDS_TYPES.listener);
    ads.send({
      typeUrl: XDS_TYPES.listener,
      responseNonce: nonce,
      errorDetail: { code: 3, message: 'y'.repeat(1024 * 1024) },
    });
    await until(() => events.some((e) => e.kind === 'nack'), 'the 1 MiB NACK');
  });

  it('tells every connection it may open limits.maxConcurrentStreams streams (default 100)', async () => {
    const settings = async (port: number) => {
      const session = connectHttp2(`http://127.0.0.1:${port}`);
      try {
        return await new Promise<number | undefined>((resolve, reject) => {
          session.once('remoteSettings', (remote) => resolve(remote.maxConcurrentStreams));
          session.once('error', reject);
        });
      } finally {
        session.destroy();
      }
    };
    expect(await settings((await start()).server.port)).toBe(100);
    expect(await settings((await start({ limits: { maxConcurrentStreams: 7 } })).server.port)).toBe(
      7,
    );
  });

  it('checks its limits when it starts', async () => {
    await expect(start({ limits: { maxStreams: 0 } })).rejects.toThrow(
      'limits.maxStreams should be a whole number ≥ 1, got 0',
    );
  });
});
