/**
 * `difftry verify-uniqueness` throughput: cases (solves of a cyclic routing network from one
 * initial point) per second on worker threads, beside the named peer, the same workload run in
 * this thread with no worker (`--threads 1`). Both runs must find the same totals, which checks
 * that the work was done and that threads do not change the result. The two-thread time includes
 * starting the workers (under tsx, compiling their code), as a user's run does.
 */
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { runUniquenessCheck } from '../src/cli/verifyUniquenessCommand.js';
import { report } from './harness.js';

/** 4,000 cases: about five seconds in one thread. */
const WORKLOAD = { seed: 1, graphs: 20, configs: 20, inits: 10, classesMax: 9 } as const;

export async function run(): Promise<void> {
  const single = await runUniquenessCheck({ ...WORKLOAD, threads: 1 });
  const parallel = await runUniquenessCheck({ ...WORKLOAD, threads: 2 });
  if (
    JSON.stringify(single.tally) !== JSON.stringify(parallel.tally) ||
    single.tally.cases !== WORKLOAD.graphs * WORKLOAD.configs * WORKLOAD.inits
  ) {
    throw new Error(
      `runs disagree: ${JSON.stringify(single.tally)} vs ${JSON.stringify(parallel.tally)}`,
    );
  }
  const rate = (r: typeof single) => r.tally.cases / r.elapsedSeconds;
  const { cases, counterexamples, nonConvergedRuns } = single.tally;
  report(
    `verify-uniqueness, ${WORKLOAD.graphs} graphs × ${WORKLOAD.configs} configurations × ${WORKLOAD.inits} starts (${availableParallelism()} cores)`,
    [
      [
        'peer: 1 thread, in-process',
        `${rate(single).toFixed(0)} cases/s (${single.elapsedSeconds.toFixed(2)} s)`,
      ],
      [
        '2 worker threads',
        `${rate(parallel).toFixed(0)} cases/s (${parallel.elapsedSeconds.toFixed(2)} s)`,
      ],
      ['ratio 2 threads / peer', `${(rate(parallel) / rate(single)).toFixed(2)}×`],
      [
        'cases, non-converged, counterexamples',
        `${cases}, ${nonConvergedRuns}, ${counterexamples}`,
      ],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
