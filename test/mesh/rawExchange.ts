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
export function rawExchange(url: string, text: string): Promise<string> {
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
    socket.write(text);
  });
}
