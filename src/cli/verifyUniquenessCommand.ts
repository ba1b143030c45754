import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { Document, isMap, isScalar, isSeq, visit } from 'yaml';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { ModelName } from '../model/phi/Phi.js';
import {
  addCheck,
  DEFAULT_MAX_CLASSES,
  DISTINCT_TOLERANCE,
  EMPTY_TALLY,
  type FixedPointRun,
  MAX_CLASSES,
  type UniquenessTally,
} from '../model/uniqueness/index.js';
import type { NetworkSpecInput } from '../spec/schema.js';
import type { CommandOutput } from './analyzeCommand.js';
import { progressOnStderr } from './progress.js';
import { fixed, formatTable } from './table.js';
import { UsageError } from './UsageError.js';
import {
  type FromWorker,
  runUniquenessJob,
  type ToWorker,
  UNIQUENESS_WORKER_KIND,
  type UniquenessJob,
  type UniquenessJobResult,
  type UniquenessSettings,
} from './uniquenessWorker.js';

/** Options of `difftry verify-uniqueness`. */
export interface VerifyUniquenessOptions {
  /** N, random cyclic graphs. */
  readonly graphs: number;
  /** M, random configurations per graph. */
  readonly configs: number;
  /** K, initial points (solves) per configuration, at least 2. */
  readonly inits: number;
  readonly seed: number;
  /** Most classes P of a configuration (default 9: P < 10, as in the paper). */
  readonly classesMax?: number;
  /** Worker threads (default: every core); 1 runs in this thread, with no worker. */
  readonly threads?: number;
  /** Directory for counterexamples (default: the current directory, only if there are any). */
  readonly out?: string;
  readonly json?: boolean;
}

/** Defaults of `difftry verify-uniqueness`: 20 graphs × 20 configurations × 10 starts, seed 0. */
export const VERIFY_UNIQUENESS_DEFAULTS = {
  graphs: 20,
  configs: 20,
  inits: 10,
  seed: 0,
  classesMax: DEFAULT_MAX_CLASSES,
} as const;

/** Bounds of the options, checked by the CLI and again by {@link verifyUniquenessCommand}. */
export const VERIFY_UNIQUENESS_LIMITS = {
  graphs: [1, 1_000_000],
  configs: [1, 1_000_000],
  inits: [2, 100_000],
  seed: [0, 2 ** 31 - 1],
  classesMax: [1, MAX_CLASSES],
  threads: [1, 1024],
} as const;

/** What a run of the check found. */
export interface UniquenessRun {
  readonly tally: UniquenessTally;
  /** Configurations with two distinct fixed points, by graph then configuration. */
  readonly counterexamples: readonly UniquenessJobResult[];
  readonly elapsedSeconds: number;
  readonly threads: number;
}

/** Options of {@link runUniquenessCheck}. */
export interface UniquenessRunOptions extends UniquenessSettings {
  readonly graphs: number;
  readonly configs: number;
  readonly threads: number;
  /** Called after each configuration with the cases done and the cases in all. */
  readonly onProgress?: (casesDone: number, casesTotal: number) => void;
}

