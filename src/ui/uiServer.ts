import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkingIntervalMs } from '../mesh/httpListener.js';
import { hostFieldRefusal } from '../policy/request/hostRefusal.js';
import { allowedHosts, hostAndOriginRefusal } from './allowedHosts.js';
import { isJsonMediaType } from './jsonMediaType.js';
import { readAsset } from './staticAssets.js';
import { parseTestbedJobRequest, type TestbedEvent, type TestbedJobRunner } from './TestbedJob.js';
import { testbedJobs } from './TestbedJobs.js';

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  /** The built page (`defaultAssetsDir()`, or a test's own build). */
  readonly assetsDir: string;
  /**
   * Address to listen on (an IPv6 literal without brackets); default 127.0.0.1. Also a `Host`
   * the server answers (see {@link UiServerOptions.allowedHosts}).
   */
  readonly host?: string;
  /**
   * Host names the server answers besides `127.0.0.1`, `localhost`, `[::1]` and `host` (each
   * with the port): a request with another `Host` gets 421, one with another `Origin` 403.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Most event streams (`GET /api/testbed/events`) open at once; one more gets 503.
   * @default 64
   */
  readonly maxEventStreams?: number;
  /**
   * Most connections open at once; the system closes one more at once.
   * @default 256
   */
  readonly maxConnections?: number;
  /**
   * ms a client has to send its request line and headers (408 after, as the sidecar does).
   * @default 10_000
   */
  readonly headersTimeoutMs?: number;
  /**
   * ms a client has to send its whole request, headers and body (408 after).
   * @default 30_000
   */
  readonly requestTimeoutMs?: number;
  /** Port; default 0 (any free one). */
  readonly port?: number;
  /** A network file the page opens first (`difftry ui FILE`): its name and text. */
  readonly network?: { readonly fileName: string; readonly text: string };
  /** Runs the page's testbed jobs; the real testbed by default (`runTestbedJob`). */
  readonly runner: TestbedJobRunner;
}

/** A running UI server. */
export interface UiServer {
  /** `http://127.0.0.1:PORT/`. */
  readonly url: string;
  readonly port: number;
  /** The address it is bound to, as the system resolved the host (`127.1` → `127.0.0.1`). */
  readonly address: string;
  /** Stops a running testbed job, closes every connection and the server. */
  close(): Promise<void>;
}

/** Largest request body the API reads, bytes. */
const MAX_BODY_BYTES = 16 * 1024;

/** Defaults of the server's bounds (see {@link UiServerOptions}). */
export const UI_SERVER_LIMITS = Object.freeze({
  maxEventStreams: 64,
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
});

/** Seconds a client refused for too many event streams is asked to wait (`retry-after`). */
const EVENT_STREAMS_RETRY_AFTER_S = 5;

/**
 * Serves the web UI (`difftry ui`): the built page, and a small API for it.
 *
 * - `GET /api/network`: the network file given on the command line, `{ fileName, text }` (204
 *   without one);
 * - `POST /api/testbed` with `{ kind: 'run' | 'fig5', … }` (TestbedJob.ts): starts a testbed run,
 *   202; 409 while one runs (one at a time), 400 on a bad body;
 * - `GET /api/testbed/events`: the current job's events as server-sent events, from its start;
 * - `POST /api/testbed/stop`: stops it (204; 404 when none runs).
 *
 * A page of another origin cannot drive it, nor read from it:
 * - every request, the page and its files included, must name this server in `Host`
 *   (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`, the `host` it listens on, or one of
 *   `allowedHosts`), else 421: a page whose DNS name was rebound to this address sends its own;
 * - a request whose `Origin` is not `http://` and one of those hosts is refused (403);
 * - POSTs must carry the media type `application/json` (415 otherwise), which a cross-origin page
 *   can only send after a CORS preflight this server never grants;
 * - a request target that is not a path (`/…`) gets 400.
 * It holds at most `maxEventStreams` event streams (503 with `retry-after` beyond) and
 * `maxConnections` connections, and cuts a client that is slow to send its request (408).
 */
