/**
 * The soak's clients (scripts/soak.ts): an ordinary request over a keep-alive agent, and the
 * slow clients (a slowloris head, a trickled body) over raw sockets. Each resolves exactly once,
 * with the outcome its client saw, and never later than its client timeout. An executor.
 */
import { type Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { SoakOutcome } from './soakOutcomes.js';
import type { SoakKind } from './soakTraffic.js';

/** The outcome of a client error before any response, with its message as the detail. */
export function errorOutcome(error: Error & { code?: string }, context = ''): SoakOutcome {
  const detail = `${error.message}${context}`;
  // node:http says "socket hang up" when the connection ended (FIN) before a response.
  if (error.message === 'socket hang up') return { type: 'closed', detail };
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return { type: 'reset', detail };
  return { type: 'error', code: error.code ?? error.name, detail };
}

/** When each keep-alive connection last finished a response (for the idle time of a reuse). */
const lastResponseEnd = new WeakMap<object, number>();

/**
 * Sends one ordinary request of `kind` to `baseUrl` over `agent` and reads the whole response.
 * @returns its status, `cut` when the body ended short, or how the connection failed.
 */
export function sendRequest(kind: SoakKind, baseUrl: string, agent: Agent): Promise<SoakOutcome> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: SoakOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = httpRequest({
      agent,
      host: hostname,
      port,
      method: kind.method,
      path: kind.path,
      headers: { ...kind.headers },
    });
    const timer = setTimeout(() => {
      settle({ type: 'timeout' });
      req.destroy();
    }, kind.clientTimeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      // The socket goes back to the agent at the end, and the response lets go of it.
      const socket = res.socket;
      res.once('end', () => lastResponseEnd.set(socket, performance.now()));
      // 'close' comes after 'end' for a whole body, and alone for a cut one.
      res.once('close', () =>
        settle(res.complete ? { type: 'status', status } : { type: 'cut', status }),
      );
      res.on('error', () => {});
    });
    req.on('error', (error) => {
      // A reset on a reused keep-alive connection may be the race RFC 9112 §9.3.1 describes (the
      // server closing an idle connection as the request goes out): say how long it had idled.
      const ended = req.socket === null ? undefined : lastResponseEnd.get(req.socket);
      const context = req.reusedSocket
        ? `; reused connection, idle ${ended === undefined ? '?' : (performance.now() - ended).toFixed(0)} ms`
        : '; new connection';
      settle(errorOutcome(error, context));
    });
    req.end();
  });
}

/** What a raw client has read of a response: its status once the head is whole, its length. */
interface RawResponse {
  status?: number;
  bodyBytes?: number;
  headEnd?: number;
}

/** Parses as much of a response as `received` holds; returns whether it is whole. */
function readRaw(received: Buffer, into: RawResponse): boolean {
  if (into.headEnd === undefined) {
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const head = received.subarray(0, end).toString('latin1');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
    into.status = status === null ? 0 : Number(status[1]);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    into.bodyBytes = length === null ? 0 : Number(length[1]);
    into.headEnd = end + 4;
  }
  return received.length - into.headEnd >= (into.bodyBytes ?? 0);
}

/**
 * Runs one slow client of `kind` (`slow-headers` or `slow-body`) against `baseUrl` over a raw
 * socket: it trickles its head or body a byte at a time until the server answers or closes, or
 * its client timeout passes.
 * @returns the status of the server's (whole) answer, `closed`, `reset`, or `timeout`.
 */
export function runSlowClient(kind: SoakKind, baseUrl: string): Promise<SoakOutcome> {
  const { shape } = kind;
  if (shape.type === 'request') throw new RangeError(`${kind.name} is not a slow client`);
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const response: RawResponse = {};
    let settled = false;
    let sentBytes = 0;
    const settle = (outcome: SoakOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(trickle);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ type: 'timeout' }), kind.clientTimeoutMs);
    const extra = Object.entries(kind.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const start =
      `${kind.method} ${kind.path} HTTP/1.1\r\nHost: soak\r\n${extra}` +
      (shape.type === 'slow-headers'
        ? 'X-Slow: '
        : `Content-Type: application/octet-stream\r\nContent-Length: ${shape.bodyBytes}\r\n\r\n`);
    const limit = shape.type === 'slow-body' ? shape.bodyBytes : Number.POSITIVE_INFINITY;
    const trickle = setInterval(() => {
      if (sentBytes >= limit || !socket.writable) return;
      sentBytes++;
      socket.write('a');
    }, shape.byteIntervalMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (readRaw(received, response)) settle({ type: 'status', status: response.status ?? 0 });
    });
    socket.on('error', (error: Error & { code?: string }) => {
      if (response.status !== undefined) settle({ type: 'cut', status: response.status });
      else settle(errorOutcome(error));
    });
    socket.on('close', () => {
      if (response.status !== undefined) settle({ type: 'cut', status: response.status });
      else settle({ type: 'closed' });
    });
    socket.write(start);
  });
}
