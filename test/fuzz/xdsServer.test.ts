import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestLine } from '../../src/cli/xdsServe.js';
import { XDS_TYPES } from '../../src/xds/xdsResources.js';
import { createXdsServer, type XdsServer } from '../../src/xds/xdsServer.js';
import { type AdsStream, adsStream, type RawDiscoveryRequest, sleep } from '../xds/adsClient.js';
import { XDS_TEST_NETWORK as NETWORK } from '../xds/xdsTestNetwork.js';
import {
  checkForAWhile,
  failOnProblems,
  fuzzTestTimeoutMs,
  fuzzTimeLimitMs,
} from './fuzzBudget.js';
import { heapCollector } from './heapCollector.js';

// Hostile ADS clients at one real xDS server on 127.0.0.1 port 0: malformed and oversized
// DiscoveryRequests, made-up type URLs, huge node ids full of control characters, NACK floods,
// raw garbage on the HTTP/2 socket. The server never goes down; every line `difftry xds serve`
// would print for what it saw is one line of bounded length with no raw control character, and
// there are not more lines than requests; the heap does not keep what the clients sent; and after
// each run a well-formed client still gets its Listener, Route, Cluster and ClusterLoadAssignment.

const TIME_LIMIT_MS = fuzzTimeLimitMs(3_000);

/** The longest line a request may make the CLI print: four fields of 200 characters, escaped. */
const MAX_LINE_CHARS = 4 * 200 * 6 + 400;

// biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control character may pass
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

const SERVED = Object.values(XDS_TYPES);

/** Text with every kind of character a log must not take raw. */
const hostileText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('\n', '\r', '\t', '\u001b', '\u0000', '\u007f', '\u009b', '\u2028', '\u202e'),
      fc.constantFrom('difftry xds: version 9', '[31m', '\\n', 'é', '🙂'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
    maxLength,
  });

/** A string repeated to a size: a huge field, cheap to make. */
const huge = fc
  .tuple(hostileText(8), fc.integer({ min: 1, max: 1024 * 1024 }))
  .map(([text, size]) =>
    (text === '' ? 'x' : text).repeat(Math.ceil(size / Math.max(1, text.length))),
  );

const typeUrl = fc.oneof(fc.constantFrom(...SERVED), hostileText(60), fc.constant(''));

/** One thing a hostile client does on its stream. */
type Action =
  | { readonly kind: 'request'; readonly request: RawDiscoveryRequest }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | {
      readonly kind: 'nackFlood';
      readonly typeUrl: string;
      readonly count: number;
      readonly detail: string;
    }
  | { readonly kind: 'manyTypes'; readonly count: number };

const request: fc.Arbitrary<RawDiscoveryRequest> = fc.record(
  {
    node: fc.record({ id: fc.oneof(hostileText(40), huge) }),
    typeUrl,
    versionInfo: hostileText(20),
    resourceNames: fc.oneof(
      fc.array(fc.oneof(fc.constantFrom('web', 'geo', 'geo-routes', '*'), hostileText(20)), {
        maxLength: 8,
      }),
      fc
        .integer({ min: 9_990, max: 10_010 })
        .map((n) => Array.from({ length: n }, (_, i) => `r${i}`)),
    ),
    responseNonce: fc.oneof(fc.constantFrom('', '1', '2', '3'), hostileText(10)),
    errorDetail: fc.record({
      code: fc.integer({ min: 0, max: 16 }),
      message: fc.oneof(hostileText(40), huge),
    }),
  },
  { requiredKeys: [] },
);

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: request.map((r) => ({ kind: 'request' as const, request: r })) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.record({ count: fc.integer({ min: 1, max: 200 }), detail: hostileText(40) }),
        fc.record({ count: fc.integer({ min: 1, max: 4 }), detail: huge }),
      )
      .chain(({ count, detail }) =>
        fc.constantFrom(...SERVED).map((type) => ({
          kind: 'nackFlood' as const,
          typeUrl: type,
          count,
          detail,
        })),
      ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('manyTypes' as const),
      count: fc.integer({ min: 1, max: 3000 }),
    }),
  },
);

