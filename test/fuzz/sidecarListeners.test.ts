import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SidecarConfigInput } from '../../src/config/sidecarSchema.js';
import { type SidecarHandle, startSidecar } from '../../src/mesh/index.js';
import {
  EDGE_API_KEYS,
  MESH_TOKEN,
  type RawConnection,
  type RawRequest,
  rawConnectionArbitrary,
  requestBytes,
  TRUSTED_PEER,
} from './arbitraries/rawRequests.js';
import {
  checkForAWhile,
  failOnProblems,
  fuzzTestTimeoutMs,
  fuzzTimeLimitMs,
} from './fuzzBudget.js';
import { boundedExchange, responseStatuses } from './rawSocket.js';

// Random raw request heads and bodies at an edge sidecar (classes from its
// rules) and a mesh sidecar (classes from a trusted peer's header), on 127.0.0.1 port 0, each in
// front of an app that records what it receives. Every exchange ends in a response or a clean
// close within a bound; once they have, the sidecar holds no admission place, still serves a
// plain request and /healthz, and it never answers 500 (a handler that threw); the app never
// sees a class the edge rules or the trust did not give, nor a second spelling of the class
// header: checked by rules restated here, independently of src/mesh.

const TIME_LIMIT_MS = fuzzTimeLimitMs(3_000);
/** Far above the sidecar's own bounds below (headers 300 ms, whole request 600 ms). */
const EXCHANGE_BOUND_MS = 4_000;
const CLASSES = ['high', 'mid', 'low'] as const;
const DEFAULT_CLASS = 'low';
const EDGE_DEFAULT = 'mid';

/** What the app saw of one request. */
interface Arrival {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: readonly string[];
}

/** Every request the fuzz sent, by its x-fuzz-id, to match the app's copy with its origin. */
const sent = new Map<string, RawRequest>();
let nextId = 0;
/** Arrivals checked, by class, for the report of a long run. */
const arrivalsByClass = new Map<string, number>();

/** An app behind one sidecar: answers 200 at once and records every request. */
interface App {
  readonly server: Server;
  readonly url: string;
  readonly arrivals: Arrival[];
}

async function startApp(): Promise<App> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    arrivals.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders });
    req.on('error', () => {});
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

const apps: App[] = [];
let edge: SidecarHandle;
let edgeApp: App;
let mesh: SidecarHandle;
let meshApp: App;

const limits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  maxBodyBytes: 4096,
  replayBodyBytes: 1024,
};
const classes = CLASSES.map((name) => ({ name, retries: 1 }));

beforeAll(async () => {
  edgeApp = await startApp();
  meshApp = await startApp();
  apps.push(edgeApp, meshApp);
  const inbound = {
    listen: '127.0.0.1:0',
    // One place, so that a place (or a connection to the app) lost by one run starves the
    // probe of that same run, which then names the input that lost it.
    concurrency: 1,
    capacity: 8,
    appHeadersTimeoutMs: 2_000,
    appBodyTimeoutMs: 2_000,
  };
  const edgeConfig: SidecarConfigInput = {
    service: 'frontend',
    classes,
    backoff: { kind: 'constant', delayMs: 0 },
    inbound: {
      ...inbound,
      app: edgeApp.url,
      edge: {
        rules: [
          { path: '/premium', class: 'high' },
          { header: 'x-api-key', valueEnv: 'PREMIUM_KEYS', class: 'high' },
          { path: '/bulk', class: 'low' },
          { method: 'POST', path: '/orders', class: 'mid' },
        ],
        default: EDGE_DEFAULT,
      },
    },
    limits,
  };
  const meshConfig: SidecarConfigInput = {
    service: 'frontend',
    classes,
    backoff: { kind: 'constant', delayMs: 0 },
    identity: { tokenEnv: 'MESH_TOKEN' },
    inbound: { ...inbound, app: meshApp.url, trust: { peers: [TRUSTED_PEER] } },
    limits,
  };
  edge = await startSidecar(edgeConfig, { env: { PREMIUM_KEYS: EDGE_API_KEYS.join(',') } });
  mesh = await startSidecar(meshConfig, { env: { MESH_TOKEN } });
});

afterAll(async () => {
  await Promise.all([edge?.close({ graceMs: 0 }), mesh?.close({ graceMs: 0 })]);
  await Promise.all(
    apps.map(
      ({ server }) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** The headers of a raw list whose names fold (any case, `_` as `-`) to `name`. */
function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase().replaceAll('_', '-') === name) {
      values.push(rawHeaders[i + 1] as string);
    }
  }
  return values;
}

/** The values of the header lines `request` sent named exactly `name` (any case), as a server reads them. */
function sentValues(request: RawRequest, name: string): string[] {
  return request.headers
    .filter((header) => header.name.toLowerCase() === name)
    .map((header) => header.value.replace(/^[ \t]+|[ \t]+$/g, ''));
}

/** Whether `path` is `prefix` or continues it with a new segment. */
function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Why a path the app received is not canonical (dot segments, `//`, decodable escapes), if it is not. */
function nonCanonical(path: string): string | undefined {
  if (!path.startsWith('/')) return 'does not start with /';
  if (path.includes('//')) return 'has an empty segment';
  if (path.split('/').some((s) => s === '.' || s === '..')) return 'has a dot segment';
  for (const [, hex] of path.matchAll(/%(..)/g)) {
    if (hex !== (hex as string).toUpperCase()) return 'has a lower-case escape';
    if (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(Number.parseInt(hex as string, 16)))) {
      return 'has an escape of an unreserved character';
    }
  }
  return undefined;
}

