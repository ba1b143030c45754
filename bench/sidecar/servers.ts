/**
 * The sidecar bench's server processes (bench/sidecar.ts): the upstream, the difftry sidecar,
 * `http-proxy` and a bare TCP relay, each started from this file
 * (`serve ROLE [UPSTREAM_URL [SIDECAR_MODULE]]`) in a process of its own, which reports its URL
 * and, when asked, its CPU time. The sidecar is imported from SIDECAR_MODULE (see
 * compiledSidecar.ts), the source by default.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Agent as HttpAgent } from 'node:http';
import {
  type AddressInfo,
  connect,
  createServer as createNetServer,
  type Server as NetServer,
} from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import httpProxy from 'http-proxy';
import { BODY, CLASS_HEADER } from './settings.js';

export type Role = 'upstream' | 'sidecar' | 'http-proxy' | 'tcp-relay';

/** A message from a server process to this one. */
type ServerMessage =
  | { readonly kind: 'ready'; readonly url: string }
  | { readonly kind: 'cpu'; readonly micros: number };

/** A server process started from this file. */
export interface Server {
  readonly url: string;
  readonly pid: number;
  /** CPU time the process has used so far (user + system), µs. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1 at a port the system chooses; the server's `http://` URL. */
async function listenLocally(server: NetServer): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Runs one server (`serve ROLE [UPSTREAM_URL [SIDECAR_MODULE]]`) until told to stop; reports its
 * URL and CPU.
 */
async function serve(role: Role, upstreamUrl: string, sidecarModule: string): Promise<void> {
  let url: string;
  let close: () => Promise<void>;
  if (role === 'upstream') {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      response.end(BODY);
    });
    server.keepAliveTimeout = 60_000;
    url = await listenLocally(server);
    close = async () => {
      server.closeAllConnections();
      server.close();
    };
  } else if (role === 'sidecar') {
    const { startSidecar } = (await import(
      sidecarModule === '' ? '../../src/mesh/index.js' : sidecarModule
    )) as typeof import('../../src/mesh/index.js');
    const sidecar = await startSidecar(
      {
        service: 'bench',
        header: CLASS_HEADER,
        classes: [
          { name: 'high', retries: 5 },
          { name: 'low', retries: 1 },
        ],
        backoff: { kind: 'random', meanMs: 100 },
        outbound: {
          listen: '127.0.0.1:0',
          upstreams: [
            { name: 'echo', url: upstreamUrl, prefix: '/echo', timeoutMs: 1000, mesh: false },
          ],
        },
      },
      { source: 'bench/sidecar.ts', log: (line) => console.error(line) },
    );
    url = sidecar.outboundUrl as string;
    close = () => sidecar.close({ graceMs: 0 });
  } else if (role === 'tcp-relay') {
    // The floor: bytes copied between two sockets, one upstream connection per client connection,
    // no HTTP at all. What it adds is what any proxy process pays on this machine for the two
    // extra wake-ups and the four extra socket operations of a hop.
    const target = new URL(upstreamUrl);
    const server = createNetServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      client.pipe(upstream).on('error', () => client.destroy());
      upstream.pipe(client).on('error', () => upstream.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    url = await listenLocally(server);
    close = async () => {
      server.close();
    };
  } else {
    const agent = new HttpAgent({ keepAlive: true });
    const proxy = httpProxy.createProxyServer({ target: upstreamUrl, agent, proxyTimeout: 1000 });
    proxy.on('error', (error, _request, response) => {
      console.error(`http-proxy: ${error.message}`);
      if ('writeHead' in response && !response.headersSent) response.writeHead(502).end();
      else response.destroy();
    });
    const server = createServer((request, response) => proxy.web(request, response));
    url = await listenLocally(server);
    close = async () => {
      server.closeAllConnections();
      server.close();
      agent.destroy();
    };
  }
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ kind: 'cpu', micros: user + system } satisfies ServerMessage);
    } else if (message === 'stop') {
      close().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ kind: 'ready', url } satisfies ServerMessage);
}

/**
 * Starts `serve ROLE` in a process of its own (through tsx) and waits for its URL. A sidecar
 * imports `startSidecar` from `sidecarModule` (a URL), else from the source.
 */
export async function startServer(
  role: Role,
  upstreamUrl = '',
  profileDir?: string,
  sidecarModule = '',
): Promise<Server> {
  const args = ['serve', role, upstreamUrl, sidecarModule];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), args, {
    execArgv: [
      '--import',
      import.meta.resolve('tsx'),
      ...(profileDir === undefined
        ? []
        : ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`]),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // Answers come in the order asked: one waiter per message, failed all at once if it exits.
  const waiting: { resolve: (message: ServerMessage) => void; reject: (error: Error) => void }[] =
    [];
  child.on('message', (message) => waiting.shift()?.resolve(message as ServerMessage));
  const exited = once(child, 'exit');
  child.once('exit', (code, signal) => {
    const error = new Error(`bench ${role}: its process exited (${signal ?? code})`);
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  });
  const next = () =>
    new Promise<ServerMessage>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        reject(new Error(`bench ${role}: its process exited`));
      } else waiting.push({ resolve, reject });
    });
  const ready = await next();
  if (ready.kind !== 'ready') throw new Error(`bench ${role}: unexpected ${ready.kind}`);
  return {
    url: ready.url,
    pid: child.pid as number,
    async cpuMicros() {
      const answer = next();
      child.send('cpu');
      const message = await answer;
      if (message.kind !== 'cpu') throw new Error(`bench ${role}: unexpected ${message.kind}`);
      return message.micros;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === 'serve') {
  await serve(process.argv[3] as Role, process.argv[4] ?? '', process.argv[5] ?? '');
}
