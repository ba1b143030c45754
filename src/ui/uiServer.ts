import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readAsset } from './staticAssets.js';
import { parseTestbedJobRequest, type TestbedEvent, type TestbedJobRunner } from './TestbedJob.js';
import { testbedJobs } from './TestbedJobs.js';

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  /** The built page (`defaultAssetsDir()`, or a test's own build). */
  readonly assetsDir: string;
  /** Address to listen on; default 127.0.0.1. */
  readonly host?: string;
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
  /** Stops a running testbed job, closes every connection and the server. */
  close(): Promise<void>;
}

/** Largest request body the API reads, bytes. */
const MAX_BODY_BYTES = 16 * 1024;

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
 * A page of another origin cannot drive it: POSTs must carry `content-type: application/json`
 * (which a cross-origin page can only send after a CORS preflight this server never grants), and
 * a request whose `Origin` is not this server's own is refused (403).
 */
export async function startUiServer(options: Readonly<UiServerOptions>): Promise<UiServer> {
  const jobs = testbedJobs(options.runner);
  const streams = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
      else response.destroy();
    });
  });

  const send = (response: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      response.writeHead(status).end();
      return;
    }
    response
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(body));
  };

  const sameOrigin = (request: IncomingMessage) => {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    return origin === `http://${request.headers.host ?? ''}`;
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
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const method = request.method ?? 'GET';
    if (!sameOrigin(request)) {
      send(response, 403, { error: 'requests from another origin are refused' });
      return;
    }
    if (path.startsWith('/api/')) {
      if (method === 'GET' && path === '/api/network') {
        if (options.network === undefined) send(response, 204);
        else send(response, 200, options.network);
        return;
      }
      if (method === 'GET' && path === '/api/testbed/events') {
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
        if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
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
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
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
