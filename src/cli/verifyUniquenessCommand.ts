import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { shardFileName, shardRange } from '../experiments/shard/shard.js';
import {
  runUniquenessCheck,
  type UniquenessRun,
} from '../experiments/uniqueness/runUniquenessCheck.js';
import {
  UNIQUENESS_FORMS,
  type UniquenessForm,
  type UniquenessJobResult,
} from '../experiments/uniqueness/uniquenessWorker.js';
import { DEFAULT_MAX_CLASSES, DISTINCT_TOLERANCE, MAX_CLASSES } from '../model/uniqueness/index.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { writeCounterexamples } from './counterexampleFiles.js';
import { EXIT_NEGATIVE } from './exitCodes.js';
import { formatUniquenessRun } from './formatUniquenessRun.js';
import { integerIn } from './input.js';
import { checkOutputDirectory, makeOutputDirectory, writeOutputFiles } from './outputPath.js';
import { packageVersion } from './packageVersion.js';
import { progressOnStderr } from './progress.js';
import { shardOption } from './shardOption.js';
import { UsageError } from './UsageError.js';
import type { UniquenessDocument } from './uniquenessDocument.js';

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
  /**
   * Run only this part of the jobs (`--shard I/N`, `I` from 0); the JSON document is then also
   * written to `out` as `verify-uniqueness.shard-I-of-N.json`, for `difftry merge`.
   */
  readonly shard?: string;
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

  const shard = options.shard === undefined ? undefined : shardOption(options.shard);
  // Counterexamples are written after the run: a directory that cannot take them is refused now.
  if (shard === undefined) await checkOutputDirectory(options.out ?? '.', '--out');
  // A shard always writes its result: its folder is made now, not after the run.
  else await makeOutputDirectory(options.out ?? '.', '--out');
  const progress = progressOnStderr('verify-uniqueness');
  // Report only thousandths: a run of millions of jobs need not redraw for each.
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
      ...(shard === undefined ? {} : { jobs: shardRange(options.graphs * options.configs, shard) }),
      onProgress,
    });
  } finally {
    progress.stop();
  }

  const written =
    run.counterexamples.length === 0
      ? []
      : await writeCounterexamples(run.counterexamples, options.seed, options.out ?? '.');
  const { tally, elapsedSeconds, cpuSeconds } = run;
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
  const document: UniquenessDocument = {
    version: packageVersion(),
    ...(shard === undefined ? {} : { shard }),
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
    cpuSeconds,
    casesPerCpuSecond: tally.cases / Math.max(cpuSeconds, 1e-9),
    counterexamples,
  };
  if (shard !== undefined) {
    await writeOutputFiles(
      [
        {
          path: join(options.out ?? '.', shardFileName('verify-uniqueness', shard)),
          text: `${JSON.stringify(document, null, 2)}\n`,
        },
      ],
      '--out',
    );
  }
  return uniquenessOutput(document, options.json === true, resolve(options.out ?? '.'));
}

/**
 * What `verify-uniqueness` (or `merge` of its shards) prints for a run's document: the table or
 * the JSON, and where a counterexample was found, the line saying so and exit code 1.
 */
export function uniquenessOutput(
  document: UniquenessDocument,
  json: boolean,
  where: string,
): CommandOutput {
  const { counterexamples, form } = document;
  const stdout = json ? JSON.stringify(document, null, 2) : formatUniquenessRun(document);
  if (counterexamples.length === 0) return { stdout };
  const found = `${counterexamples.length} configuration(s) converged to two distinct fixed points`;
  return {
    stdout,
    stderr:
      form === 'calls'
        ? `${found} (bistable call graphs: a healthy state and a retry storm, a property of the model, not a solver failure); wrote them to ${where}`
        : `${found}; wrote them to ${where}`,
    exitCode: EXIT_NEGATIVE,
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

/** Registers `difftry verify-uniqueness` on the CLI: its flags, parsed and checked, and the call. */
export function registerVerifyUniquenessCommand(program: Command, emit: Emit): void {
  program
    .command('verify-uniqueness')
    .description(
      'check numerically that random cyclic routing networks (or call graphs) have one fixed point',
    )
    .addOption(
      new Option('--graphs <n>', 'random graphs (cyclic routing: 3 to 30 services; calls: 2 to 30)')
        .argParser(integerIn('--graphs', ...VERIFY_UNIQUENESS_LIMITS.graphs))
        .default(VERIFY_UNIQUENESS_DEFAULTS.graphs),
    )
    .addOption(
      new Option('--configs <m>', 'random configurations per graph')
        .argParser(integerIn('--configs', ...VERIFY_UNIQUENESS_LIMITS.configs))
        .default(VERIFY_UNIQUENESS_DEFAULTS.configs),
    )
    .addOption(
      new Option('--inits <k>', 'initial points (solves) per configuration')
        .argParser(integerIn('--inits', ...VERIFY_UNIQUENESS_LIMITS.inits))
        .default(VERIFY_UNIQUENESS_DEFAULTS.inits),
    )
    .addOption(
      new Option('--seed <n>', 'random seed')
        .argParser(integerIn('--seed', ...VERIFY_UNIQUENESS_LIMITS.seed))
        .default(VERIFY_UNIQUENESS_DEFAULTS.seed),
    )
    .addOption(
      new Option('--classes-max <p>', 'most priority classes of a configuration')
        .argParser(integerIn('--classes-max', ...VERIFY_UNIQUENESS_LIMITS.classesMax))
        .default(VERIFY_UNIQUENESS_DEFAULTS.classesMax),
    )
    .addOption(
      new Option(
        '--threads <t>',
        'threads, this one included (default: every core; 1: no worker)',
      ).argParser(integerIn('--threads', ...VERIFY_UNIQUENESS_LIMITS.threads)),
    )
    .option(
      '--form <form>',
      'routes (cyclic routing networks) or calls (call graphs with nested retries)',
      VERIFY_UNIQUENESS_DEFAULTS.form,
    )
    .option('--out <dir>', 'where to write counterexamples (default: the current directory)')
    .option(
      '--shard <i/n>',
      'run part I of N (I from 0, as JOB_COMPLETION_INDEX) and write its result to --out for difftry merge',
    )
    .option('--json', 'print one JSON document on stdout')
    .action(async (opts) => {
      emit(await verifyUniquenessCommand(opts));
    });
}
