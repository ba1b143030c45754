import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ListenAddress, SidecarLimits } from '../config/sidecarSchema.js';
import { authorityRefusal, hostRefusal } from '../policy/request/hostRefusal.js';
import { absoluteFormAuthority } from '../policy/request/normalizePath.js';
import { type RequestHead, type SidecarHeaderNames, splitRequestHead } from './requestHead.js';
import { sendPlain } from './responseRelay.js';
import type { ListenerLabel, SidecarMetrics } from './sidecarMetrics.js';

/** Serves one request whose head passed the limits. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, head: RequestHead) => void;

/** Options of {@link startListener}. */
export interface ListenerOptions {
  readonly name: ListenerLabel;
  readonly address: ListenAddress;
  readonly limits: SidecarLimits;
  readonly headerNames: SidecarHeaderNames;
  readonly metrics: SidecarMetrics;
  readonly handle: RequestHandler;
  /** Whether the sidecar is shutting down: new requests get 503 and `Connection: close`. */
  readonly draining: () => boolean;
  /** Where a handler that threw is reported. */
  readonly log: (line: string) => void;
}

/** A listening `node:http` server and what shutdown needs of it. */
export interface Listener {
  /** `http://host:port` it listens on. */
  readonly url: string;
  /** Requests being served now. */
  readonly inFlight: number;
  /**
   * Stops accepting connections, closes idle keep-alive ones, and asks every response not yet
   * started to close its connection when done.
   */
  stopAccepting(): void;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
  /** Destroys every connection (after the grace period) and resolves when the server is closed. */
  destroy(): Promise<void>;
}

/**
 * How often Node looks for connections past their headers or request timeout: a tenth of the
 * shorter bound, between 10 ms and 1 s, so a stalled client is cut within 10 % (or 1 s) of it.
 */
export function checkingIntervalMs(headersTimeoutMs: number): number {
  return Math.min(1000, Math.max(10, Math.floor(headersTimeoutMs / 10)));
}

/**
 * Starts a `node:http` server for one of the sidecar's listeners, with the limits every listener
 * shares: header bytes (`maxHeaderSize`, 431 from the HTTP parser), header lines (431) and a
 * declared body length (413) are checked before the handler runs, and so is `Host` (400 for two
 * lines or one that is not `host[:port]`, RFC 9112 §3.2); a malformed request gets 400 without
 * disturbing anything else. A request whose headers take longer than
 * `limits.headersTimeoutMs`, or whose headers and body take longer than `limits.requestTimeoutMs`,
 * gets 408 (or, once a response has started, a closed connection). It keeps the set of requests in flight for graceful shutdown.
 * @throws the listen error (`EADDRINUSE`, `EACCES`, …).
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const { name, limits, headerNames, metrics, handle, draining, log } = options;
  const inFlight = new Set<ServerResponse>();
  /** Requests whose responses are not yet closed, per connection (several when pipelined). */
  const openOn = new WeakMap<Socket, Set<IncomingMessage>>();
  let idleWaiters: (() => void)[] = [];
  const server: Server = createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    // A client trickling its head or body would hold a connection (and, at the inbound listener,
    // an admission place) until Node's 300 s default: bound both. Node answers 408 (see the
    // clientError handler) and closes the connection, which ends the request and frees its place.
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks those timeouts on this period (30 s by default), so it is a bound's slack.
    connectionsCheckingInterval: checkingIntervalMs(limits.headersTimeoutMs),
  });
  // One more than allowed, so that a request over the limit is seen (the parser drops the rest).
  server.maxHeadersCount = limits.maxHeaders + 1;

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    const socket = req.socket;
    let open = openOn.get(socket);
    if (open === undefined) {
      open = new Set();
      openOn.set(socket, open);
    }
    open.add(req);
    let closed = false;
    // node:http queues the response of a pipelined request behind the one before it, and when the
    // connection drops it never closes the queued one (Node 20: no 'close', ever), so whatever
    // waits on it (an admission place, the in-flight count shutdown waits for) would wait for
    // ever. Close it here: destroyed, so nothing more is written, and 'close' emitted as node:http
    // emits it for the others.
    const onSocketClose = () => {
      if (closed) return;
      res.destroy();
      res.emit('close');
    };
    socket.once('close', onSocketClose);
    if (socket.destroyed) setImmediate(onSocketClose);
    res.once('close', () => {
      closed = true;
      socket.off('close', onSocketClose);
      openOn.get(socket)?.delete(req);
      inFlight.delete(res);
      if (inFlight.size === 0 && idleWaiters.length > 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    });
    if (draining()) {
      sendPlain(res, 503, 'difftry: shutting down', { connection: 'close' });
      return;
    }
    const head = splitRequestHead(req.rawHeaders, headerNames);
    if (head.count > limits.maxHeaders) {
      metrics.limitRejection(name, 'header_count');
      sendPlain(res, 431, `difftry: more than ${limits.maxHeaders} header lines`, {
        connection: 'close',
      });
      return;
    }
    if (head.contentLength > limits.maxBodyBytes) {
      metrics.limitRejection(name, 'body_bytes');
      sendPlain(res, 413, `difftry: request body over ${limits.maxBodyBytes} bytes`, {
        connection: 'close',
      });
      return;
    }
    // RFC 9112 §3.2: two Host lines, or one that is not host[:port], get 400 at every listener,
    // before any rule, route or admission place reads a host another reader may not see; so does
    // an absolute-form target's authority, which replaces Host (§3.2.2).
    const authority = absoluteFormAuthority(req.url ?? '/');
    const badHost =
      hostRefusal(head.hostLines, head.host) ??
      (authority ? authorityRefusal(authority) : undefined);
    if (badHost !== undefined) {
      sendPlain(res, 400, `difftry: request refused: ${badHost}`, { connection: 'close' });
      return;
    }
    try {
      handle(req, res, head);
    } catch (error) {
      // A bug must cost one request, never the sidecar.
      log(`difftry: ${name} listener: ${error instanceof Error ? error.message : String(error)}`);
      sendPlain(res, 500, 'difftry: internal error');
    }
  });

  // CONNECT asks for a tunnel, which a sidecar never opens: node:http hands it to this event
  // alone (with no listener it drops the connection without an answer), so answer 405 here.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH\r\n' +
        'Connection: close\r\nContent-Length: 0\r\n\r\n',
    );
  });

  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    // What node:http does without a listener, plus the count of header-size rejections.
    if (error.code === 'HPE_HEADER_OVERFLOW') metrics.limitRejection(name, 'header_bytes');
    // A bad request after whole ones on the same connection (pipelined): those still have their
    // responses to come, which a 400 would be read as; the connection can only be dropped. A
    // request still being received (its body timed out, or does not parse) is answered itself.
    let answering = false;
    for (const open of openOn.get(socket) ?? []) if (open.complete) answering = true;
    if (error.code !== 'ECONNRESET' && !answering && socket.writable && socket.bytesWritten === 0) {
      const status =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? '408 Request Timeout'
            : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.address.port, options.address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));

  return {
    url: `http://${host}:${address.port}`,
    get inFlight() {
      return inFlight.size;
    },
    stopAccepting() {
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      server.close();
      server.closeIdleConnections();
    },
    idle: () =>
      inFlight.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    async destroy() {
      if (server.listening) server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
