/**
 * The soak (`npm run soak -- [--minutes N] [--out FILE]`, not part of `npm test`):
 * an application, an edge sidecar and a mesh sidecar on loopback (ports the system picks), the
 * sidecars run as the real CLI (`difftry proxy --config FILE`) in their own processes, driven at
 * about 10× their admission capacity for `--minutes` (default 10) with slow clients and faulty
 * application paths mixed in. Every second each sidecar's RSS and open descriptors are read from
 * `/proc/PID`; they must stay under the ceilings (src/experiments/soak/soakCeilings.ts) and come
 * back near their baseline after the load; every request sent must end in an outcome (lost = 0).
 *
 * Prints a progress line every 15 s on stderr and the markdown summary on stdout (and to
 * `--out FILE`, checked before the run). Exit 0 on PASS, 1 on FAIL, 2 on bad arguments.
 * Nothing is written into docs/ unless `--out` says so.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sourceRevision } from '../src/experiments/provenance/sourceRevision.js';
import { startSoakApp } from '../src/experiments/soak/soakApp.js';
import {
  isSoakUsageError,
  parseSoakArguments,
  SOAK_USAGE,
  SoakUsageError,
} from '../src/experiments/soak/soakArguments.js';
import {
  judgeProcess,
  type ResourceSample,
  type SoakPhases,
} from '../src/experiments/soak/soakCeilings.js';
import { runSlowClient, sendRequest } from '../src/experiments/soak/soakClient.js';
import {
  edgeSidecarConfig,
  meshSidecarConfig,
  SOAK_ADMISSION_CAPACITY_PER_SECOND,
  SOAK_API_KEYS_ENV,
  SOAK_CHAIN_SOCKETS,
  SOAK_CLIENT_SOCKETS,
  SOAK_CONCURRENCY,
  SOAK_SERVICE_MS,
  SOAK_SYSTEM_CAPACITY,
  SOAK_TOKEN_ENV,
} from '../src/experiments/soak/soakConfigs.js';
import { ceilingsNote, SOAK_CEILINGS } from '../src/experiments/soak/soakLimits.js';
import {
  outcomeLabel,
  SoakLedger,
  type SoakOutcome,
} from '../src/experiments/soak/soakOutcomes.js';
import { arrivalsDue, shuffled } from '../src/experiments/soak/soakPacer.js';
import {
  formatProgress,
  formatSoakSummary,
  type SoakReport,
  soakChecks,
  soakPassed,
} from '../src/experiments/soak/soakSummary.js';
import {
  expectedOutcomes,
  goodputPerSecond,
  offeredPerSecond,
  SLOW_LANE_PAUSE_MS,
  SOAK_API_KEY,
  SOAK_KINDS,
  type SoakKind,
  type SoakTarget,
  slowClients,
} from '../src/experiments/soak/soakTraffic.js';
import { seededRandom } from '../src/model/random.js';
import { isOutputPathError } from '../src/report/OutputPathError.js';
import { checkOutputPath } from '../src/report/outputPath.js';
import { type SidecarProcess, sampleProcess, startSidecarProcess } from './soak/soakProcess.js';

/** Light traffic before the baseline, so lazily loaded code is in the baseline, ms. */
const WARM_UP_MS = 5_000;
/** Quiet after the warm-up, longer than every keep-alive timeout (5 s), ms. */
const QUIET_MS = 6_000;
/** The baseline window, ms. */
const BASELINE_MS = 5_000;
/** Settling after the last outcome, ms; the final window is its last {@link FINAL_MS}. */
const SETTLE_MS = 15_000;
const FINAL_MS = 5_000;
/** The warm-up's share of each kind's rate. */
const WARM_UP_SHARE = 0.05;
/** The most open-loop requests in flight per target; past it an arrival is skipped (counted). */
const IN_FLIGHT_BOUND = 1_000;
/** The pacer's period and the most arrivals of one kind per tick. */
const TICK_MS = 10;
const MAX_BURST = 50;
const SAMPLE_MS = 1_000;
/** How long the clients keep an idle keep-alive connection, ms. */
const CLIENT_IDLE_MS = 2_000;
/** How many unexpected outcomes are logged as they happen (all are counted). */
const REPORTED_ODDITIES = 20;
/** The seed of the order in which one tick's arrivals are sent. */
const SEED = 13;
const PROGRESS_MS = 15_000;
/** How long the drain may take past the load: the longest client timeout and some. */
const DRAIN_BOUND_MS = Math.max(...SOAK_KINDS.map((k) => k.clientTimeoutMs)) + 5_000;
const START_TIMEOUT_MS = 60_000;
/**
 * The least goodput (normal requests answered 200) each sidecar must keep, as a share of its
 * admission capacity: the faulty paths hold places for up to 2 s and the slow bodies for up to
 * 30 s by design (docs/mesh.md, Timeouts), so not all of c = 4 does useful work, but a gate that
 * slow clients starve would fall far below this.
 */
