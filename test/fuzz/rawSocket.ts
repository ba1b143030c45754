import { connect } from 'node:net';

/** How one raw exchange ended. */
export interface RawOutcome {
  /** `closed`: the sidecar (or the client's half-close) ended the connection; `answered`: a
   * response came and the connection then went quiet, left open; `stuck`: neither in time. */
  readonly end: 'closed' | 'answered' | 'stuck';
  /** Everything received, as latin1. */
  readonly received: string;
}

/** How long after a response a connection left open must stay quiet to count as done. */
const QUIET_MS = 30;

/**
 * Sends `bytes` on a fresh connection to `port` on 127.0.0.1 and reads until the sidecar closes
 * it, or (for a connection the client leaves open) until a response has come and nothing more
 * arrives for a moment, or until `boundMs`. With `endAfterSending` the client half-closes at once,
 * as a client that has nothing more to say. Never rejects: a reset is a close.
 */
export function boundedExchange(
  port: number,
  bytes: string,
  endAfterSending: boolean,
  boundMs: number,
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let quiet: NodeJS.Timeout | undefined;
    const finish = (end: RawOutcome['end']) => {
      clearTimeout(bound);
      clearTimeout(quiet);
      socket.destroy();
      resolve({ end, received });
    };
    const bound = setTimeout(() => finish('stuck'), boundMs);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (!endAfterSending && /^HTTP\/1\.[01] \d{3}[^\n]*\n[\s\S]*\r\n\r\n/.test(received)) {
        clearTimeout(quiet);
        quiet = setTimeout(() => finish('answered'), QUIET_MS);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => finish('closed'));
    socket.write(Buffer.from(bytes, 'utf8'));
    if (endAfterSending) socket.end();
  });
}

/** The status codes of the responses in `received` (each status line at the start of a line). */
export function responseStatuses(received: string): number[] {
  return [...received.matchAll(/(?:^|\n)HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
}
