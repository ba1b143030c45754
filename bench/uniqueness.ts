/**
 * `difftry verify-uniqueness` throughput: cases (solves of a network from one initial point) per
 * second, in one thread and in two (this one and a worker), beside the named peer measured in the
 * same run: the per-case path the check used before networks were compiled once per
 * configuration (`test/model/uniqueness/perCaseReference.ts`, frozen: every case re-prepares the
 * services, routing rows and topology and keeps its λin as arrays of arrays), in this thread.
 *
 * Every run checks its result, so the work cannot be optimised away: the 1- and 2-thread runs
 * must give the same totals, and the peer the same totals as the compiled path on the jobs it
 * ran (the two agree bit for bit). The 2-thread time includes starting the worker (under tsx,
 * compiling its code), as a user's run does. Figures vary with the machine and its load; the
 * load average is printed beside them.
 */
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  drawUniquenessConfiguration,
  type UniquenessSettings,
} from '../src/cli/uniquenessWorker.js';
import { runUniquenessCheck } from '../src/cli/verifyUniquenessCommand.js';
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

/** The target for two threads, cases/s (60 million cases in 30 minutes). */
const TARGET = 33_000;

export async function run(): Promise<void> {
  const load = loadavg()[0] ?? 0;
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
  const peer = perCasePeer();
  const compiledShare = await runUniquenessCheck({ ...WORKLOAD, ...PEER_JOBS, threads: 1 });
  if (JSON.stringify(peer.tally) !== JSON.stringify(compiledShare.tally)) {
    throw new Error(
      `the per-case path disagrees: ${JSON.stringify(peer.tally)} vs ${JSON.stringify(compiledShare.tally)}`,
    );
  }
  const calls = await runUniquenessCheck({ ...CALLS_WORKLOAD, threads: 2 });
  if (calls.tally.cases !== CALLS_WORKLOAD.graphs * CALLS_WORKLOAD.configs * WORKLOAD.inits) {
    throw new Error(`the call-graph run did ${calls.tally.cases} cases`);
  }

  const rate = (r: { tally: { cases: number }; elapsedSeconds: number }) =>
    r.tally.cases / r.elapsedSeconds;
  const perSecond = (r: { tally: { cases: number }; elapsedSeconds: number }) =>
    `${Math.round(rate(r)).toLocaleString('en-US')} cases/s (${r.tally.cases.toLocaleString('en-US')} cases, ${r.elapsedSeconds.toFixed(2)} s)`;
  const { counterexamples, nonConvergedRuns } = single.tally;
  report(
    `verify-uniqueness: ${WORKLOAD.graphs} cyclic graphs × ${WORKLOAD.configs} configurations × ${WORKLOAD.inits} starts (${availableParallelism()} cores, load average ${load.toFixed(2)})`,
    [
      ['peer: per-case path (before compiling), 1 thread', perSecond(peer)],
      ['compiled, 1 thread (in-process)', perSecond(single)],
      ['compiled, 2 threads (this one and a worker)', perSecond(parallel)],
      ['ratio 2 threads / 1 thread', `${(rate(parallel) / rate(single)).toFixed(2)}×`],
      [
        'control: 2 threads / 1 of a plain arithmetic loop',
        `${capacity.toFixed(2)}× (what the machine gives two threads right now)`,
      ],
      ['ratio 1 thread / peer', `${(rate(single) / rate(peer)).toFixed(2)}×`],
      ['ratio 2 threads / peer', `${(rate(parallel) / rate(peer)).toFixed(2)}×`],
      [
        `target ${TARGET.toLocaleString('en-US')} cases/s on 2 threads`,
        rate(parallel) >= TARGET
          ? 'met'
          : `not met (${((100 * rate(parallel)) / TARGET).toFixed(0)} %)`,
      ],
      [
        'cases, non-converged, counterexamples',
        `${cases}, ${nonConvergedRuns}, ${counterexamples}`,
      ],
      [
        'call graphs (--form calls), 2 threads',
        `${perSecond(calls)}; ${calls.tally.counterexamples} bistable of ${calls.tally.configurations}`,
      ],
    ],
  );
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
  return { tally, elapsedSeconds: (performance.now() - started) / 1000 };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