export async function startUiServer(options: Readonly<UiServerOptions>): Promise<UiServer> {
  const jobs = testbedJobs(options.runner);
  const streams = new Set<ServerResponse>();
  const limits = {
    maxEventStreams: options.maxEventStreams ?? UI_SERVER_LIMITS.maxEventStreams,
    maxConnections: options.maxConnections ?? UI_SERVER_LIMITS.maxConnections,
    headersTimeoutMs: options.headersTimeoutMs ?? UI_SERVER_LIMITS.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? UI_SERVER_LIMITS.requestTimeoutMs,
  };
  let allowed: ReadonlySet<string> = new Set();
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node looks for timed-out requests on this period (30 s by default), as the sidecar sets it.
      connectionsCheckingInterval: checkingIntervalMs(limits.headersTimeoutMs),
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) send(response, 500, { error: String(error) });
        else response.destroy();
      });
    },
  );
  server.maxConnections = limits.maxConnections;

  const send = (response: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      response.writeHead(status).end();
      return;
    }
    response
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(body));
  };

  const readBody = async (request: IncomingMessage): Promise<string | undefined> => {
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const path = targetPath(request.url ?? '');
    if (path === undefined) {
      send(response, 400, { error: 'expected a request target that is a path (/…)' });
      return;
    }
    const badHost = hostFieldRefusal(request.rawHeaders);
    if (badHost !== undefined) {
      send(response, 400, { error: badHost });
      return;
    }
    const refused = hostAndOriginRefusal(allowed, request.headers.host, request.headers.origin);
    if (refused !== undefined) {
      send(response, refused.status, { error: refused.error });
      return;
    }
    if (path.startsWith('/api/')) {
      if (method === 'GET' && path === '/api/network') {
        if (options.network === undefined) send(response, 204);
        else send(response, 200, options.network);
        return;
      }
      if (method === 'GET' && path === '/api/testbed/events') {
        if (streams.size >= limits.maxEventStreams) {
          response.setHeader('retry-after', String(EVENT_STREAMS_RETRY_AFTER_S));
          send(response, 503, {
            error: `at most ${limits.maxEventStreams} event streams at once; close one or retry later`,
          });
          return;
        }
        response.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        response.write(': difftry testbed events\n\n');
        streams.add(response);
        const unsubscribe = jobs.subscribe((event: TestbedEvent) => {
          response.write(`event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`);
        });
        response.on('close', () => {
          unsubscribe();
          streams.delete(response);
        });
        return;
      }
      if (method === 'POST' && (path === '/api/testbed' || path === '/api/testbed/stop')) {
        if (!isJsonMediaType(request.headers['content-type'])) {
          send(response, 415, { error: 'expected content-type: application/json' });
          return;
        }
        const body = await readBody(request);
        if (body === undefined) {
          send(response, 413, { error: `a request body is at most ${MAX_BODY_BYTES} bytes` });
          return;
        }
        if (path === '/api/testbed/stop') {
          send(response, jobs.stop() ? 204 : 404);
          return;
        }
        const parsed = parseTestbedJobRequest(body);
        if (!parsed.ok) {
          send(response, 400, { error: parsed.error });
          return;
        }
        const started = jobs.start(parsed.request);
        send(response, started.ok ? 202 : 409, started.ok ? { started: true } : started);
        return;
      }
      send(response, 404, { error: `no ${method} ${path}` });
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      send(response, 405, { error: `no ${method} here` });
      return;
    }
    const asset = await readAsset(options.assetsDir, path);
    if (asset === undefined) {
      send(response, 404, { error: `no ${path}` });
      return;
    }
    response.writeHead(200, {
      'content-type': asset.type,
      'cache-control': path === '/' || path.endsWith('.html') ? 'no-cache' : 'max-age=3600',
    });
    response.end(method === 'HEAD' ? undefined : asset.body);
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  allowed = allowedHosts(port, [host, address, ...(options.allowedHosts ?? [])]);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    address,
    async close() {
      await jobs.close();
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * The path of an origin-form request target (`/a/b?q`), or undefined for anything else: an
 * absolute-form or authority-form target, `*`, or one that does not parse (`http://[x/`).
 */
function targetPath(target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  try {
    return new URL(`http://localhost${target}`).pathname;
  } catch {
    return undefined;
  }
}
