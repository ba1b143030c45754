import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { combineTallies, EMPTY_TALLY, type UniquenessTally } from '../../model/uniqueness/index.js';
import {
  runUniquenessRange,
  type UniquenessJobResult,
  type UniquenessRangeResult,
  type UniquenessSettings,
} from './uniquenessWorker.js';
import { type JobRange, startUniquenessWorkers } from './uniquenessWorkerPool.js';

/** What a run of the check found. */
export interface UniquenessRun {
  readonly tally: UniquenessTally;
  /** Configurations with two distinct fixed points, by graph then configuration. */
  readonly counterexamples: readonly UniquenessJobResult[];
  readonly elapsedSeconds: number;
  /**
   * CPU time of the whole process over the run (user and system, every thread: this one, the
   * workers, the garbage collector's), seconds: cases / cpuSeconds is the rate per core.
   */
  readonly cpuSeconds: number;
  readonly threads: number;
  /** Cases each thread ran: this one first, then each worker. */
  readonly casesByThread: readonly number[];
}

/** Options of {@link runUniquenessCheck}. */
export interface UniquenessRunOptions extends UniquenessSettings {
  readonly graphs: number;
  readonly configs: number;
  /** Threads doing the work, this one included: `threads − 1` workers are started. */
  readonly threads: number;
  /**
   * Only these jobs (numbered graph by graph; `--shard`), default all: every job is seeded by
   * its number, so the runs of disjoint ranges add up to the whole run.
   */
  readonly jobs?: JobRange;
  /** Called after each share of the work with the cases done and the cases in all. */
  readonly onProgress?: (casesDone: number, casesTotal: number) => void;
}

/** A share of the work is at most this many cases (about a second on one core). */
const MOST_CASES_PER_RANGE = 20_000;

/** This thread yields to its event loop (progress bar, workers' messages) this often, ms. */
const YIELD_EVERY_MS = 5;

/**
 * Runs the check: every configuration of every graph, K solves each, on `threads` threads — this
 * one and `threads − 1` workers. The jobs (numbered graph by graph) are handed out in ranges that
 * shrink as the work runs out (each about a quarter of what is left per thread, at most 20,000
 * cases), so every thread stays busy to the end with one message per range; this thread works
 * from the start, so a worker's start-up (under tsx, compiling its code) costs nothing. The
 * totals are sums and the counterexamples are sorted, so the result depends only on the seed, N,
 * M, K, P_max and the form, never on the number of threads or the order ranges finish in.
 * @example
 * ```ts
 * const run = await runUniquenessCheck({ seed: 1, graphs: 4, configs: 4, inits: 5, classesMax: 9, threads: 2 });
 * run.tally.cases; // 80
 * ```
 */
export async function runUniquenessCheck(options: UniquenessRunOptions): Promise<UniquenessRun> {
  const settings: UniquenessSettings = {
    seed: options.seed,
    inits: options.inits,
    classesMax: options.classesMax,
    ...(options.form === undefined ? {} : { form: options.form }),
    ...(options.exact === undefined ? {} : { exact: options.exact }),
  };
  const { configs } = options;
  const allJobs = options.graphs * configs;
  const first = Math.max(0, options.jobs?.first ?? 0);
  const last = Math.min(allJobs, options.jobs?.end ?? allJobs);
  const jobCount = Math.max(0, last - first);
  const casesTotal = jobCount * options.inits;
  const threads = Math.max(1, Math.min(options.threads, jobCount));
  let tally = EMPTY_TALLY;
  const counterexamples: UniquenessJobResult[] = [];
  const casesByThread = new Array<number>(threads).fill(0);
  const take = (result: UniquenessRangeResult, thread: number) => {
    casesByThread[thread] = (casesByThread[thread] as number) + result.tally.cases;
    tally = combineTallies(tally, result.tally);
    counterexamples.push(...result.counterexamples);
    options.onProgress?.(tally.cases, casesTotal);
  };
  let nextJob = first;
  const mostJobs = Math.max(1, Math.floor(MOST_CASES_PER_RANGE / options.inits));
  const nextRange = (): JobRange | undefined => {
    const remaining = last - nextJob;
    if (remaining <= 0) return undefined;
    const size = Math.min(mostJobs, Math.max(1, Math.ceil(remaining / (4 * threads))));
    const range = { first: nextJob, end: nextJob + size };
    nextJob = range.end;
    return range;
  };

  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const pool =
    threads > 1
      ? startUniquenessWorkers(settings, configs, threads - 1, nextRange, take)
      : undefined;
  try {
    const graphs = new Map<number, NetworkModel>();
    let lastYield = performance.now();
    for (let range = nextRange(); range !== undefined && !pool?.failed(); range = nextRange()) {
      for (let job = range.first; job < range.end; job++) {
        take(runUniquenessRange(job, job + 1, settings, configs, graphs), 0);
        if (performance.now() - lastYield >= YIELD_EVERY_MS) {
          // Let the progress bar's timers and the workers' messages through.
          await yieldToEventLoop();
          lastYield = performance.now();
        }
      }
    }
    await pool?.done;
  } finally {
    pool?.stop();
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  counterexamples.sort((a, b) => a.graph - b.graph || a.configuration - b.configuration);
  return {
    tally,
    counterexamples,
    elapsedSeconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    threads,
    casesByThread,
  };
}
