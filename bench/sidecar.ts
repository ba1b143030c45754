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
 * http-proxy each run in a process of their own, started from bench/sidecar/servers.ts; the load
 * generator is this process. A Node process runs its JavaScript on one thread, so the proxy gets
 * at most one core; with 2 cores on the reference machine, the client and the upstream compete
 * with it, which the reported CPU shares show. The sidecar is outbound only, one upstream routed
 * by path prefix (`/echo`), class header `x-priority`, DiffTry retries (high: 5, low: 1) and a
 * 1 s per-try timeout (http-proxy gets `proxyTimeout: 1000`) — no request fails, so none is
 * retried (the run checks every answer). Both proxies keep their upstream connections alive; the
 * client is one undici `Pool` per path with the same settings.
 *
 * The sidecar runs compiled to plain JavaScript, as the package ships it (see
 * bench/sidecar/compiledSidecar.ts); `DIFFTRY_BENCH_SIDECAR=tsx` runs its sources through tsx as
 * the other processes are, which costs it tsx's `keepNames` wrappers.
 *
 * Run alone with `npx tsx bench/sidecar.ts`. With `DIFFTRY_BENCH_CPU_PROF=DIR`, the sidecar's
 * process writes a CPU profile (`node --cpu-prof`) to DIR.
 */

import { pathToFileURL } from 'node:url';
import type { Pool } from 'undici';
import { sidecarBuild, sidecarModule } from './sidecar/compiledSidecar.js';
import { clientPool, latency, type Path, pinnedThroughput } from './sidecar/load.js';
import { reportLatency, reportThroughput } from './sidecar/report.js';
import { type Server, startServer } from './sidecar/servers.js';
import { CONCURRENCY } from './sidecar/settings.js';

/** Latency per hop at 1,000 requests/s and throughput on one core: sidecar, http-proxy, direct. */
export async function run(): Promise<void> {
  const build = sidecarBuild();
  const [upstream, module] = await Promise.all([startServer('upstream'), sidecarModule(build)]);
  const [sidecar, proxy, relay] = await Promise.all([
    startServer('sidecar', upstream.url, process.env.DIFFTRY_BENCH_CPU_PROF, module),
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
    reportLatency(await latency(paths(16)), build);
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
