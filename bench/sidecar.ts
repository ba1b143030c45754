/**
 * The sidecar's cost per hop, against a direct call and against the named peer,
 * `http-proxy` (the common Node proxy), measured in the same run:
 *
 * 1. Latency at 1,000 requests/s, open loop: one request every millisecond on a precomputed
 *    schedule, timed from its intended send (so a late send's wait counts) into an HdrHistogram in
 *    µs. The four paths — undici straight to the upstream, through the difftry sidecar's outbound
 *    listener, through `http-proxy`, and through a bare TCP relay (bytes copied between sockets,
 *    no HTTP: the floor any proxy process pays on the machine) — run in alternating 1 s rounds (the
 *    order rotating each round) after a 2 s warm-up each, 10 s per path in all, so drift of the
 *    machine's speed falls on all alike. Reported: p50 and p99 per path, the latency each hop adds
 *    (its percentile minus the direct one), and the ratio sidecar-added / http-proxy-added.
 *    Target: the sidecar adds at most 0.3 ms at p50, and no more than http-proxy.
 * 2. The most requests per second one sidecar passes on one core: closed loop, 64 concurrent
 *    requests over 64 keep-alive connections, requests completed in 2 × 2.5 s (alternating
 *    sidecar / http-proxy / http-proxy / sidecar), beside the CPU each process used in that time.
 *
 * Setup: the upstream (a `node:http` server answering 200 with a 2-byte body), the sidecar and
 * http-proxy each run in a process of their own, started from this file (`serve ROLE`); the load
 * generator is this process. A Node process runs its JavaScript on one thread, so the proxy gets
 * at most one core; with 2 cores on the reference machine, the client and the upstream compete
 * with it, which the reported CPU shares show. The sidecar is outbound only, one upstream routed
 * by path prefix (`/echo`), class header `x-priority`, DiffTry retries (high: 5, low: 1) and a
 * 1 s per-try timeout (http-proxy gets `proxyTimeout: 1000`) — no request fails, so none is
 * retried (the run checks every answer). Both proxies keep their upstream connections alive; the
 * client is one undici `Pool` per path with the same settings.
 *
 * Run alone with `npx tsx bench/sidecar.ts`. With `DIFFTRY_BENCH_CPU_PROF=DIR`, the sidecar's
 * process writes a CPU profile (`node --cpu-prof`) to DIR.
 */

import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Agent as HttpAgent } from 'node:http';
import {
  type AddressInfo,
  connect,
  createServer as createNetServer,
  type Server as NetServer,
} from 'node:net';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Histogram } from 'hdr-histogram-js';
import httpProxy from 'http-proxy';
import { Pool } from 'undici';
import { startSidecar } from '../src/mesh/index.js';
import { percent } from '../src/report/numberFormat.js';
import { report } from './harness.js';

/** Open-loop rate, requests per second, and the schedule's rounds. */
const RATE = 1000;
const WARMUP_MS = 2000;
const ROUND_MS = 1000;
const ROUNDS = 10;
/** Closed loop: concurrent requests (one connection each), warm-up and measured time per round. */
const CONCURRENCY = 64;
const THROUGHPUT_WARMUP_MS = 1000;
const THROUGHPUT_ROUND_MS = 2000;
/** The target: microseconds the sidecar may add at p50. */
const TARGET_ADDED_P50_US = 300;

const BODY = 'ok';
const CLASS_HEADER = 'x-priority';
const PRIORITY = 'high';

type Role = 'upstream' | 'sidecar' | 'http-proxy' | 'tcp-relay';

/** A message from a server process to this one. */
type ServerMessage =
  | { readonly kind: 'ready'; readonly url: string }
  | { readonly kind: 'cpu'; readonly micros: number };

/** One path a request can take to the upstream. */
interface Path {
  readonly name: string;
  readonly pool: Pool;
  /** Request target, e.g. `/echo/hello` through the sidecar's prefix route. */
  readonly target: string;
  /** The proxy's process, whose CPU time is read around each measurement (none for direct). */
  readonly server: Server | undefined;
}

