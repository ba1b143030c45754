import { createHash } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a loopback server saw of one request. */
export interface ReceivedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly bodyBytes: number;
  /** SHA-256 of the body, hex. */
  readonly bodyHash: string;
}

/** Answers request number `index` (0-based); may leave it unanswered. */
export type Responder = (req: IncomingMessage, res: ServerResponse, index: number) => void;

export interface LoopbackServer {
  readonly url: string;
  readonly requests: readonly ReceivedRequest[];
  /** Resolves once `count` requests have arrived (with their whole body). */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Rejects every request with a 503 (the overloaded service of the tests). */
export const reject503: Responder = (_req, res) => reply(res, 503, 'rejected');

/** Never answers (a server that hangs; the tests' per-try timeouts and aborts end the request). */
export const neverAnswer: Responder = () => {};

export function reply(
  res: ServerResponse,
  status: number,
  body = '',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(body);
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A real `node:http` server on 127.0.0.1, port 0, recording every request it receives. */
export async function startServer(respond: Responder = reject503): Promise<LoopbackServer> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer(async (req, res) => {
    const hash = createHash('sha256');
    let bodyBytes = 0;
    try {
      for await (const chunk of req) {
        hash.update(chunk as Buffer);
        bodyBytes += (chunk as Buffer).length;
      }
    } catch {
      return; // the client went away mid-body
    }
    const index = requests.length;
    requests.push({
      method: req.method ?? '',
      headers: req.headers,
      bodyBytes,
      bodyHash: hash.digest('hex'),
    });
    for (const waiter of waiters.filter((w) => w.count <= requests.length)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    respond(req, res, index);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    requests,
    received: (count) =>
      count <= requests.length
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL on which nothing listens (a port just released). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api`;
}

/** Lets pending I/O callbacks and promise jobs run (real `setImmediate`, never faked here). */
export async function settle(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** `count` random-looking bytes from a fixed seed (a linear congruential generator). */
export function bytes(count: number, seed = 1): Uint8Array {
  const out = new Uint8Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}