/** Does what `actions` say on one stream, then closes it; resolves with the requests sent. */
async function hostileStream(port: number, actions: readonly Action[]): Promise<number> {
  const ads = adsStream(port);
  let sent = 0;
  try {
    for (const next of actions) {
      if (next.kind === 'request') {
        ads.send(next.request);
        sent += 1;
      } else if (next.kind === 'bytes') {
        ads.sendBytes(next.bytes);
        sent += 1;
      } else if (next.kind === 'manyTypes') {
        for (let i = 0; i < next.count; i++)
          ads.send({ typeUrl: `type.googleapis.com/fuzz.T${i}` });
        sent += next.count;
      } else {
        // The last response of the type, if the stream has one; else ask for the type first.
        let answer = ads.responses.findLast((r) => r.typeUrl === next.typeUrl);
        if (answer === undefined) {
          const from = ads.responses.length;
          ads.send({ node: { id: 'flood\n' }, typeUrl: next.typeUrl });
          sent += 1;
          // None: a stream the server ended (a refused request, bad bytes), or a stale request.
          answer = await ads.next(next.typeUrl, from, 300).catch(() => undefined);
        }
        if (answer === undefined) break;
        for (let i = 0; i < next.count; i++) {
          ads.send({
            typeUrl: next.typeUrl,
            responseNonce: answer.nonce,
            errorDetail: { code: 3, message: next.detail },
          });
        }
        sent += next.count;
      }
    }
    await Promise.race([ads.ended(200), sleep(50)]);
  } finally {
    ads.close();
  }
  return sent;
}

/**
 * Writes `bytes` on a raw TCP connection to the server's port (after the HTTP/2 preface, if
 * `preface`), then hangs up once the server closes or is quiet for a moment.
 */
function garbage(port: number, bytes: Uint8Array, preface: boolean): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (preface) socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
      socket.end(bytes);
    });
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.on('error', done);
    socket.on('close', done);
    socket.setTimeout(50, done);
  });
}

/** A well-formed client: asks for each type in turn, with the names the last one pointed to. */
async function wellFormed(port: number): Promise<string[]> {
  const ads: AdsStream = adsStream(port);
  const problems: string[] = [];
  try {
    const ask = async (type: string, names: string[], want: number) => {
      ads.send({ node: { id: 'good' }, typeUrl: type, resourceNames: names });
      const answer = await ads.next(type, 0, 5_000).catch((error: Error) => error);
      if (answer instanceof Error) problems.push(answer.message);
      else if (answer.resources.length !== want) {
        problems.push(`${type}: ${answer.resources.length} resources, expected ${want}`);
      }
    };
    await ask(XDS_TYPES.listener, [], 2);
    await ask(XDS_TYPES.route, ['geo-routes'], 1);
    await ask(XDS_TYPES.cluster, [], 2);
    await ask(XDS_TYPES.endpoint, ['geo'], 1);
  } finally {
    ads.close();
  }
  return problems;
}

describe('fuzz: the xDS server under hostile ADS clients', () => {
  let server: XdsServer;
  const problems: unknown[] = [];
  let lines = 0;
  let events = 0;

  beforeAll(async () => {
    server = await createXdsServer({
      network: NETWORK,
      endpoints: { geo: [{ host: '127.0.0.1', port: 1 }] },
      onRequest: (event) => {
        events += 1;
        const line = requestLine(event);
        if (line === undefined) return;
        lines += 1;
        if (RAW_CONTROL.test(line) || line.length > MAX_LINE_CHARS) {
          problems.push({ line: line.slice(0, 2_000), length: line.length });
        }
      },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it(
    'never goes down, logs bounded one-line lines, keeps nothing, still serves a good client',
    async () => {
      const gc = heapCollector();
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      let sent = 0;
      const runs = await checkForAWhile(
        'xds server',
        fc.asyncProperty(
          fc.array(action, { minLength: 1, maxLength: 6 }),
          fc.uint8Array({ maxLength: 256 }),
          fc.boolean(),
          async (actions, bytes, preface) => {
            sent += await hostileStream(server.port, actions);
            await garbage(server.port, bytes, preface);
            const served = await wellFormed(server.port);
            failOnProblems([...problems.splice(0), ...served]);
          },
        ),
        TIME_LIMIT_MS,
        { noShrinking: true },
      );
      expect(runs).toBeGreaterThan(0);
      // At most a line per request (plus one per stream's end), never a line per byte.
      expect(lines).toBeLessThanOrEqual(sent + 2 * runs);
      expect(events).toBeGreaterThan(0);
      await sleep(200); // the last streams' ends
      gc();
      const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
      expect(grownMb, `heap grew ${grownMb.toFixed(1)} MB`).toBeLessThan(64);
    },
    fuzzTestTimeoutMs(TIME_LIMIT_MS),
  );
});