/** What is wrong with one arrival at the app behind the edge sidecar. */
function edgeArrivalProblems(arrival: Arrival): string[] {
  const problems = commonArrivalProblems(arrival);
  const path = arrival.url.split('?', 1)[0] as string;
  const why = nonCanonical(path);
  if (why !== undefined) problems.push(`the app was given ${arrival.url}, which ${why}`);
  const [className] = headerValues(arrival.rawHeaders, 'x-priority');
  const id = headerValues(arrival.rawHeaders, 'x-fuzz-id')[0];
  const origin = id === undefined ? undefined : sent.get(id);
  // The edge reads a repeated header as node:http joins it.
  const key =
    origin === undefined
      ? headerValues(arrival.rawHeaders, 'x-api-key').join(', ')
      : sentValues(origin, 'x-api-key').join(', ');
  const hasKey = (EDGE_API_KEYS as readonly string[]).includes(key);
  // The four rules, first match wins, restated.
  const expected =
    underPrefix(path, '/premium') || hasKey
      ? 'high'
      : underPrefix(path, '/bulk')
        ? 'low'
        : arrival.method === 'POST' && underPrefix(path, '/orders')
          ? 'mid'
          : EDGE_DEFAULT;
  if (className === 'high' && expected !== 'high') {
    problems.push(`arrived as high with path ${path} and no valid key: a raised priority`);
  } else if (className !== expected) {
    problems.push(
      `arrived as ${className}, the rules give ${expected} for ${arrival.method} ${path}`,
    );
  }
  return problems;
}

/** What is wrong with one arrival at the app behind the mesh sidecar. */
function meshArrivalProblems(arrival: Arrival): string[] {
  const problems = commonArrivalProblems(arrival);
  const [className] = headerValues(arrival.rawHeaders, 'x-priority');
  const id = headerValues(arrival.rawHeaders, 'x-fuzz-id')[0];
  const origin = id === undefined ? undefined : sent.get(id);
  const trusted =
    origin !== undefined &&
    sentValues(origin, 'x-difftry-peer')[0] === `${TRUSTED_PEER};${MESH_TOKEN}`;
  const claimed = origin === undefined ? undefined : sentValues(origin, 'x-priority')[0];
  const resolved = CLASSES.find((name) => name === claimed?.trim().toLowerCase()) ?? DEFAULT_CLASS;
  const expected = trusted ? resolved : DEFAULT_CLASS;
  if (className !== expected) {
    problems.push(
      `arrived as ${className}, expected ${expected} (${trusted ? 'a trusted peer claiming' : 'untrusted, claiming'} ${JSON.stringify(claimed)})`,
    );
  }
  return problems;
}

/** Exactly one class header, a declared class, set by the sidecar; no identity header. */
function commonArrivalProblems(arrival: Arrival): string[] {
  const problems: string[] = [];
  const classHeaders = headerValues(arrival.rawHeaders, 'x-priority');
  if (classHeaders.length !== 1) {
    problems.push(
      `the app saw ${classHeaders.length} class headers (any spelling): ${JSON.stringify(arrival.rawHeaders)}`,
    );
  } else if (!(CLASSES as readonly string[]).includes(classHeaders[0] as string)) {
    problems.push(`the app saw the class ${JSON.stringify(classHeaders[0])}`);
  }
  if (
    arrival.rawHeaders.some((name, i) => i % 2 === 0 && name.toLowerCase() === 'x-difftry-peer')
  ) {
    problems.push('the app saw the identity header');
  }
  return problems;
}

