import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create, fromBinary, type Message, toBinary } from '@bufbuild/protobuf';
import {
  type Client,
  type ClientDuplexStream,
  credentials,
  makeGenericClientConstructor,
  status,
} from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xdsBootstrapCommand } from '../../src/cli/xdsCommand.js';
import {
  grpcClientNotes,
  parseEndpoints,
  parseHostPort,
  reloadLine,
  reloadNetwork,
  requestLine,
  shouldReload,
  slowBackoffLines,
} from '../../src/cli/xdsServe.js';
import { parseNetwork } from '../../src/spec/parseNetwork.js';
import { isSpecError } from '../../src/spec/SpecError.js';
import { envoyMessage } from '../../src/xds/envoyApi.js';
import { xdsBootstrap } from '../../src/xds/xdsBootstrap.js';
import { adsStream } from '../xds/adsClient.js';
import { callOnce, probeClient, refusingServer } from '../xds/grpcProbe.js';
import { runCli } from './runCli.js';

// `difftry xds serve` end to end: the CLI runs as a child process, a real @grpc/grpc-js-xds
// client (in this process) takes its routes from it and calls a gRPC server that always refuses,
// and the test counts the attempts of each call as the network file changes under the server.

register();

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src/cli/main.ts');

const NETWORK = (k: { gold: number; silver: number; bronze: number }) => `
classes:
  - { name: gold, retries: ${k.gold} }
  - { name: silver, retries: ${k.silver} }
  - { name: bronze, retries: ${k.bronze} }
backoff: { kind: exponential, baseMs: 1, maxMs: 4, jitter: full }
services:
  - { name: web, capacity: 100, queue: 10, arrivals: { gold: 1, silver: 1, bronze: 1 }, calls: [{ to: geo }] }
  - { name: geo, capacity: 100, queue: 10 }
`;
const BROKEN = NETWORK({ gold: 5, silver: 3, bronze: 1 }).replace(
  '{ name: geo, capacity: 100',
  '{ name: geo, capacity: -3',
);