/**
 * Runs the check: every configuration of every graph, K solves each, on `threads` worker threads
 * (or in this thread when `threads` is 1). Jobs go out in small batches to whichever worker is
 * free; the totals are sums and the counterexamples are sorted, so the result depends only on
 * the seed, N, M, K and P_max, never on the number of threads or the order jobs finish in.
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
  };
  const jobCount = options.graphs * options.configs;
  const casesTotal = jobCount * options.inits;
  let tally = EMPTY_TALLY;
  const counterexamples: UniquenessJobResult[] = [];
  const take = (result: UniquenessJobResult) => {
    tally = addCheck(tally, result);
    if (result.distinct !== undefined) counterexamples.push(result);
    options.onProgress?.(tally.cases, casesTotal);
  };
  let nextJob = 0;
  const nextBatch = (size: number): UniquenessJob[] => {
    const jobs: UniquenessJob[] = [];
    for (; jobs.length < size && nextJob < jobCount; nextJob++) {
      jobs.push({
        graph: Math.floor(nextJob / options.configs),
        configuration: nextJob % options.configs,
      });
    }
    return jobs;
  };

  const started = performance.now();
  const threads = Math.min(options.threads, jobCount);
  if (threads <= 1) {
    const graphs = new Map<number, NetworkModel>();
    for (let job = nextBatch(1)[0]; job !== undefined; job = nextBatch(1)[0]) {
      take(runUniquenessJob(job, settings, graphs));
      // Let the progress bar's timers run between jobs.
      await yieldToEventLoop();
    }
  } else {
    // Small batches keep every worker busy to the end; 16 per worker bounds the messaging.
    const batchSize = Math.min(64, Math.max(1, Math.ceil(jobCount / (threads * 16))));
    await runInWorkers(settings, threads, () => nextBatch(batchSize), take);
  }
  counterexamples.sort((a, b) => a.graph - b.graph || a.configuration - b.configuration);
  return {
    tally,
    counterexamples,
    elapsedSeconds: (performance.now() - started) / 1000,
    threads: Math.max(1, threads),
  };
}

/**
 * How to start a worker: the worker's code is beside this file, `.js` when compiled and `.ts`
 * under tsx. Worker threads inherit `execArgv`, but on Node 20 tsx's `--import` hooks do not
 * reach the worker's own entry module, so a `.ts` worker starts from a two-line ES module that
 * loads it through tsx's `tsImport` (resolved from here, so it works from any directory).
 */
