import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { Document, isMap, isScalar, isSeq, visit } from 'yaml';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { ModelName } from '../model/phi/Phi.js';
import {
  type CallFixedPointRun,
  combineTallies,
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
  runUniquenessRange,
  type ToWorker,
  UNIQUENESS_FORMS,
  UNIQUENESS_WORKER_KIND,
  type UniquenessForm,
  type UniquenessJobResult,
  type UniquenessRangeResult,
  type UniquenessSettings,
  type UniquenessWorkerData,
} from './uniquenessWorker.js';

/** Options of `difftry verify-uniqueness`. */
export interface VerifyUniquenessOptions {
  /** N, random graphs: cyclic routing networks, or call graphs with `form: 'calls'`. */
  readonly graphs: number;
  /** M, random configurations per graph. */
  readonly configs: number;
  /** K, initial points (solves) per configuration, at least 2. */
  readonly inits: number;
  readonly seed: number;
  /** Most classes P of a configuration (default 9: P < 10, as in the paper). */
  readonly classesMax?: number;
  /**
   * Threads doing the work (default: every core), this one included; 1 runs in this thread,
   * with no worker.
   */
  readonly threads?: number;
  /**
   * `routes` (default): cyclic routing networks, where uniqueness is proven only in special
   * cases; `calls`: call graphs with nested retries, where it is not proven at all and can fail
   * (a healthy state and a retry storm).
   */
  readonly form?: UniquenessForm;
  /** Directory for counterexamples (default: the current directory, only if there are any). */
  readonly out?: string;
  readonly json?: boolean;
}

/**
 * Defaults of `difftry verify-uniqueness`: 20 graphs × 20 configurations × 10 starts, seed 0,
 * routing networks.
 */
