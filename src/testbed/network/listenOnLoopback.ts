import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` on 127.0.0.1 at a port the system chooses (the testbed never binds anything
 * else), with keep-alive long enough for a load run (`keepAliveTimeoutMs`, default 30 s; `null`
 * keeps node:http's own), and returns its base URL.
 * @throws the listen error (e.g. no port left).
 */
export async function listenOnLoopback(
  server: Server,
  keepAliveTimeoutMs: number | null = 30_000,
): Promise<string> {
  if (keepAliveTimeoutMs !== null) server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