describe('difftry xds bootstrap (in process)', () => {
  it('prints the GRPC_XDS_BOOTSTRAP JSON of xdsBootstrap', async () => {
    const { code, stdout, stderr } = await runCli(
      'xds',
      'bootstrap',
      '--server',
      '127.0.0.1:18000',
      '--node',
      'frontend-1',
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual(
      xdsBootstrap({ server: '127.0.0.1:18000', node: 'frontend-1' }),
    );
    expect(stdout.endsWith('}\n')).toBe(true);
    const plain = await runCli('xds', 'bootstrap', '--server', 'localhost:18000');
    expect(JSON.parse(plain.stdout).node.id).toBe('difftry-client');
    const v6 = await runCli('xds', 'bootstrap', '--server', '[::1]:18000');
    expect(JSON.parse(v6.stdout).xds_servers[0].server_uri).toBe('[::1]:18000');
  });

  it('refuses a bad --server or --node: exit 2, one line, nothing on stdout', async () => {
    for (const [args, message] of [
      [['--server', 'nope'], '--server: expected HOST:PORT, got "nope"'],
      [['--server', '127.0.0.1:0'], '--server: expected a port from 1 to 65535, got "127.0.0.1:0"'],
      [['--server', '127.0.0.1:70000'], 'got "127.0.0.1:70000"'],
      [['--server', '[nope]:1'], '--server: expected HOST:PORT, got "[nope]:1"'],
      [['--server', 'a b:1'], 'got "a b:1"'],
      [['--server', '127.0.0.1:1', '--node', ' '], '--node: expected a node id'],
      [[], "required option '--server <host:port>' not specified"],
    ] as const) {
      const { code, stdout, stderr } = await runCli('xds', 'bootstrap', ...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(() => xdsBootstrapCommand({ server: 'x' })).toThrow(/--server/);
  });
});

describe('difftry xds serve: flags and reload decisions (in process)', () => {
  it('refuses an --endpoint service the network lacks, naming the services it has', async () => {
    const { code, stdout, stderr } = await runCli(
      'xds',
      'serve',
      '--example',
      'two-tier',
      '--endpoint',
      'nosuch=127.0.0.1:50051',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^difftry: --endpoint: the network has no service "nosuch" \(services: /,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a bad HOST:PORT, a bad --listen, a file and an example at once', async () => {
    for (const [args, message] of [
      [['--endpoint', 'geo=127.0.0.1'], '--endpoint geo: expected HOST:PORT'],
      [['--endpoint', 'geo=127.0.0.1:0'], '--endpoint geo: expected a port from 1 to 65535'],
      [['--endpoint', 'geo=geo.local:8080'], 'an IPv4 or IPv6 address, got "geo.local"'],
      [['--server', 'nope'], "unknown option '--server'"],
      [
        ['--endpoint', '=127.0.0.1:1'],
        '--endpoint: expected SERVICE=HOST:PORT, got "=127.0.0.1:1"',
      ],
      [['--endpoint', '127.0.0.1:1'], '--endpoint: expected SERVICE=HOST:PORT'],
      [['--listen', '127.0.0.1'], '--listen: expected HOST:PORT, got "127.0.0.1"'],
      [['--listen', 'localhost:99999'], '--listen: expected a port from 0 to 65535'],
      [['net.yaml'], 'give a network FILE or --example NAME, not both'],
    ] as const) {
      const { code, stderr } = await runCli('xds', 'serve', '--example', 'single', ...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain(message);
    }
    const missing = await runCli('xds', 'serve');
    expect(missing.stderr).toBe(
      'difftry: missing network: give a FILE (YAML or JSON) or --example NAME\n',
    );
    const unreadable = await runCli('xds', 'serve', join(tmpdir(), 'difftry-no-such-file.yaml'));
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('cannot read the file: no such file');
  });

  it('parses endpoints: several per service, in order, none twice', () => {
    expect(
      parseEndpoints(['geo=10.0.0.5:8080', 'geo=10.0.0.6:8080', 'web=[::1]:9000', 'x=10.0.0.7:1']),
    ).toEqual({
      geo: [
        { host: '10.0.0.5', port: 8080 },
        { host: '10.0.0.6', port: 8080 },
      ],
      web: [{ host: '::1', port: 9000 }],
      x: [{ host: '10.0.0.7', port: 1 }],
    });
    expect(() => parseEndpoints(['geo=10.0.0.5:1', 'geo=10.0.0.5:1'])).toThrow(/given twice/);
    expect(parseHostPort('127.0.0.1:0', '--listen', 0)).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('decides what a reload does: a new version, or the last good one kept with one line', () => {
    let version = 3;
    const updated: unknown[] = [];
    const server = {
      get version() {
        return String(version);
      },
      update(network: unknown) {
        if ((network as { services: unknown[] }).services.length > 2) {
          throw new Error('cannot encode\nthis network');
        }
        updated.push(network);
        version += 1;
      },
    };
    const good = parseNetwork(NETWORK({ gold: 5, silver: 3, bronze: 1 }), 'net.yaml');
    const ok = reloadNetwork(server, () => good);
    expect(ok).toEqual({ kind: 'updated', version: '4', services: 2 });
    expect(reloadLine(ok)).toBe('difftry xds: version 4 (2 services)');
    expect(updated).toEqual([good]);

    const bad = reloadNetwork(server, () => parseNetwork(BROKEN, 'net.yaml'));
    expect(bad.kind).toBe('kept');
    expect(reloadLine(bad)).toMatch(
      /^difftry xds: kept version 4: net\.yaml:\d+:\d+: services\[1\]\.capacity: expected a positive number/,
    );
    const refused = reloadNetwork(server, () => ({
      ...good,
      services: [...good.services, ...good.services],
    }));
    expect(reloadLine(refused)).toBe('difftry xds: kept version 4: cannot encode this network');
    expect(version).toBe(4);

    expect(shouldReload('watch', 'a', 'a')).toBe(false);
    expect(shouldReload('watch', 'b', 'a')).toBe(true);
    expect(shouldReload('signal', 'a', 'a')).toBe(true);
  });

  it('logs a NACK on one line with the node, the type and the client’s detail; nothing else', () => {
    const event = {
      node: 'node-a',
      typeUrl: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
      resourceNames: ['geo-routes'],
      versionInfo: '2',
    };
    expect(requestLine({ ...event, kind: 'nack', error: 'bad route\n  num_retries: 0' })).toBe(
      'difftry xds: NACK from node-a: RouteConfiguration (it keeps version 2): bad route\\n  num_retries: 0',
    );
    for (const kind of ['initial', 'ack', 'stale', 'subscription', 'unknown'] as const) {
      expect(requestLine({ ...event, kind })).toBeUndefined();
    }
  });

  it('escapes and cuts every client string in a NACK line (printable), so it stays one line', () => {
    const line = requestLine({
      node: `n1\ndifftry xds: version 7 (2 services)\u001b[31m${'n'.repeat(500)}`,
      kind: 'nack',
      typeUrl: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
      resourceNames: [],
      versionInfo: '3\r\n',
      error: `\u202eevil\u2028${'e'.repeat(1024 * 1024)}`,
    }) as string;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: none may pass
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
    expect(
      line.startsWith(
        'difftry xds: NACK from n1\\ndifftry xds: version 7 (2 services)\\x1b[31mnnn',
      ),
    ).toBe(true);
    expect(line).toContain('(it keeps version 3\\r\\n): \\u202eevil\\u2028eee');
    expect(line).toContain('…(+1048382 chars)');
    expect(line.length).toBeLessThan(600);
  });

  it('logs a repeated NACK only as a count: with the next line, and when the stream ends', () => {
    const nack = {
      node: 'node-a',
      kind: 'nack' as const,
      typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
      resourceNames: [],
      versionInfo: '',
      error: 'bad cluster',
    };
    const repeats = { typeUrl: nack.typeUrl, count: 199, sinceMs: Date.UTC(2026, 0, 2, 3, 4, 5) };
    expect(requestLine({ ...nack, logged: false })).toBeUndefined();
    expect(requestLine({ ...nack, logged: true, unlogged: [repeats] })).toBe(
      'difftry xds: NACK from node-a: Cluster (it keeps version none): bad cluster (before it, 199 more NACKs of Cluster since 2026-01-02T03:04:05.000Z)',
    );
    expect(
      requestLine({ ...nack, kind: 'closed', typeUrl: '', error: undefined, unlogged: [repeats] }),
    ).toBe(
      'difftry xds: node node-a: 199 more NACKs of Cluster since 2026-01-02T03:04:05.000Z (stream ended)',
    );
    expect(requestLine({ ...nack, kind: 'closed', typeUrl: '', unlogged: [] })).toBeUndefined();
  });

  it('says on one line that --listen cannot listen on an address not on this machine', async () => {
    // grpc-js logs its own line for a failed bind ("E No address added out of total 1
    // resolved") through console.error, which vitest takes over in process: so the real CLI, as
    // a child, with grpc-js's default verbosity. Only difftry's one line may reach stderr.
    const env = { ...process.env };
    delete env.GRPC_VERBOSITY;
    delete env.GRPC_NODE_VERBOSITY;
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const args = ['--import', 'tsx', MAIN, 'xds', 'serve', '--example', 'single'];
        const child = spawn(process.execPath, [...args, '--listen', '192.0.2.1:0'], {
          cwd: ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout?.setEncoding('utf8').on('data', (text: string) => {
          stdout += text;
        });
        child.stderr?.setEncoding('utf8').on('data', (text: string) => {
          stderr += text;
        });
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^difftry: --listen 192\.0\.2\.1:0: cannot listen: No address added/),
    ]);
  });

  it('notes each class whose backoff reaches gRPC clients as an interval of 1 s or more', () => {
    const network = parseNetwork(
      [
        'classes:',
        '  - { name: gold, retries: 2, backoff: { kind: random, meanMs: 500 } }',
        '  - { name: bronze, retries: 1 }',
        'services:',
        '  - { name: geo, capacity: 10, queue: 5, arrivals: { gold: 1 } }',
      ].join('\n'),
      'net.yaml',
    );
    // gold: random, mean 500 ms → Envoy intervals 1 s; bronze: the default (mean 100 ms) → 0.2 s.
    expect(slowBackoffLines(network)).toEqual([
      "difftry xds: note: class gold's retry backoff is served as 1s–1s; @grpc/grpc-js-xds 1.14 clients read an interval of 1 s or more ten times too long (keep it under 1 s for them; docs/xds.md)",
    ]);
  });

  it('notes the per-try timeouts gRPC clients ignore, class by class, with the services they time', () => {
    const network = parseNetwork(
      [
        'classes:',
        '  - { name: gold, retries: 7 }',
        '  - { name: bronze, retries: 1, timeoutMs: 200 }',
        'services:',
        '  - { name: web, capacity: 10, queue: 5, arrivals: { gold: 1 }, calls: [{ to: cart }] }',
        '  - { name: cart, capacity: 10, queue: 5, timeouts: { gold: 80 } }',
      ].join('\n'),
      'net.yaml',
    );
    expect(grpcClientNotes(network)).toEqual([
      'difftry xds: note: class gold retries up to 7 times at some hop; gRPC clients make at most 5 attempts a call, so they retry it 4 times (docs/xds.md)',
      'difftry xds: note: class gold has per-try timeouts on calls into cart; gRPC clients ignore them (their own deadline applies; docs/xds.md)',
      'difftry xds: note: class bronze has per-try timeouts on calls into web, cart; gRPC clients ignore them (their own deadline applies; docs/xds.md)',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// End to end.

/** `difftry xds serve …` as a child process, its stderr as lines. */
class ServeProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #partial = '';

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'xds', 'serve', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GRPC_TRACE: '', GRPC_VERBOSITY: 'NONE' },
    });
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      const parts = (this.#partial + text).split('\n');
      this.#partial = parts.pop() ?? '';
      this.lines.push(...parts);
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  /** Waits (at most `timeoutMs`) for a line after the first `from` to match; returns it. */
  async line(pattern: RegExp, from = 0, timeoutMs = 30_000): Promise<string> {
    let found: string | undefined;
    await until(
      () => {
        found = this.lines.slice(from).find((line) => pattern.test(line));
        return found !== undefined;
      },
      timeoutMs,
      () => `no line matching ${pattern} in:\n${this.lines.join('\n')}`,
    );
    return found as string;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

describe('difftry xds serve, end to end: a real gRPC xDS client follows the file', () => {
  let dir: string;
  let file: string;
  let backend: Awaited<ReturnType<typeof refusingServer>>;
  let serve: ServeProcess;
  let xdsPort: number;
  let client: Client;
  const children: ServeProcess[] = [];
  const clients: Client[] = [];

  /** A client of the control plane, bootstrapped as `difftry xds bootstrap` prints it. */
  const xdsClient = (node: string) => {
    const bootstrap = xdsBootstrapCommand({ server: `127.0.0.1:${xdsPort}`, node }).stdout;
    const made = probeClient(bootstrap);
    clients.push(made);
    return made;
  };

  /** The attempts a call of each class makes, in order. */
  const attemptsOf = async (classes: readonly (string | undefined)[]) => {
    const seen: number[] = [];
    for (const className of classes) {
      const result = await callOnce(client, backend.attempts, className);
      expect(result.code, `class ${className}`).toBe(status.UNAVAILABLE);
      seen.push(result.attempts);
    }
    return seen;
  };

  /** Waits (bounded) until calls of `classes` make `expected` attempts: an update reached the client. */
  const untilAttempts = async (classes: readonly (string | undefined)[], expected: number[]) => {
    let seen: number[] = [];
    await until(
      async () => {
        seen = await attemptsOf(classes);
        return seen.join() === expected.join();
      },
      10_000,
      () => `attempts ${seen.join()}, expected ${expected.join()}`,
    );
  };

  const CLASSES = ['gold', 'silver', 'bronze', undefined, 'platinum'] as const;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'difftry-xds-'));
    file = join(dir, 'net.yaml');
    await writeFile(file, NETWORK({ gold: 5, silver: 3, bronze: 1 }));
    backend = await refusingServer();
    serve = new ServeProcess([
      file,
      '--listen',
      '127.0.0.1:0',
      '--endpoint',
      `geo=127.0.0.1:${backend.port}`,
    ]);
    children.push(serve);
  });

  afterAll(async () => {
    for (const made of clients) made.close();
    for (const child of children) child.kill();
    await Promise.all(children.map((child) => Promise.race([child.exited, sleep(5000)])));
    backend?.server.forceShutdown();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('prints one start line with the real port, and a note on what gRPC clients cannot do', async () => {
    const line = await serve.line(/^difftry xds: serving/);
    const match = /^difftry xds: serving 2 services on 127\.0\.0\.1:(\d+)$/.exec(line);
    expect(match, line).not.toBeNull();
    xdsPort = Number(match?.[1]);
    expect(xdsPort).toBeGreaterThan(0);
    const note = await serve.line(/^difftry xds: note/);
    expect(serve.lines).toEqual([
      line,
      'difftry xds: note: class gold retries up to 5 times at some hop; gRPC clients make at most 5 attempts a call, so they retry it 4 times (docs/xds.md)',
    ]);
    expect(note).toBe(serve.lines[1]);
  });

  it('serves k + 1 attempts per class (at most 5), the default class’s for none or unknown', async () => {
    client = xdsClient('node-a');
    expect(await attemptsOf(CLASSES)).toEqual([5, 4, 2, 2, 2]);
  });

  it('reloads a file rewritten in place: one version line, the new retries', async () => {
    const from = serve.lines.length;
    await writeFile(file, NETWORK({ gold: 5, silver: 2, bronze: 1 }));
    expect(await serve.line(/^difftry xds: (version|kept)/, from)).toBe(
      'difftry xds: version 2 (2 services)',
    );
    await untilAttempts(CLASSES, [5, 3, 2, 2, 2]);
  });

  it('reloads a file an editor replaces (written aside, renamed over it)', async () => {
    const from = serve.lines.length;
    const aside = join(dir, '.net.yaml.swp');
    await writeFile(aside, NETWORK({ gold: 5, silver: 2, bronze: 0 }));
    await rename(aside, file);
    expect(await serve.line(/^difftry xds: (version|kept)/, from)).toBe(
      'difftry xds: version 3 (2 services)',
    );
    // k = 0: one attempt, for bronze and for calls of no or an unknown class.
    await untilAttempts(CLASSES, [5, 3, 1, 1, 1]);
  });

  it('keeps the last good version for a broken file, saying why on one line', async () => {
    const from = serve.lines.length;
    await writeFile(file, BROKEN);
    let reason = '';
    try {
      parseNetwork(BROKEN, file);
    } catch (error) {
      if (!isSpecError(error)) throw error;
      reason = error.message;
    }
    expect(reason).toContain('services[1].capacity');
    expect(await serve.line(/^difftry xds: (version|kept)/, from)).toBe(
      `difftry xds: kept version 3: ${reason}`,
    );
    await sleep(500); // past the debounce: no second line for the same file
    expect(serve.lines.slice(from)).toEqual([`difftry xds: kept version 3: ${reason}`]);
    expect(await attemptsOf(CLASSES)).toEqual([5, 3, 1, 1, 1]);
  });

  it('reloads on SIGHUP, even a file that did not change', async () => {
    let from = serve.lines.length;
    serve.child.kill('SIGHUP');
    expect(await serve.line(/^difftry xds: (version|kept)/, from)).toMatch(
      /^difftry xds: kept version 3: .*services\[1\]\.capacity/,
    );
    from = serve.lines.length;
    await writeFile(file, NETWORK({ gold: 2, silver: 2, bronze: 1 }));
    expect(await serve.line(/^difftry xds: (version|kept)/, from)).toBe(
      'difftry xds: version 4 (2 services)',
    );
    from = serve.lines.length;
    serve.child.kill('SIGHUP');
    expect(await serve.line(/^difftry xds: (version|kept)/, from)).toBe(
      'difftry xds: version 5 (2 services)',
    );
    await untilAttempts(CLASSES, [3, 3, 2, 2, 2]);
  });

  it('logs a NACK with the node, the type and the client’s detail', async () => {
    const from = serve.lines.length;
    const nonce = await nackOnce(xdsPort, 'nacking-node', 'refused by the test client');
    expect(nonce).not.toBe('');
    expect(await serve.line(/NACK/, from)).toBe(
      'difftry xds: NACK from nacking-node: Cluster (it keeps version none): refused by the test client',
    );
    // The real client accepted everything it was sent.
    expect(serve.lines.filter((line) => line.includes('NACK from node-a'))).toEqual([]);
  });

  it('logs a flood of large NACKs from a forged node id as one escaped line and one count', async () => {
    const from = serve.lines.length;
    const node = 'flood\ndifftry xds: version 99 (2 services)';
    const ads = adsStream(xdsPort);
    try {
      ads.send({ node: { id: node }, typeUrl: CLUSTER_TYPE });
      const { nonce } = await ads.next(CLUSTER_TYPE);
      for (let i = 0; i < 50; i++) {
        ads.send({
          node: { id: node },
          typeUrl: CLUSTER_TYPE,
          responseNonce: nonce,
          errorDetail: { code: 3, message: `refused ${'z'.repeat(256 * 1024)}` },
        });
      }
      // A change of subscription is answered once every NACK before it has been read.
      const answered = ads.responses.length;
      ads.send({
        node: { id: node },
        typeUrl: CLUSTER_TYPE,
        responseNonce: nonce,
        resourceNames: ['geo'],
      });
      await ads.next(CLUSTER_TYPE, answered);
    } finally {
      ads.close();
    }
    const summary = await serve.line(/more NACKs/, from);
    const escaped = 'flood\\ndifftry xds: version 99 (2 services)';
    expect(summary).toMatch(
      new RegExp(
        `^difftry xds: node ${escapeRegExp(escaped)}: 49 more NACKs of Cluster since \\S+ \\(stream ended\\)$`,
      ),
    );
    const added = serve.lines.slice(from);
    expect(added.filter((line) => line.includes('NACK'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^difftry xds: NACK from ${escapeRegExp(escaped)}: Cluster \\(it keeps version none\\): refused z+…\\(\\+\\d+ chars\\)$`,
        ),
      ),
      summary,
    ]);
    expect(added.some((line) => line.startsWith('difftry xds: version 99'))).toBe(false);
    for (const line of added) expect(line.length).toBeLessThan(500);
  });

  it('stops cleanly on SIGTERM: closes the server and exits 0', async () => {
    serve.child.kill('SIGTERM');
    const exit = await Promise.race([serve.exited, sleep(15_000).then(() => 'timeout' as const)]);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(serve.lines.at(-1)).toBe('difftry xds: shutting down (version 5)');
  });

  it('serves --example too, reloads it on SIGHUP and stops on SIGINT', async () => {
    const example = new ServeProcess(['--example', 'two-tier']);
    children.push(example);
    const start = await example.line(/^difftry xds: serving/);
    expect(start).toMatch(/^difftry xds: serving \d+ services on 127\.0\.0\.1:\d+$/);
    example.child.kill('SIGHUP');
    expect(await example.line(/^difftry xds: version/)).toMatch(
      /^difftry xds: version 2 \(\d+ services\)$/,
    );
    example.child.kill('SIGINT');
    const exit = await Promise.race([example.exited, sleep(15_000).then(() => 'timeout' as const)]);
    expect(exit).toEqual({ code: 0, signal: null });
  });
});

const ADS_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
const CLUSTER_TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

/**
 * A raw ADS client that asks for the clusters and refuses the answer (a NACK with
 * `error_detail`), as a data plane does with a resource it cannot use. Resolves with the nonce
 * it refused.
 */
async function nackOnce(port: number, node: string, detail: string): Promise<string> {
  const request = envoyMessage('envoy.service.discovery.v3.DiscoveryRequest');
  const response = envoyMessage('envoy.service.discovery.v3.DiscoveryResponse');
  const Ads = makeGenericClientConstructor(
    {
      Stream: {
        path: ADS_PATH,
        requestStream: true,
        responseStream: true,
        requestSerialize: (message: Message) => Buffer.from(toBinary(request, message)),
        requestDeserialize: (bytes: Buffer) => fromBinary(request, bytes),
        responseSerialize: (message: Message) => Buffer.from(toBinary(response, message)),
        responseDeserialize: (bytes: Buffer) => fromBinary(response, bytes),
      },
    },
    'Ads',
  );
  const ads = new Ads(`127.0.0.1:${port}`, credentials.createInsecure());
  const stream = (ads as unknown as { Stream(): ClientDuplexStream<unknown, unknown> }).Stream();
  try {
    const first = new Promise<{ nonce: string }>((resolve, reject) => {
      stream.once('data', (message) => resolve(message as { nonce: string }));
      stream.once('error', reject);
    });
    stream.write(create(request, { node: { id: node }, typeUrl: CLUSTER_TYPE } as never));
    const answer = await Promise.race([
      first,
      sleep(10_000).then(() => Promise.reject(new Error('no DiscoveryResponse in 10 s'))),
    ]);
    stream.write(
      create(request, {
        node: { id: node },
        typeUrl: CLUSTER_TYPE,
        responseNonce: answer.nonce,
        errorDetail: { code: 3, message: detail },
      } as never),
    );
    await sleep(200);
    return answer.nonce;
  } finally {
    stream.on('error', () => {}); // the cancel below ends the stream with CANCELLED
    stream.cancel();
    ads.close();
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits (at most `timeoutMs`, polling every 20 ms) until `condition` holds. */
async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await sleep(20);
  }
}
