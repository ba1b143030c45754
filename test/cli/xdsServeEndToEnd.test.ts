import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, status } from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xdsBootstrapCommand } from '../../src/cli/xdsCommand.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { isSpecError } from '../../src/config/SpecError.js';
import { adsStream } from '../xds/adsClient.js';
import { callOnce, probeClient, refusingServer } from '../xds/grpcProbe.js';
import {
  BROKEN,
  CLUSTER_TYPE,
  escapeRegExp,
  NETWORK,
  nackOnce,
  ServeProcess,
  sleep,
  until,
} from './xdsFixtures.js';

// `difftry xds serve` end to end: the CLI runs as a child process, a real @grpc/grpc-js-xds
// client (in this process) takes its routes from it and calls a gRPC server that always refuses,
// and the test counts the attempts of each call as the network file changes under the server.

register();

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