export const VERIFY_UNIQUENESS_DEFAULTS = {
  graphs: 20,
  configs: 20,
  inits: 10,
  seed: 0,
  classesMax: DEFAULT_MAX_CLASSES,
  form: 'routes',
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
  /** Threads doing the work, this one included: `threads − 1` workers are started. */
  readonly threads: number;
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
  };
  const { configs } = options;
  const jobCount = options.graphs * configs;
  const casesTotal = jobCount * options.inits;
  const threads = Math.max(1, Math.min(options.threads, jobCount));
  let tally = EMPTY_TALLY;
  const counterexamples: UniquenessJobResult[] = [];
  const take = (result: UniquenessRangeResult) => {
    tally = combineTallies(tally, result.tally);
    counterexamples.push(...result.counterexamples);
    options.onProgress?.(tally.cases, casesTotal);
  };
  let nextJob = 0;
  const mostJobs = Math.max(1, Math.floor(MOST_CASES_PER_RANGE / options.inits));
  const nextRange = (): { first: number; end: number } | undefined => {
    const remaining = jobCount - nextJob;
    if (remaining <= 0) return undefined;
    const size = Math.min(mostJobs, Math.max(1, Math.ceil(remaining / (4 * threads))));
    const range = { first: nextJob, end: nextJob + size };
    nextJob = range.end;
    return range;
  };

  const started = performance.now();
  const pool =
    threads > 1 ? startWorkers(settings, configs, threads - 1, nextRange, take) : undefined;
  try {
    const graphs = new Map<number, NetworkModel>();
    let lastYield = performance.now();
    for (let range = nextRange(); range !== undefined && !pool?.failed(); range = nextRange()) {
      for (let job = range.first; job < range.end; job++) {
        take(runUniquenessRange(job, job + 1, settings, configs, graphs));
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
  counterexamples.sort((a, b) => a.graph - b.graph || a.configuration - b.configuration);
  return {
    tally,
    counterexamples,
    elapsedSeconds: (performance.now() - started) / 1000,
    threads,
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

/**
 * Starts `count` workers that take ranges from `nextRange` until it runs dry, each holding two
 * ranges (one running, one waiting) so it never idles while this thread is busy. `done` settles
 * when every range handed out has come back, and rejects on the first failure (which `failed`
 * then reports, so this thread stops taking work); `stop` ends the workers.
 */
function startWorkers(
  settings: UniquenessSettings,
  configs: number,
  count: number,
  nextRange: () => { first: number; end: number } | undefined,
  take: (result: UniquenessRangeResult) => void,
): { done: Promise<void>; stop: () => void; failed: () => boolean } {
  const { entry, execArgv } = workerEntry();
  const workers: Worker[] = [];
  let stopped = false;
  let failed = false;
  const stop = () => {
    stopped = true;
    for (const worker of workers) void worker.terminate();
  };
  const done = new Promise<void>((resolvePool, rejectPool) => {
    let outstanding = 0;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      stop();
      rejectPool(error);
    };
    const settleIfDone = () => {
      if (outstanding === 0 && !failed) resolvePool();
    };
    const data: UniquenessWorkerData = { kind: UNIQUENESS_WORKER_KIND, settings, configs };
    for (let t = 0; t < count; t++) {
      const worker = new Worker(entry, { execArgv, workerData: data });
      workers.push(worker);
      const feed = (): boolean => {
        const range = nextRange();
        if (range === undefined) return false;
        outstanding++;
        worker.postMessage({ type: 'range', ...range } satisfies ToWorker);
        return true;
      };
      worker.on('message', (message: FromWorker) => {
        try {
          outstanding--;
          take(message.result);
          feed();
          settleIfDone();
        } catch (error) {
          fail(error);
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!stopped)
          fail(new Error(`a verify-uniqueness worker stopped early (exit code ${code})`));
      });
      feed();
      feed();
    }
    // Every range may already be gone to this thread before a worker asked.
    settleIfDone();
  });
  // A failure is reported by awaiting `done`; never leave it unhandled meanwhile.
  done.catch(() => undefined);
  return { done, stop, failed: () => failed };
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
  const form = options.form ?? 'routes';
  checkOption('--graphs', options.graphs, VERIFY_UNIQUENESS_LIMITS.graphs);
  checkOption('--configs', options.configs, VERIFY_UNIQUENESS_LIMITS.configs);
  checkOption('--inits', options.inits, VERIFY_UNIQUENESS_LIMITS.inits);
  checkOption('--seed', options.seed, VERIFY_UNIQUENESS_LIMITS.seed);
  checkOption('--classes-max', classesMax, VERIFY_UNIQUENESS_LIMITS.classesMax);
  checkOption('--threads', threads, VERIFY_UNIQUENESS_LIMITS.threads);
  if (!UNIQUENESS_FORMS.includes(form)) {
    throw new UsageError(
      `--form: expected one of ${UNIQUENESS_FORMS.join(', ')}, got ${JSON.stringify(form)}`,
    );
  }

  const progress = progressOnStderr('verify-uniqueness');
  // The bar moves in thousandths: report only those steps, so that its ETA (over its last 50
  // updates) sees progress even when a run has millions of jobs.
  let shown = -1;
  const onProgress = (done: number, total: number) => {
    const step = Math.floor((1000 * done) / total);
    if (step === shown) return;
    shown = step;
    progress.update(done / total);
  };
  let run: UniquenessRun;
  try {
    run = await runUniquenessCheck({
      seed: options.seed,
      inits: options.inits,
      classesMax,
      form,
      graphs: options.graphs,
      configs: options.configs,
      threads,
      onProgress,
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
    inits: pairOf(c).map((run) => run?.init),
    ...(c.form === 'calls' && c.distinct !== undefined
      ? {
          attemptsPerRequest: {
            healthy: c.distinct.healthy.attemptsPerRequest,
            storm: c.distinct.storm.attemptsPerRequest,
          },
          completion: {
            healthy: c.distinct.healthy.completion,
            storm: c.distinct.storm.completion,
          },
        }
      : {}),
    network: written[i]?.network,
    fixedPoints: written[i]?.fixedPoints,
  }));
  const document = {
    seed: options.seed,
    form,
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
  const stdout = options.json ? JSON.stringify(document, null, 2) : formatRun(document);
  if (counterexamples.length === 0) return { stdout };
  const where = resolve(options.out ?? '.');
  const found = `${counterexamples.length} configuration(s) converged to two distinct fixed points`;
  return {
    stdout,
    stderr:
      form === 'calls'
        ? `${found} (bistable call graphs: a healthy state and a retry storm, a property of the model, not a solver failure); wrote them to ${where}`
        : `${found}; wrote them to ${where}`,
    exitCode: 1,
  };
}

/** The two runs of a counterexample, in start order. */
function pairOf(c: UniquenessJobResult): [{ init: number }?, { init: number }?] {
  if (c.distinct === undefined) return [];
  if (c.form === 'routes') return [c.distinct.first, c.distinct.second];
  const { healthy, storm } = c.distinct;
  return healthy.init <= storm.init ? [healthy, storm] : [storm, healthy];
}

function checkOption(name: string, value: number, [least, most]: readonly [number, number]): void {
  if (Number.isSafeInteger(value) && value >= least && value <= most) return;
  throw new UsageError(`${name}: expected an integer from ${least} to ${most}, got ${value}`);
}

/** The human-readable report: the figures, then one line per counterexample. */
function formatRun(document: {
  seed: number;
  form: UniquenessForm;
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
    attemptsPerRequest?: { healthy: number; storm: number };
    completion?: { healthy: number; storm: number };
    network: string | undefined;
  }[];
}): string {
  const g = document.guarantees;
  const calls = document.form === 'calls';
  const found = document.counterexamples.length;
  const figures = formatTable(
    [
      { heading: 'verify-uniqueness', alignRight: false },
      { heading: '', alignRight: false },
    ],
    [
      ['seed', String(document.seed)],
      [
        'networks',
        calls
          ? 'call graphs (µBench-like and DGG-like), nested retries'
          : 'cyclic routing networks',
      ],
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
      calls
        ? ['guarantee', `none for any (uniqueness is not proven for call graphs)`]
        : [
            'guarantee dag / norm / class-independent / none',
            `${g.dag} / ${g.norm} / ${g['class-independent']} / ${g.none}`,
          ],
      calls
        ? [
            'bistable configurations',
            `${found} (two fixed points: some s differs by more than ${DISTINCT_TOLERANCE.toExponential(0)})`,
          ]
        : [
            'counterexamples',
            `${found} (distinct: some λin differs by more than ${DISTINCT_TOLERANCE.toExponential(0)} relative)`,
          ],
    ],
  );
  if (found === 0) return figures;
  if (!calls) {
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
  const rows = formatTable(
    [
      { heading: 'graph' },
      { heading: 'config' },
      { heading: 'P' },
      { heading: 'services' },
      { heading: 'max |Δs|' },
      { heading: 'attempts/request healthy → storm' },
      { heading: 'completion healthy → storm' },
      { heading: 'file', alignRight: false },
    ],
    document.counterexamples.map((c) => [
      String(c.graph),
      String(c.configuration),
      String(c.classes),
      String(c.services),
      fixed(c.difference, 4),
      `${fixed(c.attemptsPerRequest?.healthy ?? Number.NaN, 2)} → ${fixed(c.attemptsPerRequest?.storm ?? Number.NaN, 2)}`,
      `${fixed(c.completion?.healthy ?? Number.NaN, 4)} → ${fixed(c.completion?.storm ?? Number.NaN, 4)}`,
      c.network ?? '',
    ]),
  );
  const note = [
    'These are findings about the model, not failures of the solver: with nested retries a call',
    'graph can be bistable. Beside the healthy state there is a retry storm — children rejecting,',
    'callers retrying whole subtrees, which keeps the children overloaded — and both are fixed',
    'points. Which one a network settles in depends on where it starts (its history). "Healthy"',
    'is the state in which more requests complete (completing alike, the one with fewer attempts).',
  ].join('\n');
  return `${figures}\n\nBistable call graphs (healthy state and retry storm)\n${rows}\n\n${note}`;
}

/**
 * Writes each counterexample to `directory` (created if needed): the network as
 * `uniqueness-seedS-graphG-configC.yaml` (`uniqueness-calls-…` for a call graph), which
 * `difftry analyze` reads, and its two fixed points with their starts as `….fixed-points.json`
 * (for a call graph, the healthy state and the storm, each with its attempts per request and
 * completion). Returns the paths, in order.
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
      const { network } = c;
      if (network === undefined || c.distinct === undefined) continue;
      const formTag = c.form === 'calls' ? 'calls-' : '';
      const stem = join(
        directory,
        `uniqueness-${formTag}seed${seed}-graph${c.graph}-config${c.configuration}`,
      );
      const networkPath = `${stem}.yaml`;
      const fixedPointsPath = `${stem}.fixed-points.json`;
      const foundBy = ` Found by: difftry verify-uniqueness${c.form === 'calls' ? ' --form calls' : ''} --seed ${seed} (graph ${c.graph}, configuration ${c.configuration})`;
      const common = {
        seed,
        form: c.form,
        graph: c.graph,
        configuration: c.configuration,
        network: networkPath,
        guarantee: c.guarantee,
        tolerance: DISTINCT_TOLERANCE,
        difference: c.distinct.difference,
      };
      let header: string;
      let fixedPoints: object;
      if (c.form === 'routes') {
        const { first, second } = c.distinct;
        header = [
          foundBy,
          ` Runs from start ${first.init} and start ${second.init} converged to fixed points`,
          ` whose λin differ by ${c.distinct.difference.toExponential(3)} relative; see ${fixedPointsPath}.`,
          ` Re-run: difftry analyze ${networkPath}   (it starts at λin = γ, like start 0)`,
        ].join('\n');
        const named = (table: readonly (readonly number[])[] | undefined) =>
          table === undefined ? null : namedTable(network, table);
        const runJson = (run: FixedPointRun) => ({
          init: run.init,
          iterations: run.iterations,
          initialIn: named(run.initialIn),
          lambdaIn: named(run.lambdaIn),
        });
        fixedPoints = { ...common, first: runJson(first), second: runJson(second) };
      } else {
        const { healthy, storm } = c.distinct;
        header = [
          foundBy,
          ' A bistable call graph (a finding about the model, not a solver failure): from start',
          ` ${healthy.init} it settles healthy (${healthy.attemptsPerRequest.toFixed(2)} attempts per request, completion ${healthy.completion.toFixed(4)}),`,
          ` from start ${storm.init} in a retry storm (${storm.attemptsPerRequest.toFixed(2)} attempts per request, completion ${storm.completion.toFixed(4)});`,
          ` see ${fixedPointsPath}. Re-run: difftry analyze ${networkPath}   (it starts idle, s = 0)`,
        ].join('\n');
        const named = (values: readonly number[] | undefined) =>
          values === undefined
            ? null
            : Object.fromEntries(network.services.map((svc, i) => [svc.name, values[i] ?? 0]));
        const runJson = (run: CallFixedPointRun) => ({
          init: run.init,
          iterations: run.iterations,
          attemptsPerRequest: run.attemptsPerRequest,
          completion: run.completion,
          initialS: named(run.initialS),
          s: named(run.s),
        });
        fixedPoints = { ...common, healthy: runJson(healthy), storm: runJson(storm) };
      }
      await writeFile(networkPath, networkYaml(network, header));
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
 * A routing or call-graph network model as a network file's value, so that parsing it and
 * `toNetworkModel` give the same model back: the most common φ law becomes the network's
 * `model`, a service's retry limit that differs from its class's becomes a `retries` override,
 * and routes or calls that apply to one class name it. Only models without the residual-time
 * correction, branches or per-try timeouts are written.
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
        ...((service.calls?.length ?? 0) === 0
          ? {}
          : {
              calls: (service.calls ?? []).map((call) => ({
                to: network.services[call.to]?.name ?? '',
                n: call.n,
                mode: call.parallel ? ('parallel' as const) : ('sequential' as const),
                ...(call.classIndex === undefined
                  ? {}
                  : { class: classNames[call.classIndex] ?? '' }),
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
      if ((field === 'classes' || field === 'routes' || field === 'calls') && isSeq(pair.value)) {
        for (const item of pair.value.items) if (isMap(item)) item.flow = true;
      }
    },
  });
  return doc.toString({ lineWidth: 0 });
}