function workerEntry(): { entry: URL; execArgv: string[] } {
  const worker = new URL(
    `./uniquenessWorker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
    import.meta.url,
  );
  const execArgv = [...process.execArgv];
  if (worker.pathname.endsWith('.js')) return { entry: worker, execArgv };
  const api = import.meta.resolve('tsx/esm/api');
  const bootstrap = [
    `const { tsImport } = await import(${JSON.stringify(api)});`,
    `await tsImport(${JSON.stringify(worker.href)}, ${JSON.stringify(import.meta.url)});`,
  ].join('\n');
  return { entry: new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), execArgv };
}

/** Feeds batches to `threads` workers until `nextBatch` runs dry; rejects on the first failure. */
function runInWorkers(
  settings: UniquenessSettings,
  threads: number,
  nextBatch: () => UniquenessJob[],
  take: (result: UniquenessJobResult) => void,
): Promise<void> {
  const { entry, execArgv } = workerEntry();
  return new Promise((resolvePool, rejectPool) => {
    const workers: Worker[] = [];
    let running = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      for (const worker of workers) void worker.terminate();
      rejectPool(error);
    };
    for (let t = 0; t < threads; t++) {
      const worker = new Worker(entry, {
        execArgv,
        workerData: { kind: UNIQUENESS_WORKER_KIND, settings },
      });
      workers.push(worker);
      running++;
      let done = false;
      const feed = () => {
        const jobs = nextBatch();
        if (jobs.length === 0) {
          done = true;
          void worker.terminate();
          return;
        }
        worker.postMessage({ type: 'batch', jobs } satisfies ToWorker);
      };
      worker.on('message', (message: FromWorker) => {
        try {
          if (message.type === 'result') take(message.result);
          else feed();
        } catch (error) {
          fail(error);
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        running--;
        if (!done) fail(new Error(`a verify-uniqueness worker stopped early (exit code ${code})`));
        else if (running === 0 && !failed) resolvePool();
      });
      feed();
    }
  });
}

/**
 * `difftry verify-uniqueness`: the paper's numerical check that a cyclic routing network has one
 * fixed point. Runs K solves from random initial points for each of M random configurations of N
 * random cyclic graphs, on every core, with a progress bar on stderr, and reports the cases run,
 * their rate, the runs that did not converge, which uniqueness guarantee each configuration had,
 * and every configuration whose converged runs reached two distinct fixed points. Each such
 * counterexample is written to `out` (default: the current directory) as a network file that
 * `difftry analyze` reads, beside a JSON file with the two fixed points and their starts.
 *
 * Exit code 0 when no counterexample is found, 1 when one is.
 * @throws {UsageError} on options out of range or files that cannot be written.
 * @example
 * ```ts
 * const output = await verifyUniquenessCommand({ graphs: 20, configs: 20, inits: 10, seed: 1 });
 * ```
 */
export async function verifyUniquenessCommand(
  options: VerifyUniquenessOptions,
): Promise<CommandOutput> {
  const classesMax = options.classesMax ?? VERIFY_UNIQUENESS_DEFAULTS.classesMax;
  const threads = options.threads ?? availableParallelism();
  checkOption('--graphs', options.graphs, VERIFY_UNIQUENESS_LIMITS.graphs);
  checkOption('--configs', options.configs, VERIFY_UNIQUENESS_LIMITS.configs);
  checkOption('--inits', options.inits, VERIFY_UNIQUENESS_LIMITS.inits);
  checkOption('--seed', options.seed, VERIFY_UNIQUENESS_LIMITS.seed);
  checkOption('--classes-max', classesMax, VERIFY_UNIQUENESS_LIMITS.classesMax);
  checkOption('--threads', threads, VERIFY_UNIQUENESS_LIMITS.threads);

  const progress = progressOnStderr('verify-uniqueness');
  let run: UniquenessRun;
  try {
    run = await runUniquenessCheck({
      seed: options.seed,
      inits: options.inits,
      classesMax,
      graphs: options.graphs,
      configs: options.configs,
      threads,
      onProgress: (done, total) => progress.update(done / total),
    });
  } finally {
    progress.stop();
  }

  const written =
    run.counterexamples.length === 0
      ? []
      : await writeCounterexamples(run.counterexamples, options.seed, options.out ?? '.');
  const { tally, elapsedSeconds } = run;
  const casesPerSecond = tally.cases / Math.max(elapsedSeconds, 1e-9);
  const counterexamples = run.counterexamples.map((c, i) => ({
    graph: c.graph,
    configuration: c.configuration,
    classes: c.classes,
    services: c.services,
    guarantee: c.guarantee,
    difference: c.distinct?.difference ?? Number.NaN,
    inits: [c.distinct?.first.init, c.distinct?.second.init],
    network: written[i]?.network,
    fixedPoints: written[i]?.fixedPoints,
  }));
  const document = {
    seed: options.seed,
    graphs: options.graphs,
    configurationsPerGraph: options.configs,
    inits: options.inits,
    classesMax,
    threads: run.threads,
    tolerance: DISTINCT_TOLERANCE,
    cases: tally.cases,
    configurations: tally.configurations,
    convergedRuns: tally.convergedRuns,
    nonConvergedRuns: tally.nonConvergedRuns,
    nonConvergedConfigurations: tally.nonConvergedConfigurations,
    guarantees: tally.guarantees,
    elapsedSeconds,
    casesPerSecond,
    counterexamples,
  };
  const stdout = options.json
    ? JSON.stringify(document, null, 2)
    : formatRun(document, counterexamples.length);
  if (counterexamples.length === 0) return { stdout };
  const where = resolve(options.out ?? '.');
  return {
    stdout,
    stderr: `${counterexamples.length} configuration(s) converged to two distinct fixed points; wrote them to ${where}`,
    exitCode: 1,
  };
}

function checkOption(name: string, value: number, [least, most]: readonly [number, number]): void {
  if (Number.isSafeInteger(value) && value >= least && value <= most) return;
  throw new UsageError(`${name}: expected an integer from ${least} to ${most}, got ${value}`);
}

/** The human-readable report: the figures, then one line per counterexample. */
function formatRun(
  document: {
    seed: number;
    graphs: number;
    configurationsPerGraph: number;
    inits: number;
    classesMax: number;
    threads: number;
    cases: number;
    configurations: number;
    nonConvergedRuns: number;
    nonConvergedConfigurations: number;
    guarantees: UniquenessTally['guarantees'];
    elapsedSeconds: number;
    casesPerSecond: number;
    counterexamples: readonly {
      graph: number;
      configuration: number;
      classes: number;
      services: number;
      guarantee: string;
      difference: number;
      network: string | undefined;
    }[];
  },
  counterexampleCount: number,
): string {
  const g = document.guarantees;
  const figures = formatTable(
    [
      { heading: 'verify-uniqueness', alignRight: false },
      { heading: '', alignRight: false },
    ],
    [
      ['seed', String(document.seed)],
      ['graphs', String(document.graphs)],
      [
        'configurations',
        `${document.configurations} (${document.configurationsPerGraph} per graph, P ≤ ${document.classesMax})`,
      ],
      ['cases (solves)', `${document.cases} (${document.inits} starts per configuration)`],
      ['threads', String(document.threads)],
      ['elapsed', `${fixed(document.elapsedSeconds, 2)} s`],
      ['cases/s', fixed(document.casesPerSecond, 0)],
      [
        'non-converged runs',
        `${document.nonConvergedRuns} (in ${document.nonConvergedConfigurations} configurations)`,
      ],
      [
        'guarantee dag / norm / class-independent / none',
        `${g.dag} / ${g.norm} / ${g['class-independent']} / ${g.none}`,
      ],
      [
        'counterexamples',
        `${counterexampleCount} (distinct: some λin differs by more than ${DISTINCT_TOLERANCE.toExponential(0)} relative)`,
      ],
    ],
  );
  if (counterexampleCount === 0) return figures;
  const rows = formatTable(
    [
      { heading: 'graph' },
      { heading: 'config' },
      { heading: 'P' },
      { heading: 'services' },
      { heading: 'guarantee', alignRight: false },
      { heading: 'difference' },
      { heading: 'file', alignRight: false },
    ],
    document.counterexamples.map((c) => [
      String(c.graph),
      String(c.configuration),
      String(c.classes),
      String(c.services),
      c.guarantee,
      c.difference.toExponential(2),
      c.network ?? '',
    ]),
  );
  return `${figures}\n\nCounterexamples\n${rows}`;
}

/**
 * Writes each counterexample to `directory` (created if needed): the network as
 * `uniqueness-seedS-graphG-configC.yaml`, which `difftry analyze` reads, and its two fixed points
 * with their starts as `….fixed-points.json`. Returns the paths, in order.
 * @throws {UsageError} when a file cannot be written.
 */
export async function writeCounterexamples(
  counterexamples: readonly UniquenessJobResult[],
  seed: number,
  directory: string,
): Promise<{ network: string; fixedPoints: string }[]> {
  const paths: { network: string; fixedPoints: string }[] = [];
  try {
    await mkdir(directory, { recursive: true });
    for (const c of counterexamples) {
      const { network, distinct } = c;
      if (network === undefined || distinct === undefined) continue;
      const stem = join(
        directory,
        `uniqueness-seed${seed}-graph${c.graph}-config${c.configuration}`,
      );
      const networkPath = `${stem}.yaml`;
      const fixedPointsPath = `${stem}.fixed-points.json`;
      const header = [
        ` Found by: difftry verify-uniqueness --seed ${seed} (graph ${c.graph}, configuration ${c.configuration})`,
        ` Runs from start ${distinct.first.init} and start ${distinct.second.init} converged to fixed points`,
        ` whose λin differ by ${distinct.difference.toExponential(3)} relative; see ${fixedPointsPath}.`,
        ` Re-run: difftry analyze ${networkPath}   (it starts at λin = γ, like start 0)`,
      ].join('\n');
      await writeFile(networkPath, networkYaml(network, header));
      const named = (table: readonly (readonly number[])[] | undefined) =>
        table === undefined ? null : namedTable(network, table);
      const runJson = (run: FixedPointRun) => ({
        init: run.init,
        iterations: run.iterations,
        initialIn: named(run.initialIn),
        lambdaIn: named(run.lambdaIn),
      });
      const fixedPoints = {
        seed,
        graph: c.graph,
        configuration: c.configuration,
        network: networkPath,
        guarantee: c.guarantee,
        tolerance: DISTINCT_TOLERANCE,
        difference: distinct.difference,
        first: runJson(distinct.first),
        second: runJson(distinct.second),
      };
      await writeFile(fixedPointsPath, `${JSON.stringify(fixedPoints, null, 2)}\n`);
      paths.push({ network: networkPath, fixedPoints: fixedPointsPath });
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`verify-uniqueness: cannot write to ${directory}: ${reason}`, {
      cause: error,
    });
  }
  return paths;
}

/** A per-service, per-class table keyed by names: { service: { class: value } }. */
function namedTable(
  network: NetworkModel,
  table: readonly (readonly number[])[],
): Record<string, Record<string, number>> {
  return Object.fromEntries(
    network.services.map((s, i) => [
      s.name,
      Object.fromEntries(network.classes.map((c, p) => [c.name, table[i]?.[p] ?? 0])),
    ]),
  );
}

/**
 * A routing network model as a network file's value, so that parsing it and `toNetworkModel`
 * give the same model back: the most common φ law becomes the network's `model`, a service's
 * retry limit that differs from its class's becomes a `retries` override, and routes that apply to
 * one class name it. Only routing models without the residual-time correction are written.
 */
export function networkSpecOf(network: NetworkModel): NetworkSpecInput {
  const counts = new Map<ModelName, number>();
  for (const s of network.services) counts.set(s.model, (counts.get(s.model) ?? 0) + 1);
  const model = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'mixed';
  const classNames = network.classes.map((c) => c.name);
  return {
    model,
    classes: network.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services: network.services.map((service) => {
      const arrivals = Object.fromEntries(
        classNames.flatMap((name, p) => {
          const rate = service.arrivals[p] ?? 0;
          return rate > 0 ? [[name, rate]] : [];
        }),
      );
      const retries = Object.fromEntries(
        network.classes.flatMap((c, p) => {
          const limit = service.retryLimits[p] ?? c.retryLimit;
          return limit === c.retryLimit ? [] : [[c.name, limit]];
        }),
      );
      return {
        name: service.name,
        capacity: service.capacity,
        queue: service.queue,
        ...(Object.keys(arrivals).length > 0 ? { arrivals } : {}),
        ...(Object.keys(retries).length > 0 ? { retries } : {}),
        ...(service.model === model ? {} : { model: service.model }),
        ...(service.routes.length === 0
          ? {}
          : {
              routes: service.routes.map((r) => ({
                to: network.services[r.to]?.name ?? '',
                p: r.p,
                ...(r.classIndex === undefined ? {} : { class: classNames[r.classIndex] ?? '' }),
              })),
            }),
      };
    }),
  };
}

/** The network as YAML under a comment, each class, route, arrivals and retries on one line. */
function networkYaml(network: NetworkModel, comment: string): string {
  const doc = new Document(networkSpecOf(network));
  doc.commentBefore = comment;
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.key)) return;
      const field = pair.key.value;
      if ((field === 'arrivals' || field === 'retries') && isMap(pair.value))
        pair.value.flow = true;
      if ((field === 'classes' || field === 'routes') && isSeq(pair.value)) {
        for (const item of pair.value.items) if (isMap(item)) item.flow = true;
      }
    },
  });
  return doc.toString({ lineWidth: 0 });
}
