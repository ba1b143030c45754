import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { runCli } from './runCli.js';
import { BROKEN, MAIN, NETWORK, ROOT } from './xdsFixtures.js';

// `difftry xds serve` in process: the flags it refuses, how a reload is decided, the lines it
// logs and the notes it prints. One test runs the CLI as a child, for grpc-js's own output.

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
