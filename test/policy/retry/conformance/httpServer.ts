/** The scripted HTTP server of the HTTP executors: each key's attempts play its steps in turn. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { type Step, stepOf } from './scripts.js';

/** The header that names a run's script; the path carries it too (`/s/KEY`). */
export const KEY_HEADER = 'x-conformance-key';

export interface ScriptServer {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Registers the steps of a run's key. */
  script(key: string, steps: readonly Step[]): void;
  /** Attempts seen for `key`. */
  attempts(key: string): number;
  close(): Promise<void>;
}

/** A `node:http` server on 127.0.0.1, port 0, answering each attempt as its key's script says. */
export async function startScriptServer(): Promise<ScriptServer> {
  const scripts = new Map<string, { steps: readonly Step[]; seen: number }>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const key = req.headers[KEY_HEADER];
    const entry = typeof key === 'string' ? scripts.get(key) : undefined;
    req.resume();
    if (entry === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('unknown script');
      return;
    }
    const step = stepOf(entry.steps, entry.seen++);
    switch (step.kind) {
      case 'success':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
        return;
      case 'unavailable': {
        const headers: Record<string, string> = {
          'content-type': 'text/plain',
          'content-length': '8',
        };
        if (step.pushbackMs !== undefined) headers['retry-after'] = String(step.pushbackMs / 1000);
        res.writeHead(503, headers).end('rejected');
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'hang':
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    script: (key, steps) => scripts.set(key, { steps, seen: 0 }),
    attempts: (key) => scripts.get(key)?.seen ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One harness's scripted server: `setup` starts it, `teardown` closes it, `current` is it
 * (a harness run before `setup` is a bug in the suite, said by `name`).
 */
export function scriptServerSlot(name: string): {
  setup(): Promise<void>;
  teardown(): Promise<void>;
  current(): ScriptServer;
} {
  let server: ScriptServer | undefined;
  return {
    async setup() {
      server = await startScriptServer();
    },
    async teardown() {
      await server?.close();
      server = undefined;
    },
    current() {
      if (server === undefined) throw new Error(`${name}: setup() first`);
      return server;
    },
  };
}

/** {@link scriptServerSlot} with an undici `Agent` beside the server, for the dispatching harnesses. */
export function scriptServerWithAgent(name: string): {
  setup(): Promise<void>;
  teardown(): Promise<void>;
  current(): { readonly server: ScriptServer; readonly agent: Agent };
} {
  const slot = scriptServerSlot(name);
  let agent: Agent | undefined;
  return {
    async setup() {
      await slot.setup();
      agent = new Agent();
    },
    async teardown() {
      await agent?.destroy();
      agent = undefined;
      await slot.teardown();
    },
    current() {
      const server = slot.current();
      if (agent === undefined) throw new Error(`${name}: setup() first`);
      return { server, agent };
    },
  };
}
