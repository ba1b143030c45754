/**
 * `difftry verify-uniqueness` throughput: cases (solves of a network from one initial point) per
 * second of wall time and per CPU-second (the process's user + system time, every thread), for
 * the check's warm path in one thread and in two (this one and a worker), beside two named peers
 * measured in the same run: the exact compiled path the check used before (every start settled
 * by `settleRouting`, bit for bit `solveRouting`), on the same 60,000 cases in one thread, and
 * the per-case path before that (`test/model/uniqueness/perCaseReference.ts`, frozen: every case
 * re-prepares the services, routing rows and topology), on 4,000 of them.
 *
 * Every run checks its result, so the work cannot be optimised away: the 1- and 2-thread runs
 * must give the same totals, the exact path the same totals (verdicts, convergence) as the warm
 * one, and the per-case peer the same as the exact path on its share (they agree bit for bit).
 * The 2-thread time includes starting the worker (under tsx, compiling its code), as a user's
 * run does. Figures vary with the machine and its load: the load average is printed before and
 * after, and a control (a plain loop in one thread, then two) shows what two threads could get.
 */
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runUniquenessCheck } from '../src/experiments/uniqueness/runUniquenessCheck.js';
import {
  drawUniquenessConfiguration,
  type UniquenessSettings,
} from '../src/experiments/uniqueness/uniquenessWorker.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { addCheck, EMPTY_TALLY } from '../src/model/uniqueness/index.js';
import { checkConfigurationPerCase } from '../test/model/uniqueness/perCaseReference.js';
import { report } from './harness.js';

/** 60,000 cases of cyclic routing networks: about five seconds in one thread. */
const WORKLOAD = { seed: 1, graphs: 60, configs: 100, inits: 10, classesMax: 9 } as const;

/** The peer's share: the first 10 configurations of the first 40 graphs (4,000 cases). */
const PEER_JOBS = { graphs: 40, configs: 10 } as const;

/** The call-graph form, for its own rate (no target): 3,000 cases. */
const CALLS_WORKLOAD = { ...WORKLOAD, graphs: 30, configs: 10, form: 'calls' } as const;

/** The issue's target for two threads, cases/s (60 million cases in 30 minutes). */
const TARGET = 33_000;

export async function run(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const capacity = await parallelCapacity();
  const single = await runUniquenessCheck({ ...WORKLOAD, threads: 1 });
  const parallel = await runUniquenessCheck({ ...WORKLOAD, threads: 2 });
  const cases = WORKLOAD.graphs * WORKLOAD.configs * WORKLOAD.inits;
  if (
    JSON.stringify(single.tally) !== JSON.stringify(parallel.tally) ||
    single.tally.cases !== cases
  ) {
    throw new Error(
      `runs disagree: ${JSON.stringify(single.tally)} vs ${JSON.stringify(parallel.tally)}`,
    );
  }
  // The peers: the exact compiled path on the same cases, and the per-case path on a share.
  const exact = await runUniquenessCheck({ ...WORKLOAD, threads: 1, exact: true });
  if (JSON.stringify(exact.tally) !== JSON.stringify(single.tally)) {
    throw new Error(
      `the warm path's verdicts differ from settleRouting's: ${JSON.stringify(single.tally)} vs ${JSON.stringify(exact.tally)}`,
    );
  }
  const peer = perCasePeer();
  const exactShare = await runUniquenessCheck({
    ...WORKLOAD,
    ...PEER_JOBS,
    threads: 1,
    exact: true,
  });
  if (JSON.stringify(peer.tally) !== JSON.stringify(exactShare.tally)) {
    throw new Error(
      `the per-case path disagrees: ${JSON.stringify(peer.tally)} vs ${JSON.stringify(exactShare.tally)}`,
    );
  }
  const calls = await runUniquenessCheck({ ...CALLS_WORKLOAD, threads: 2 });
  if (calls.tally.cases !== CALLS_WORKLOAD.graphs * CALLS_WORKLOAD.configs * WORKLOAD.inits) {
    throw new Error(`the call-graph run did ${calls.tally.cases} cases`);
  }
  const loadAfter = loadavg()[0] ?? 0;

  const rate = (r: Timed) => r.tally.cases / r.elapsedSeconds;
  const perCpu = (r: Timed) => r.tally.cases / r.cpuSeconds;
  const count = (x: number) => Math.round(x).toLocaleString('en-US');
  const figures = (r: Timed) =>
    `${count(rate(r))} cases/s, ${count(perCpu(r))} per CPU-second (${r.tally.cases.toLocaleString('en-US')} cases, ${r.elapsedSeconds.toFixed(2)} s, ${r.cpuSeconds.toFixed(2)} CPU-s)`;
  const { counterexamples, nonConvergedRuns } = single.tally;
  const shares = parallel.casesByThread.map((n) => count(n)).join(' + ');
  report(
    `verify-uniqueness: ${WORKLOAD.graphs} cyclic graphs × ${WORKLOAD.configs} configurations × ${WORKLOAD.inits} starts (${availableParallelism()} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after)`,
    [
      ['peer: per-case path (before compiling), 1 thread', figures(peer)],
      ['peer: exact compiled path (settleRouting), 1 thread', figures(exact)],
      ['warm path, 1 thread (in-process)', figures(single)],
      ['warm path, 2 threads (this one and a worker)', `${figures(parallel)}; cases ${shares}`],
      ['ratio 2 threads / 1 thread', `${(rate(parallel) / rate(single)).toFixed(2)}×`],
      [
        'control: 2 threads / 1 of a plain arithmetic loop',
        `${capacity.toFixed(2)}× (what the machine gives two threads right now)`,
      ],
      [
        'ratio warm / exact compiled, 1 thread',
        `${(rate(single) / rate(exact)).toFixed(2)}× (per CPU-second ${(perCpu(single) / perCpu(exact)).toFixed(2)}×)`,
      ],
      ['ratio 1 thread / per-case peer', `${(rate(single) / rate(peer)).toFixed(2)}×`],
      ['ratio 2 threads / per-case peer', `${(rate(parallel) / rate(peer)).toFixed(2)}×`],
      [
        `target ${TARGET.toLocaleString('en-US')} cases/s on 2 threads`,
        `${rate(parallel) >= TARGET ? 'met' : `not met (${((100 * rate(parallel)) / TARGET).toFixed(0)} %)`}; two free cores at this run's rate per CPU-second: ${count(2 * perCpu(parallel))} cases/s`,
      ],
      [
        'cases, non-converged, counterexamples',
        `${cases}, ${nonConvergedRuns}, ${counterexamples} (the same for every path)`,
      ],
      [
        'call graphs (--form calls), 2 threads',
        `${figures(calls)}; ${calls.tally.counterexamples} bistable of ${calls.tally.configurations}`,
      ],
    ],
  );
}

