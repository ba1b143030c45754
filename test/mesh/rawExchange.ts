import { connect } from 'node:net';

/** How long a raw exchange may take before it fails (far above any answer here). */
export const RAW_EXCHANGE_TIMEOUT_MS = 5_000;

/**
 * Sends raw bytes to a listener and reads until the peer closes, for requests a client library
 * will not send (`OPTIONS *`, `CONNECT`, bad transfer codings, dot segments). A reset after the
 * answer is fine: the answer is what counts.
 * @example
 * ```ts
 * const answer = await rawExchange(url, 'OPTIONS * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
 * ```
 */
export function rawExchange(
  url: string,
  text: string,
  options: { readonly end?: boolean } = {},
): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw exchange timed out: ${text.split('\r\n', 1)[0]}`));
    }, RAW_EXCHANGE_TIMEOUT_MS);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    // With `end`, the client half-closes after its bytes, as one with nothing more to send.
    if (options.end === true) socket.end(text);
    else socket.write(text);
  });
}

/** The status of a raw answer (`HTTP/1.1 503 …` → 503); NaN when there is none. */
export function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? Number.NaN);
}

/** A raw answer: its status and its body (de-chunked). */
export interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * Sends `GET target` as raw bytes (with `Host: frontend`, `extraHeaders` lines, and
 * `Connection: close`) and parses the answer, so dot segments and header spellings arrive as an
 * attacker sends them.
 * @example
 * ```ts
 * const { status, body } = await rawGet(url, '/premium/../admin', 'x_priority: high\r\n');
 * ```
 */
export async function rawGet(url: string, target: string, extraHeaders = ''): Promise<RawAnswer> {
  const received = await rawExchange(
    url,
    `GET ${target} HTTP/1.1\r\nHost: frontend\r\n${extraHeaders}Connection: close\r\n\r\n`,
  );
  const status = statusOf(received);
  const split = received.indexOf('\r\n\r\n');
  const head = split < 0 ? received : received.slice(0, split);
  const rest = split < 0 ? '' : received.slice(split + 4);
  return { status, body: /\r\ntransfer-encoding: *chunked/i.test(head) ? dechunk(rest) : rest };
}

/** The body of a chunked message (sizes in hex, each chunk followed by CRLF). */
function dechunk(text: string): string {
  let body = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (lineEnd < 0 || !(size > 0)) return body;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