/** A server process started from this file. */
interface Server {
  readonly url: string;
  readonly pid: number;
  /** CPU time the process has used so far (user + system), µs. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The server processes.

/** Listens on 127.0.0.1 at a port the system chooses; the server's `http://` URL. */
async function listenLocally(server: NetServer): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs one server (`serve ROLE [UPSTREAM_URL]`) until told to stop; reports its URL and CPU. */
async function serve(role: Role, upstreamUrl: string): Promise<void> {
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

/** Starts `serve ROLE` in a process of its own (through tsx) and waits for its URL. */
async function startServer(role: Role, upstreamUrl = '', profileDir?: string): Promise<Server> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['serve', role, upstreamUrl], {
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

// ---------------------------------------------------------------------------------------------
// The load.

/** The same client settings for every path: keep-alive, no pipelining. */
function clientPool(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

/** One request; true if it was answered 200 with the upstream's body. */
async function call(path: Path): Promise<boolean> {
  const { statusCode, body } = await path.pool.request({
    path: path.target,
    method: 'GET',
    headers: { [CLASS_HEADER]: PRIORITY },
  });
  return statusCode === 200 && (await body.text()) === BODY;
}

function histogram(): Histogram {
  return build({
    numberOfSignificantValueDigits: 3,
    highestTrackableValue: 60e6,
    autoResize: true,
  });
}

/** What one path's open-loop rounds recorded. */
interface OpenLoopRecord {
  /** Latency from the intended send to the whole answer, µs. */
  readonly fromIntended: Histogram;
  /** Latency from the actual send, µs. */
  readonly fromSent: Histogram;
  /** How late each send started behind its schedule, µs. */
  readonly lateness: Histogram;
  requests: number;
  failures: number;
  /** CPU time of the proxy's process during the rounds, µs. */
  cpuMicros: number;
}

/**
 * Sends `RATE` requests per second for `durationMs` on a fixed schedule (one every 1000 / RATE
 * ms), never waiting for an answer: a timer loop sends every request whose time has come, so a
 * late timer sends the overdue ones at once. Resolves when every answer is in.
 */
function openLoop(
  path: Path,
  durationMs: number,
  record: OpenLoopRecord | undefined,
): Promise<void> {
  const count = Math.round((durationMs * RATE) / 1000);
  const interval = 1000 / RATE;
  const start = performance.now() + interval;
  let next = 0;
  let inFlight = 0;
  return new Promise((resolve) => {
    const settle = (intended: number, sent: number, ok: boolean) => {
      const end = performance.now();
      inFlight--;
      if (record !== undefined) {
        record.requests++;
        if (ok) {
          record.fromIntended.recordValue(Math.round((end - intended) * 1000));
          record.fromSent.recordValue(Math.round((end - sent) * 1000));
          record.lateness.recordValue(Math.round((sent - intended) * 1000));
        } else record.failures++;
      }
      if (next === count && inFlight === 0) resolve();
    };
    const tick = () => {
      for (let now = performance.now(); next < count && start + next * interval <= now; ) {
        const intended = start + next * interval;
        next++;
        inFlight++;
        const sent = performance.now();
        call(path).then(
          (ok) => settle(intended, sent, ok),
          () => settle(intended, sent, false),
        );
      }
      if (next < count) setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    tick();
  });
}

/** Open-loop latency of every path: a warm-up each, then alternating rounds. */
async function latency(paths: readonly Path[]): Promise<Map<string, OpenLoopRecord>> {
  for (const path of paths) await openLoop(path, WARMUP_MS, undefined);
  const records = new Map<string, OpenLoopRecord>(
    paths.map((path) => [
      path.name,
      {
        fromIntended: histogram(),
        fromSent: histogram(),
        lateness: histogram(),
        requests: 0,
        failures: 0,
        cpuMicros: 0,
      },
    ]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < paths.length; i++) {
      const path = paths[(round + i) % paths.length] as Path;
      const record = records.get(path.name) as OpenLoopRecord;
      const cpuBefore = (await path.server?.cpuMicros()) ?? 0;
      await openLoop(path, ROUND_MS, record);
      record.cpuMicros += ((await path.server?.cpuMicros()) ?? 0) - cpuBefore;
    }
  }
  return records;
}

/** What one path's closed-loop rounds measured. */
interface ClosedLoopRecord {
  completed: number;
  failures: number;
  /** Seconds of counting. */
  seconds: number;
  /** CPU of the proxy's process, the upstream's and this one, µs, over `cpuSeconds` of wall time. */
  proxyCpuMicros: number;
  upstreamCpuMicros: number;
  clientCpuMicros: number;
  cpuSeconds: number;
}

/**
 * `CONCURRENCY` requests at a time for `warmupMs + measureMs`, each worker sending its next
 * request when its answer is in; counts the answers in the last `measureMs`.
 */
async function closedLoop(
  path: Path,
  upstream: Server,
  warmupMs: number,
  measureMs: number,
  record: ClosedLoopRecord,
): Promise<void> {
  let running = true;
  let counting = false;
  const worker = async () => {
    while (running) {
      const ok = await call(path).catch(() => false);
      if (!counting) continue;
      if (ok) record.completed++;
      else record.failures++;
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, worker);
  await sleep(warmupMs);
  const cpuStart = performance.now();
  const [proxy0, upstream0] = await Promise.all([path.server?.cpuMicros(), upstream.cpuMicros()]);
  const client0 = process.cpuUsage();
  counting = true;
  const start = performance.now();
  await sleep(measureMs);
  counting = false;
  record.seconds += (performance.now() - start) / 1000;
  const client1 = process.cpuUsage(client0);
  const [proxy1, upstream1] = await Promise.all([path.server?.cpuMicros(), upstream.cpuMicros()]);
  record.cpuSeconds += (performance.now() - cpuStart) / 1000;
  record.proxyCpuMicros += (proxy1 ?? 0) - (proxy0 ?? 0);
  record.upstreamCpuMicros += upstream1 - upstream0;
  record.clientCpuMicros += client1.user + client1.system;
  running = false;
  await Promise.all(workers);
}

/** Closed-loop throughput, rounds in the order given (each path's first round warms it up). */
async function throughput(
  order: readonly Path[],
  upstream: Server,
): Promise<Map<string, ClosedLoopRecord>> {
  const records = new Map<string, ClosedLoopRecord>();
  for (const path of order) {
    let record = records.get(path.name);
    const first = record === undefined;
    record ??= {
      completed: 0,
      failures: 0,
      seconds: 0,
      proxyCpuMicros: 0,
      upstreamCpuMicros: 0,
      clientCpuMicros: 0,
      cpuSeconds: 0,
    };
    records.set(path.name, record);
    await closedLoop(
      path,
      upstream,
      first ? THROUGHPUT_WARMUP_MS : THROUGHPUT_WARMUP_MS / 2,
      THROUGHPUT_ROUND_MS,
      record,
    );
  }
  return records;
}

/**
 * Sets the CPUs every thread of a process may run on (`taskset -a -p -c CPUS PID`, Linux); false
 * where that is not possible.
 */
function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Closed-loop throughput with each proxy on a core of its own: the proxies' processes pinned to
 * CPU 1, this process (the client) and the upstream's to CPU 0, when the machine has two CPUs or
 * more and `taskset` works; every process may use every CPU again afterwards. Returns whether the
 * processes were pinned.
 */
async function pinnedThroughput(
  order: readonly Path[],
  upstream: Server,
  proxies: readonly Server[],
): Promise<{ records: Map<string, ClosedLoopRecord>; pinned: boolean }> {
  const all = `0-${availableParallelism() - 1}`;
  const pinned =
    availableParallelism() >= 2 &&
    [process.pid, upstream.pid].every((pid) => pin(pid, '0')) &&
    proxies.every((proxy) => pin(proxy.pid, '1'));
  try {
    return { records: await throughput(order, upstream), pinned };
  } finally {
    if (availableParallelism() >= 2) {
      for (const pid of [process.pid, upstream.pid, ...proxies.map((proxy) => proxy.pid)]) {
        pin(pid, all);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The report.

const us = (value: number): string => `${Math.round(value).toLocaleString('en-US')} µs`;
const signedUs = (value: number): string => `${value < 0 ? '−' : '+'}${us(Math.abs(value))}`;
const perSecond = (value: number): string => `${Math.round(value).toLocaleString('en-US')} req/s`;

/** A ratio of added latencies, or why there is none (a peer adding nothing measurable). */
function addedRatio(sidecar: number, peer: number): string {
  return peer > 10 ? `${(sidecar / peer).toFixed(2)}×` : 'n/a (http-proxy adds ≤ 10 µs)';
}

function reportLatency(records: Map<string, OpenLoopRecord>): void {
  for (const [name, record] of records) {
    if (record.failures > 0) {
      throw new Error(`${name}: ${record.failures} of ${record.requests} requests failed`);
    }
  }
  const get = (name: string) => records.get(name) as OpenLoopRecord;
  const at = (name: string, percentile: number) =>
    get(name).fromIntended.getValueAtPercentile(percentile);
  const line = (label: string, name: string): [string, string] => {
    const sent = get(name).fromSent;
    return [
      label,
      `p50 ${us(at(name, 50))}, p99 ${us(at(name, 99))}  (send → answer: p50 ${us(
        sent.getValueAtPercentile(50),
      )}, p99 ${us(sent.getValueAtPercentile(99))})`,
    ];
  };
  const added = (name: string, percentile: number) =>
    at(name, percentile) - at('direct', percentile);
  const sidecarP50 = added('sidecar', 50);
  const proxyP50 = added('http-proxy', 50);
  const relayP50 = added('tcp-relay', 50);
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  const cpu = (name: string) => get(name).cpuMicros / get(name).requests;
  const lateness = get('direct').lateness;
  report(
    `Sidecar hop at ${RATE.toLocaleString('en-US')} requests/s, open loop (${ROUNDS} × ${ROUND_MS / 1000} s per path in alternating rounds after ${WARMUP_MS / 1000} s warm-up; latency from the intended send)`,
    [
      line('direct (undici → upstream)', 'direct'),
      line('difftry sidecar', 'sidecar'),
      line('peer: http-proxy', 'http-proxy'),
      line('floor: bare TCP relay (no HTTP)', 'tcp-relay'),
      [
        'added by the sidecar',
        `p50 ${signedUs(sidecarP50)}, p99 ${signedUs(added('sidecar', 99))}`,
      ],
      [
        'added by http-proxy',
        `p50 ${signedUs(proxyP50)}, p99 ${signedUs(added('http-proxy', 99))}`,
      ],
      [
        'added by the bare TCP relay',
        `p50 ${signedUs(relayP50)}, p99 ${signedUs(added('tcp-relay', 99))}`,
      ],
      [
        'ratio sidecar-added / http-proxy-added',
        `p50 ${addedRatio(sidecarP50, proxyP50)}, p99 ${addedRatio(
          added('sidecar', 99),
          added('http-proxy', 99),
        )}`,
      ],
      ["target: sidecar-added p50 ≤ http-proxy's", verdict(sidecarP50 <= proxyP50)],
      [
        `target: sidecar-added p50 ≤ ${TARGET_ADDED_P50_US} µs`,
        `${verdict(sidecarP50 <= TARGET_ADDED_P50_US)} (the bare relay's hop alone adds ${signedUs(relayP50)}: ${
          relayP50 <= TARGET_ADDED_P50_US
            ? 'within the target'
            : 'over the target before any HTTP is parsed'
        })`,
      ],
      [
        'CPU of the proxy process per request',
        `sidecar ${us(cpu('sidecar'))}, http-proxy ${us(cpu('http-proxy'))} (${(
          cpu('sidecar') / cpu('http-proxy')
        ).toFixed(2)}×), bare relay ${us(cpu('tcp-relay'))}`,
      ],
      [
        'pacer: send behind its schedule',
        `p50 ${us(lateness.getValueAtPercentile(50))}, p99 ${us(lateness.getValueAtPercentile(99))} (every path alike)`,
      ],
    ],
  );
}

function reportThroughput(records: Map<string, ClosedLoopRecord>, pinned: boolean): void {
  for (const [name, record] of records) {
    if (record.failures > 0) {
      throw new Error(`${name}: ${record.failures} requests failed under load`);
    }
  }
  const get = (name: string) => records.get(name) as ClosedLoopRecord;
  const rate = (name: string) => get(name).completed / get(name).seconds;
  const share = (name: string, micros: number) => micros / 1e6 / get(name).cpuSeconds;
  /** Requests per second of the proxy's own CPU time: what it passes with a core all its own. */
  const perCore = (name: string) => rate(name) / share(name, get(name).proxyCpuMicros);
  const proxyLine = (label: string, name: string): [string, string] => [
    label,
    `${perSecond(rate(name))}, its process at ${percent(share(name, get(name).proxyCpuMicros), 0)} of a core → ${perSecond(perCore(name))} per core of its CPU time`,
  ];
  const loadGenerator = (name: string) =>
    percent(share(name, get(name).clientCpuMicros + get(name).upstreamCpuMicros), 0);
  report(
    `Sidecar throughput, closed loop (${CONCURRENCY} concurrent requests on ${CONCURRENCY} keep-alive connections, 2 × ${THROUGHPUT_ROUND_MS / 1000} s per proxy; ${
      pinned
        ? 'the proxy pinned to CPU 1, the client and the upstream to CPU 0'
        : 'not pinned: client, upstream and proxy share the CPUs'
    })`,
    [
      ['reference: direct (undici → upstream)', perSecond(rate('direct'))],
      proxyLine('difftry sidecar', 'sidecar'),
      proxyLine('peer: http-proxy', 'http-proxy'),
      [
        'ratio sidecar / http-proxy',
        `${(rate('sidecar') / rate('http-proxy')).toFixed(2)}× measured, ${(
          perCore('sidecar') / perCore('http-proxy')
        ).toFixed(2)}× per core`,
      ],
      [
        `client + upstream CPU (${pinned ? 'CPU 0' : 'of a core'})`,
        `direct ${loadGenerator('direct')}, sidecar ${loadGenerator('sidecar')}, http-proxy ${loadGenerator('http-proxy')}`,
      ],
    ],
  );
}

/** Latency per hop at 1,000 requests/s and throughput on one core: sidecar, http-proxy, direct. */
export async function run(): Promise<void> {
  const upstream = await startServer('upstream');
  const [sidecar, proxy, relay] = await Promise.all([
    startServer('sidecar', upstream.url, process.env.DIFFTRY_BENCH_CPU_PROF),
    startServer('http-proxy', upstream.url),
    startServer('tcp-relay', upstream.url),
  ]);
  const pools: Pool[] = [];
  const paths = (connections: number): Path[] => {
    const path = (name: string, server: Server | undefined, url: string, target: string): Path => {
      const pool = clientPool(url, connections);
      pools.push(pool);
      return { name, pool, target, server };
    };
    return [
      path('direct', undefined, upstream.url, '/hello'),
      path('sidecar', sidecar, sidecar.url, '/echo/hello'),
      path('http-proxy', proxy, proxy.url, '/hello'),
      path('tcp-relay', relay, relay.url, '/hello'),
    ];
  };
  try {
    reportLatency(await latency(paths(16)));
    const [direct, viaSidecar, viaProxy] = paths(CONCURRENCY) as [Path, Path, Path, Path];
    const { records, pinned } = await pinnedThroughput(
      [direct, viaSidecar, viaProxy, viaProxy, viaSidecar],
      upstream,
      [sidecar, proxy],
    );
    reportThroughput(records, pinned);
  } finally {
    await Promise.all(pools.map((pool) => pool.destroy()));
    await Promise.all([sidecar.stop(), proxy.stop(), relay.stop()]);
    await upstream.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'serve') await serve(process.argv[3] as Role, process.argv[4] ?? '');
  else await run();
}