/** What the rates are taken from. */
interface Timed {
  readonly tally: { readonly cases: number };
  readonly elapsedSeconds: number;
  readonly cpuSeconds: number;
}

/** A plain arithmetic loop, as the source of a function and of a worker. */
const ARITHMETIC = `function spin() { let x = 0; for (let i = 0; i < 2e8; i++) x += i * 1e-9; return x; }`;

/**
 * How much two threads get done beside one, on this machine at this moment: the loop alone in
 * this thread, then in this thread and a worker at once (2 when both cores are free, 1 when
 * other work holds one). The control for the 2-thread figure, which other processes bound.
 */
async function parallelCapacity(): Promise<number> {
  const spin = new Function(`${ARITHMETIC}; return spin();`) as () => number;
  spin();
  let started = performance.now();
  let check = spin();
  const alone = performance.now() - started;
  const worker = new Worker(
    `${ARITHMETIC}; require('node:worker_threads').parentPort.on('message', () => require('node:worker_threads').parentPort.postMessage(spin()));`,
    { eval: true },
  );
  try {
    // A first round trip warms the worker up before the timed one.
    await new Promise((resolve) => {
      worker.once('message', resolve);
      worker.postMessage('go');
    });
    started = performance.now();
    const other = new Promise<number>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage('go');
    });
    check += spin();
    check += await other;
  } finally {
    await worker.terminate();
  }
  if (!Number.isFinite(check)) throw new Error('the control loop lost its result');
  return (2 * alone) / (performance.now() - started);
}

/** The peer: the same jobs, each checked by the frozen per-case path, in this thread. */
function perCasePeer() {
  const settings: UniquenessSettings = {
    seed: WORKLOAD.seed,
    inits: WORKLOAD.inits,
    classesMax: WORKLOAD.classesMax,
  };
  const graphs = new Map<number, NetworkModel>();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let tally = EMPTY_TALLY;
  for (let graph = 0; graph < PEER_JOBS.graphs; graph++) {
    for (let configuration = 0; configuration < PEER_JOBS.configs; configuration++) {
      const { network, random } = drawUniquenessConfiguration(
        { graph, configuration },
        settings,
        graphs,
      );
      tally = addCheck(
        tally,
        checkConfigurationPerCase(network, { inits: settings.inits, random }),
      );
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    tally,
    elapsedSeconds: (performance.now() - started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
