import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create, fromBinary, type Message, toBinary } from '@bufbuild/protobuf';
import { type ClientDuplexStream, credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import { envoyMessage } from '../../src/xds/envoyApi.js';

// Shared by the xds*.test.ts files: the network they serve, the CLI as a child process, and a raw
// ADS client that NACKs.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = join(ROOT, 'src/cli/main.ts');

export const NETWORK = (k: { gold: number; silver: number; bronze: number }) => `
classes:
  - { name: gold, retries: ${k.gold} }
  - { name: silver, retries: ${k.silver} }
  - { name: bronze, retries: ${k.bronze} }
backoff: { kind: exponential, baseMs: 1, maxMs: 4, jitter: full }
services:
  - { name: web, capacity: 100, queue: 10, arrivals: { gold: 1, silver: 1, bronze: 1 }, calls: [{ to: geo }] }
  - { name: geo, capacity: 100, queue: 10 }
`;
export const BROKEN = NETWORK({ gold: 5, silver: 3, bronze: 1 }).replace(
  '{ name: geo, capacity: 100',
  '{ name: geo, capacity: -3',
);

/** `difftry xds serve …` as a child process, its stderr as lines. */
export class ServeProcess {
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

const ADS_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
export const CLUSTER_TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

/**
 * A raw ADS client that asks for the clusters and refuses the answer (a NACK with
 * `error_detail`), as a data plane does with a resource it cannot use. Resolves with the nonce
 * it refused.
 */
export async function nackOnce(port: number, node: string, detail: string): Promise<string> {
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

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits (at most `timeoutMs`, polling every 20 ms) until `condition` holds. */
export async function until(
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