/** Sends the connections at once, then checks their ends, the app's arrivals and /healthz. */
async function exchangeProblems(
  sidecar: SidecarHandle,
  app: App,
  connections: readonly RawConnection[],
  arrivalProblems: (arrival: Arrival) => string[],
): Promise<unknown[]> {
  const port = Number(new URL(sidecar.inboundUrl as string).port);
  const outcomes = await Promise.all(
    connections.map((connection) => {
      const bytes = connection.requests
        .map((request) => {
          const id = String(nextId++);
          sent.set(id, request);
          return requestBytes(request, id);
        })
        .join('');
      return boundedExchange(port, bytes, connection.endAfterSending, EXCHANGE_BOUND_MS);
    }),
  );
  const problems: unknown[] = [];
  outcomes.forEach((outcome, i) => {
    if (outcome.end === 'stuck') {
      problems.push({
        connection: i,
        problem: `neither a response nor a close in ${EXCHANGE_BOUND_MS} ms`,
        received: outcome.received,
      });
    }
    if (responseStatuses(outcome.received).includes(500)) {
      problems.push({
        connection: i,
        problem: 'a 500: a handler threw',
        received: outcome.received,
      });
    }
  });
  problems.push(...arrivalsProblems(app, arrivalProblems));
  const held = await heldPlaces(sidecar);
  if (held !== undefined) {
    problems.push({ problem: `every exchange has ended, yet the sidecar still holds ${held}` });
  }
  // /healthz is answered before admission: a plain request shows the app is still reachable,
  // every admission place given back.
  const probe = await boundedExchange(
    port,
    'GET /fuzz-probe HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    false,
    EXCHANGE_BOUND_MS,
  );
  if (!/^HTTP\/1\.1 200 /.test(probe.received)) {
    problems.push({ problem: 'a plain request after the run got no 200: places lost?', probe });
  }
  const health = await boundedExchange(
    port,
    'GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    false,
    EXCHANGE_BOUND_MS,
  );
  if (!/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok\n?$/.test(health.received)) {
    problems.push({ problem: 'the sidecar no longer answers /healthz with 200 ok', health });
  }
  return problems;
}

/** How long requests whose clients have gone may take to give their places back. */
const SETTLE_MS = 1_000;

/**
 * What the sidecar still holds once every exchange has ended (`running 1, in flight 1`), after
 * giving it {@link SETTLE_MS} to let go, or undefined when it holds nothing.
 */
async function heldPlaces(sidecar: SidecarHandle): Promise<string | undefined> {
  const deadline = performance.now() + SETTLE_MS;
  for (;;) {
    const text = await sidecar.registry.metrics();
    const gauge = (name: string) =>
      Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    const running = gauge('difftry_inbound_running');
    const queued = gauge('difftry_inbound_queued');
    const inFlight = gauge('difftry_in_flight_requests');
    if (running === 0 && queued === 0 && inFlight === 0) return undefined;
    if (performance.now() > deadline) {
      return `running ${running}, queued ${queued}, in flight ${inFlight}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The problems of the arrivals not yet looked at (some come after their client has gone). */
function arrivalsProblems(app: App, arrivalProblems: (arrival: Arrival) => string[]): unknown[] {
  const problems: unknown[] = [];
  for (const arrival of app.arrivals.splice(0)) {
    const className = headerValues(arrival.rawHeaders, 'x-priority')[0] ?? 'none';
    arrivalsByClass.set(className, (arrivalsByClass.get(className) ?? 0) + 1);
    const found = arrivalProblems(arrival);
    if (found.length > 0) problems.push({ arrival, problems: found });
  }
  return problems;
}

/** Runs the property against one sidecar, then checks the stragglers the last run left. */
async function fuzzSidecar(
  name: string,
  sidecar: () => SidecarHandle,
  app: () => App,
  arrivalProblems: (arrival: Arrival) => string[],
  connectionsArbitrary: fc.Arbitrary<RawConnection[]>,
): Promise<number> {
  const runs = await checkForAWhile(
    name,
    fc.asyncProperty(connectionsArbitrary, async (connections) => {
      failOnProblems(await exchangeProblems(sidecar(), app(), connections, arrivalProblems));
    }),
    TIME_LIMIT_MS,
    { noShrinking: true },
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  failOnProblems(arrivalsProblems(app(), arrivalProblems));
  if (process.env.FUZZ_SECONDS !== undefined || process.env.FUZZ_REPORT !== undefined) {
    console.info(
      `fuzz ${name}: ${sent.size} requests sent, the app received ${JSON.stringify(Object.fromEntries(arrivalsByClass))}`,
    );
  }
  sent.clear();
  arrivalsByClass.clear();
  return runs;
}

const connectionsArbitrary = fc.array(rawConnectionArbitrary, { minLength: 1, maxLength: 3 });

describe('fuzz: the sidecar listeners', () => {
  it(
    "edge: answers or closes every raw request, survives, and the app sees the rules' class",
    async () => {
      const runs = await fuzzSidecar(
        'sidecar edge',
        () => edge,
        () => edgeApp,
        edgeArrivalProblems,
        connectionsArbitrary,
      );
      expect(runs).toBeGreaterThan(0);
    },
    fuzzTestTimeoutMs(TIME_LIMIT_MS),
  );

  it(
    'mesh: answers or closes every raw request, survives, and believes a class from the trusted peer only',
    async () => {
      const runs = await fuzzSidecar(
        'sidecar mesh',
        () => mesh,
        () => meshApp,
        meshArrivalProblems,
        connectionsArbitrary,
      );
      expect(runs).toBeGreaterThan(0);
    },
    fuzzTestTimeoutMs(TIME_LIMIT_MS),
  );
});