const MIN_GOODPUT_FRACTION = 0.5;

const fail = (message: string): never => {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(2);
};

let args: ReturnType<typeof parseSoakArguments>;
try {
  args = parseSoakArguments(process.argv.slice(2));
  if (args.out !== undefined) await checkOutputPath(args.out, '--out');
  if (!existsSync('/proc/self/status')) throw new SoakUsageError('needs /proc (Linux) to sample');
} catch (error) {
  if (isSoakUsageError(error) || isOutputPathError(error)) fail(error.message);
  throw error;
}
if (args.help) {
  process.stdout.write(SOAK_USAGE);
  process.exit(0);
}
const loadMs = args.minutes * 60_000;
const { out } = args;

const t0 = performance.now();
const now = () => performance.now() - t0;
const log = (line: string) => process.stderr.write(`${line}\n`);

// What the sidecars run: read now, since the shared tree may change while the soak runs.
const revision = sourceRevision();
const random = seededRandom(SEED);
const ledger = new SoakLedger(expectedOutcomes(SOAK_KINDS));
const warmUpLedger = new SoakLedger(expectedOutcomes(SOAK_KINDS));
const workDir = await mkdtemp(join(tmpdir(), 'difftry-soak-'));
const processes: SidecarProcess[] = [];
const samples = new Map<string, ResourceSample[]>();
const exitedAt = new Map<string, number>();
let stopping = false;
const agents = new Map<SoakTarget, Agent>();
let edgeOutboundUrl: string | undefined;

const app = await startSoakApp({
  serviceMs: SOAK_SERVICE_MS,
  chainUrl: () => edgeOutboundUrl,
  classHeader: 'x-priority',
  chainTimeoutMs: 10_000,
  chainSockets: SOAK_CHAIN_SOCKETS,
});

