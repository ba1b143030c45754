import { type Server, ServerCredentials, setLogger } from '@grpc/grpc-js';
// grpc-js exports setLogger but not getLogger; its logging module has it (no `exports` map).
import { getLogger } from '@grpc/grpc-js/build/src/logging.js';

/**
 * What grpc-js logs, on its own logger, when a bind fails, just before `bindAsync` reports the
 * same failure (with more detail) as an error: said twice, and the first time on stderr where
 * the caller cannot word it (`difftry xds serve` prints one line of its own).
 */
const BIND_FAILURE = /^No address added out of total \d+ resolved/;

/** Binds in progress, and the logger they replaced while at least one is. */
let binding = 0;
let replaced: Partial<Console> | undefined;

/**
 * Binds a gRPC server, insecure, on `host:port` (port 0: a free one). While it binds, grpc-js's
 * own line for a failed bind is held back (the rejection says it, with the reasons); every
 * other grpc-js log line goes where it went before.
 * @returns the port it got.
 */
export function bindGrpcServer(server: Server, host = '127.0.0.1', port = 0): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    holdBackBindFailures();
    try {
      server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, bound) => {
        releaseBindFailures();
        return error ? reject(error) : resolve(bound);
      });
    } catch (error) {
      releaseBindFailures();
      reject(error);
    }
  });
}

function holdBackBindFailures(): void {
  binding += 1;
  if (binding > 1) return;
  const previous = getLogger();
  replaced = previous;
  setLogger({
    error: (message?: unknown, ...rest: unknown[]) => {
      if (typeof message === 'string' && BIND_FAILURE.test(message)) return;
      previous.error?.call(previous, message, ...rest);
    },
    ...(previous.info !== undefined && { info: previous.info.bind(previous) }),
    ...(previous.debug !== undefined && { debug: previous.debug.bind(previous) }),
  });
}

function releaseBindFailures(): void {
  binding -= 1;
  if (binding > 0 || replaced === undefined) return;
  setLogger(replaced);
  replaced = undefined;
}
