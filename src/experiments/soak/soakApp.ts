/**
 * The soak's application (scripts/soak.ts): one loopback HTTP server behind both sidecars, with
 * a normal path and faulty ones. An executor: sockets and timers.
 *
 * - `…/work`: 200 after the service time;
 * - `/chain`: calls `${chainUrl}/backend/work` with the class the edge gave it, answers its status;
 * - `/upload`: reads the whole body, then 200;
 * - `/fault/hang`: never answers;
 * - `/fault/stall`: sends headers and half the body, then nothing;
 * - `/fault/reset`: resets the connection;
 * - `/fault/503`: 503 at once.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from '../../testbed/network/listenOnLoopback.js';

/** Options of {@link startSoakApp}. */
export interface SoakAppOptions {
  /** How long `…/work` takes, ms. */
  readonly serviceMs: number;
  /** Where `/chain` calls (the edge sidecar's outbound listener); read per request. */
  readonly chainUrl: () => string | undefined;
  /** The class header the edge sets and `/chain` passes on. */
  readonly classHeader: string;
  /** `/chain`'s client timeout, ms. */
  readonly chainTimeoutMs: number;
  /** The most connections `/chain` opens to `chainUrl`. */
  readonly chainSockets: number;
}

/** The running application. */
export interface SoakApp {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Closes the server, every connection and the `/chain` client. */
  close(): Promise<void>;
}

const WORK_BODY = `${'x'.repeat(255)}\n`;
const STALL_BYTES = 2048;

/**
 * Starts the application on 127.0.0.1, a port the system picks.
 * @example
 * ```ts
 * const app = await startSoakApp({ serviceMs: 100, chainUrl: () => edgeOutbound, classHeader: 'x-priority', chainTimeoutMs: 10_000, chainSockets: 64 });
 * ```
 */
export async function startSoakApp(options: SoakAppOptions): Promise<SoakApp> {
  const sockets = new Set<Socket>();
  const chainAgent = new Agent({ keepAlive: true, maxSockets: options.chainSockets });
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0] as string;
    if (path.endsWith('/work')) {
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': WORK_BODY.length });
        res.end(WORK_BODY);
      }, options.serviceMs);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    switch (path) {
      case '/chain':
        chain(req, res);
        return;
      case '/upload':
        req.resume();
        req.once('end', () => res.writeHead(200, { 'content-length': 0 }).end());
        return;
      case '/fault/hang':
        return;
      case '/fault/stall':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': STALL_BYTES });
        res.write('s'.repeat(STALL_BYTES / 2));
        return;
      case '/fault/reset':
        req.socket.resetAndDestroy();
        return;
      case '/fault/503':
        res.writeHead(503, { 'content-type': 'text/plain', 'content-length': 5 });
        res.end('busy\n');
        return;
      default:
        res.writeHead(404, { 'content-length': 0 }).end();
    }
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket: Socket) => socket.destroy());

  /** `/chain`: one call through the edge's outbound listener; 502 when it fails. */
  const chain = (req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': 3 });
      res.end('ok\n');
    };
    const base = options.chainUrl();
    if (base === undefined) {
      answer(502);
      return;
    }
    const { hostname, port } = new URL(base);
    const header = req.headers[options.classHeader];
    let answered = false;
    const once = (status: number) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      answer(status);
    };
    const call = httpRequest({
      agent: chainAgent,
      host: hostname,
      port,
      path: '/backend/work',
      headers: typeof header === 'string' ? { [options.classHeader]: header } : {},
    });
    const timer = setTimeout(() => {
      call.destroy();
      once(502);
    }, options.chainTimeoutMs);
    call.on('response', (response) => {
      response.resume();
      response.once('close', () => once(response.complete ? (response.statusCode ?? 502) : 502));
    });
    call.on('error', () => once(502));
    // The caller went away (the edge cut it): end the call it made.
    res.once('close', () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      call.destroy();
    });
    call.end();
  };

  // node:http's own keep-alive timeout (5 s): the soak counts on idle connections closing.
  const url = await listenOnLoopback(server, null);
  return {
    url,
    async close() {
      chainAgent.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