try {
  const env = {
    [SOAK_TOKEN_ENV]: randomBytes(16).toString('hex'),
    [SOAK_API_KEYS_ENV]: `${SOAK_API_KEY},soak-key-2`,
  };
  const meshFile = join(workDir, 'mesh.json');
  await writeFile(meshFile, JSON.stringify(meshSidecarConfig(app.url), null, 2));
  const mesh = await startSidecarProcess('mesh', meshFile, env, START_TIMEOUT_MS);
  processes.push(mesh);
  const meshInbound = mesh.urls.inbound as string;
  const edgeFile = join(workDir, 'edge.json');
  await writeFile(edgeFile, JSON.stringify(edgeSidecarConfig(app.url, meshInbound), null, 2));
  const edge = await startSidecarProcess('edge', edgeFile, env, START_TIMEOUT_MS);
  processes.unshift(edge);
  edgeOutboundUrl = edge.urls.outbound as string;
  const targets: Record<SoakTarget, string> = {
    'edge-inbound': edge.urls.inbound as string,
    'edge-outbound': edgeOutboundUrl,
    'mesh-inbound': meshInbound,
  };
  for (const target of Object.keys(targets) as SoakTarget[]) {
    // An idle connection is dropped after 2 s, well before the sidecars' 5 s keep-alive timeout
    // (node's agent alone keeps it for the 5 s hint less 1 s): so a client never sends on a
    // connection the server is closing at that moment (RFC 9112 §9.3.1), and a reset left over
    // is the sidecar's, not the race's.
    agents.set(
      target,
      new Agent({ keepAlive: true, maxSockets: SOAK_CLIENT_SOCKETS, timeout: CLIENT_IDLE_MS }),
    );
  }
  log(
    `soak: app ${app.url}; edge pid ${edge.pid} ${targets['edge-inbound']} (out ${edgeOutboundUrl}); mesh pid ${mesh.pid} ${meshInbound}`,
  );

  const sampler = setInterval(() => {
    const at = now();
    for (const sidecar of processes) {
      void sampleProcess(sidecar.pid, at).then((sample) => {
        if (sample !== undefined) samples.get(sidecar.name)?.push(sample);
        else if (!stopping && !exitedAt.has(sidecar.name)) {
          exitedAt.set(sidecar.name, at);
          log(`soak: ${sidecar.name} sidecar is gone: ${JSON.stringify(sidecar.exit())}`);
        }
      });
    }
  }, SAMPLE_MS);
  for (const sidecar of processes) samples.set(sidecar.name, []);

  const pendingByTarget = new Map<SoakTarget, number>();
  let skipped = 0;
  let reported = 0;
  const track = (
    book: SoakLedger,
    kind: SoakKind,
    run: () => Promise<SoakOutcome>,
  ): Promise<void> => {
    const ticket = book.send(kind.name);
    pendingByTarget.set(kind.target, (pendingByTarget.get(kind.target) ?? 0) + 1);
    let outcome: Promise<SoakOutcome>;
    try {
      outcome = run();
    } catch (error) {
      outcome = Promise.resolve({ type: 'error', code: `harness ${String(error)}` });
    }
    return outcome.then((result) => {
      pendingByTarget.set(kind.target, (pendingByTarget.get(kind.target) ?? 1) - 1);
      const verdict = book.settle(ticket, result);
      if (verdict !== 'expected' && reported < REPORTED_ODDITIES) {
        reported++;
        log(
          `soak: ${verdict} outcome at ${(now() / 1000).toFixed(1)} s: ${kind.name} (${kind.method} ${kind.path}) → ${outcomeLabel(result)}${result.detail === undefined ? '' : ` (${result.detail})`}`,
        );
      }
    });
  };

  /** Open-loop requests of every `request` kind at `share` of their rates for `durationMs`. */
  const openLoop = (book: SoakLedger, share: number, durationMs: number): Promise<void> =>
    new Promise((resolve) => {
      const started = now();
      const issued = new Map<string, number>();
      const tick = setInterval(() => {
        const elapsed = Math.min(now() - started, durationMs);
        const arrivals: SoakKind[] = [];
        for (const kind of SOAK_KINDS) {
          if (kind.shape.type !== 'request') continue;
          const done = issued.get(kind.name) ?? 0;
          const due = arrivalsDue(kind.shape.ratePerSecond * share, elapsed, done, MAX_BURST);
          issued.set(kind.name, done + due);
          for (let i = 0; i < due; i++) arrivals.push(kind);
        }
        for (const kind of shuffled(arrivals, random)) {
          if ((pendingByTarget.get(kind.target) ?? 0) >= IN_FLIGHT_BOUND) {
            skipped++;
            continue;
          }
          const agent = agents.get(kind.target) as Agent;
          void track(book, kind, () => sendRequest(kind, targets[kind.target], agent));
        }
        if (now() - started >= durationMs) {
          clearInterval(tick);
          resolve();
        }
      }, TICK_MS);
    });

  /** `lanes` slow clients of `kind` one after another until `untilMs`. */
  const slowLanes = (kind: SoakKind, untilMs: number): Promise<void>[] => {
    const lanes = kind.shape.type === 'request' ? 0 : kind.shape.lanes;
    return Array.from({ length: lanes }, async (_, lane) => {
      // Spread the lanes' starts over a pause, so they do not move in step.
      await delay((SLOW_LANE_PAUSE_MS * lane) / Math.max(1, lanes));
      while (now() < untilMs) {
        await track(ledger, kind, () => runSlowClient(kind, targets[kind.target]));
        await delay(SLOW_LANE_PAUSE_MS);
      }
    });
  };

  // Warm-up, quiet, baseline.
  await openLoop(warmUpLedger, WARM_UP_SHARE, WARM_UP_MS);
  await waitSettled(warmUpLedger, DRAIN_BOUND_MS);
  await delay(QUIET_MS);
  const baselineFromMs = now();
  await delay(BASELINE_MS);

  // The load.
  const loadFromMs = now();
  const startedAt = new Date().toISOString();
  log(`soak: load for ${args.minutes} min from ${startedAt}`);
  const progress = setInterval(() => {
    const latest = processes.map((p) => {
      const last = samples.get(p.name)?.at(-1);
      return exitedAt.has(p.name) || last === undefined
        ? { name: p.name }
        : { name: p.name, rssBytes: last.rssBytes, fds: last.fds };
    });
    log(formatProgress(now() - loadFromMs, loadMs, ledger.tally(), latest));
  }, PROGRESS_MS);
  const untilMs = loadFromMs + loadMs;
  const slow = SOAK_KINDS.flatMap((kind) => slowLanes(kind, untilMs));
  await openLoop(ledger, 1, loadMs);
  const loadEndMs = now();
  log(`soak: load stopped; draining ${ledger.pending} requests in flight`);
  await waitSettled(ledger, DRAIN_BOUND_MS);
  await Promise.race([Promise.all(slow), delay(DRAIN_BOUND_MS)]);
  clearInterval(progress);
  const drainedMs = now();
  log(
    `soak: drained in ${((drainedMs - loadEndMs) / 1000).toFixed(1)} s; settling ${SETTLE_MS / 1000} s`,
  );
  await delay(SETTLE_MS);
  const endMs = now();
  const healthy = new Map<string, boolean>();
  for (const sidecar of processes) {
    healthy.set(sidecar.name, await healthz(sidecar.urls.admin));
  }
  clearInterval(sampler);
  await delay(50); // the last samples' reads

  const phases: SoakPhases = {
    baselineFromMs,
    loadFromMs,
    loadUntilMs: drainedMs,
    finalFromMs: endMs - FINAL_MS,
  };
  const tally = ledger.tally();
  const okByKind = new Map(
    tally.kinds.map(([name, k]) => [name, k.outcomes.find(([label]) => label === '200')?.[1] ?? 0]),
  );
  const measuredLoadMs = loadEndMs - loadFromMs;
  const report: SoakReport = {
    startedAt,
    revision,
    nodeVersion: process.version,
    loadMs: measuredLoadMs,
    settleMs: SETTLE_MS,
    load: {
      concurrency: SOAK_CONCURRENCY,
      systemCapacity: SOAK_SYSTEM_CAPACITY,
      serviceMs: SOAK_SERVICE_MS,
      capacityPerSecond: SOAK_ADMISSION_CAPACITY_PER_SECOND,
      offeredPerSecond: {
        edge: offeredPerSecond(SOAK_KINDS, 'edge'),
        mesh: offeredPerSecond(SOAK_KINDS, 'mesh'),
      },
      slowClients: slowClients(SOAK_KINDS),
    },
    kinds: SOAK_KINDS,
    ledger: tally,
    warmUp: warmUpLedger.tally(),
    skipped,
    goodputPerSecond: goodputPerSecond(SOAK_KINDS, okByKind, measuredLoadMs),
    minGoodputFraction: MIN_GOODPUT_FRACTION,
    ceilings: SOAK_CEILINGS,
    ceilingNote: ceilingsNote(),
    processes: processes.map((sidecar) => ({
      name: sidecar.name,
      pid: sidecar.pid,
      verdict: judgeProcess(
        samples.get(sidecar.name) ?? [],
        phases,
        SOAK_CEILINGS[sidecar.name as keyof typeof SOAK_CEILINGS],
        exitedAt.get(sidecar.name),
      ),
      healthy: healthy.get(sidecar.name) ?? false,
    })),
  };
  const summary = formatSoakSummary(report);
  process.stdout.write(summary);
  process.exitCode = soakPassed(soakChecks(report)) ? 0 : 1;
  if (out !== undefined) {
    try {
      await writeFile(out, summary);
      log(`soak: wrote ${out}`);
    } catch (error) {
      log(`soak: --out: cannot write ${out}: ${(error as Error).message}`);
      process.exitCode = 2;
    }
  }
} catch (error) {
  // A sidecar that would not start, a port the system would not give: one line, and FAIL.
  log(`soak: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  stopping = true;
  for (const sidecar of processes) {
    const stderr = sidecar.stderr().trim();
    if (stderr !== '')
      log(`soak: ${sidecar.name} stderr: ${stderr.split('\n').slice(-5).join(' | ')}`);
  }
  await Promise.all(processes.map((sidecar) => sidecar.stop(5_000)));
  for (const agent of agents.values()) agent.destroy();
  await app.close();
  await rm(workDir, { recursive: true, force: true });
}
// Whatever a sidecar or a socket left behind, the soak is over.
process.exit();

/** Resolves once no request is in flight, or after `boundMs`. */
async function waitSettled(book: SoakLedger, boundMs: number): Promise<void> {
  const until = now() + boundMs;
  while (book.pending > 0 && now() < until) await delay(100);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether `GET ${adminUrl}/healthz` answers 200 within 5 s. */
async function healthz(adminUrl: string | undefined): Promise<boolean> {
  if (adminUrl === undefined) return false;
  try {
    const response = await fetch(`${adminUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
