import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestbedJobRunner } from '../../src/ui/TestbedJob.js';
import { startUiServer, type UiServer } from '../../src/ui/uiServer.js';
import {
  checkForAWhile,
  failOnProblems,
  fuzzTestTimeoutMs,
  fuzzTimeLimitMs,
} from './fuzzBudget.js';
import { heapCollector } from './heapCollector.js';
import { boundedExchange, responseStatuses } from './rawSocket.js';

// Random raw requests at the `difftry ui` server on 127.0.0.1 port 0: Host and Origin lines
// (allowed, rebound, malformed, doubled, missing), content types, request targets, methods and
// bodies. Every exchange ends in a response or a clean close within a bound; the server never
// answers 500; a request naming a host it does not serve never gets a 2xx, never reads the
// network file and never starts a testbed run; a run starts only from an allowed Host and Origin
// with the media type application/json; afterwards it still serves the page, and its heap has
// not grown without bound. The rules are restated here, independently of src/ui.

const TIME_LIMIT_MS = fuzzTimeLimitMs(3_000);
const EXCHANGE_BOUND_MS = 4_000;
const SECRET = 'classes: [] # the network file';

let assets: string;
let server: UiServer;
let runsStarted = 0;

beforeAll(async () => {
  assets = await mkdtemp(join(tmpdir(), 'difftry-ui-fuzz-'));
  await writeFile(join(assets, 'index.html'), '<!doctype html><title>difftry</title>');
  const runner: TestbedJobRunner = async (request, { emit }) => {
    runsStarted += 1;
    emit({ kind: 'started', request, points: 1 });
  };
  server = await startUiServer({
    assetsDir: assets,
    runner,
    network: { fileName: 'net.yaml', text: SECRET },
    headersTimeoutMs: 300,
    requestTimeoutMs: 600,
  });
});
afterAll(async () => {
  await server?.close();
  await rm(assets, { recursive: true, force: true });
});

/** One random request, as the fuzz builds it. */
interface UiRequest {
  readonly method: string;
  readonly target: string;
  readonly hosts: readonly string[];
  readonly origin: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

const allowedHost = (port: number) =>
  fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LocalHost:${port}`);

const foreignHost = (port: number) =>
  fc.oneof(
    fc.constantFrom(
      `rebind.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `127.0.0.1:${port}/x`,
      `user@127.0.0.1:${port}`,
      `127.0.0.1:${port} x`,
      `127.0.0.1.:${port}.`,
      '',
    ),
    fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
  );

function requestArbitrary(port: number): fc.Arbitrary<UiRequest> {
  const host = fc.oneof(allowedHost(port), foreignHost(port));
  return fc.record({
    method: fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'OPTIONS', 'DELETE'),
    target: fc.oneof(
      fc.constantFrom(
        '/',
        '/index.html',
        '/api/network',
        '/api/testbed',
        '/api/testbed/stop',
        '/api/testbed/events',
        'http://[x/',
        'http://rebind.example/api/network',
        '*',
        '//api/network',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/api/network?x=%ff',
      ),
      fc.string({ maxLength: 30 }).map((s) => `/${s.replace(/[\s]/g, '')}`),
    ),
    hosts: fc.oneof(
      { weight: 5, arbitrary: host.map((h) => [h]) },
      { weight: 1, arbitrary: fc.array(host, { minLength: 0, maxLength: 3 }) },
    ),
    origin: fc.option(
      fc.oneof(
        allowedHost(port).map((h) => `http://${h.toLowerCase()}`),
        foreignHost(port).map((h) => `http://${h}`),
        fc.constantFrom('null', `https://127.0.0.1:${port}`, `http://127.0.0.1:${port}/`),
      ),
      { nil: undefined },
    ),
    contentType: fc.option(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/jsonfoo',
        'application/json-seq',
        'text/plain',
        'application/json; charset=latin1',
        'APPLICATION/JSON',
        'multipart/form-data; boundary=x',
      ),
      { nil: undefined },
    ),
    body: fc.oneof(
      fc.constantFrom(
        '{"kind":"run","durationS":0.2,"warmupS":0,"scale":0.01}',
        '{}',
        '',
        'x'.repeat(20_000),
      ),
      fc.string({ maxLength: 200 }),
    ),
  });
}

function bytesOf(request: UiRequest): string {
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  for (const host of request.hosts) lines.push(`Host: ${host}`);
  if (request.origin !== undefined) lines.push(`Origin: ${request.origin}`);
  if (request.contentType !== undefined) lines.push(`Content-Type: ${request.contentType}`);
  const body = Buffer.from(request.body, 'utf8');
  if (body.length > 0) lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${request.body}`;
}

/** Whether the rules of docs/ui.md let this request through the Host and Origin checks. */
function admitted(request: UiRequest, port: number): boolean {
  if (request.hosts.length !== 1) return false;
  const served = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  if (!served.has((request.hosts[0] as string).toLowerCase())) return false;
  if (request.origin === undefined) return true;
  const origin = request.origin.toLowerCase();
  return origin.startsWith('http://') && served.has(origin.slice(7));
}

describe('the UI server under random requests', () => {
  it(
    'answers every one within a bound, never 500, and only its own hosts and origins',
    async () => {
      const port = server.port;
      const gc = heapCollector();
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      await checkForAWhile(
        'ui-server',
        fc.asyncProperty(requestArbitrary(port), async (request) => {
          const runsBefore = runsStarted;
          const outcome = await boundedExchange(port, bytesOf(request), false, EXCHANGE_BOUND_MS);
          const statuses = responseStatuses(outcome.received);
          const problems: unknown[] = [];
          if (outcome.end === 'stuck') problems.push({ request, problem: 'no end in time' });
          if (statuses.includes(500)) problems.push({ request, problem: '500', outcome });
          const ok = statuses.some((status) => status >= 200 && status < 300);
          if (!admitted(request, port)) {
            if (ok && request.method !== 'OPTIONS')
              problems.push({ request, problem: '2xx', statuses });
            if (outcome.received.includes(SECRET))
              problems.push({ request, problem: 'read the file' });
            if (runsStarted !== runsBefore) problems.push({ request, problem: 'started a run' });
          }
          const json = /^application\/json(?:\s*;\s*charset=utf-8)?$/i.test(
            request.contentType ?? '',
          );
          if (runsStarted !== runsBefore && !json) {
            problems.push({ request, problem: 'a run from a body that is not JSON' });
          }
          failOnProblems(problems);
        }),
        TIME_LIMIT_MS,
      );
      // Still serving, and nothing kept of what came.
      const page = await boundedExchange(
        port,
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        false,
        EXCHANGE_BOUND_MS,
      );
      expect(responseStatuses(page.received)).toEqual([200]);
      gc();
      const grownMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
      expect(grownMiB).toBeLessThan(64);
    },
    fuzzTestTimeoutMs(TIME_LIMIT_MS),
  );
});
