/**
 * The sidecar bench's load (bench/sidecar.ts): open-loop latency at a fixed rate and closed-loop
 * throughput, each over every path a request can take to the upstream.
 */

import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { build, type Histogram } from 'hdr-histogram-js';
import { Pool } from 'undici';
import type { Server } from './servers.js';
import {
  BODY,
  CLASS_HEADER,
  CONCURRENCY,
  PRIORITY,
  RATE,
  ROUND_MS,
  ROUNDS,
  THROUGHPUT_ROUND_MS,
  THROUGHPUT_WARMUP_MS,
  WARMUP_MS,
} from './settings.js';

/** One path a request can take to the upstream. */
export interface Path {
  readonly name: string;
  readonly pool: Pool;
  /** Request target, e.g. `/echo/hello` through the sidecar's prefix route. */
  readonly target: string;
  /** The proxy's process, whose CPU time is read around each measurement (none for direct). */
  readonly server: Server | undefined;
}

/** The same client settings for every path: keep-alive, no pipelining. */
export function clientPool(url: string, connections: number): Pool {
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
export interface OpenLoopRecord {
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
export async function latency(paths: readonly Path[]): Promise<Map<string, OpenLoopRecord>> {
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
export interface ClosedLoopRecord {
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
export async function pinnedThroughput(
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
