import { type Command, Option } from 'commander';
import { loadScheduleFile } from '../config/parseSchedule.js';
import type { ScheduleSpec } from '../config/scheduleSchema.js';
import type { NetworkSpec } from '../config/schema.js';
import { toNetworkModel } from '../config/toNetworkModel.js';
import { shardRange } from '../experiments/shard/shard.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { TimeoutStrategyDescription } from '../policy/timeouts/createTimeoutStrategy.js';
import type { ReplicatedNetworkResult } from '../sim/network/replicateNetwork.js';
import { replicateWithProgress } from '../sim/network/replicateWithProgress.js';
import {
  isNetworkStrategy,
  NETWORK_STRATEGIES,
  type NetworkStrategy,
} from '../sim/network/strategy.js';
import { type ReplicatedSingleServiceResult, replicateSingleService } from '../sim/replicate.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import {
  integerIn,
  loadNetwork,
  nonNegativeNumber,
  parseRetries,
  positiveNumber,
} from './input.js';
import {
  type NetworkSimulationDocument,
  networkHeader,
  networkSimulationDocument,
  type Prediction,
  predict,
  simulationOptions,
} from './networkSimulation.js';
import { checkOutputPath, writeOutputFiles } from './outputPath.js';
import { progressOnStderr } from './progress.js';
import type { SimulateOptions } from './SimulateOptions.js';
import { shardOption } from './shardOption.js';
import { checkRunSize } from './simulateRunSize.js';
import { runSweep, sweepOutput } from './simulateSweep.js';
import { simulateSweepShard } from './simulateSweepShard.js';
import { formatWindows, windowCsv } from './simulateWindows.js';
import {
  parseTimeoutMs,
  parseTimeoutStrategy,
  SIMULATE_TIMEOUT_STRATEGIES,
  timeoutSetting,
  toSingleServiceConfig,
} from './simulationConfig.js';
import { parseSweep } from './sweep.js';
import {
  type Column,
  fixed,
  formatTable,
  groupedRows,
  withCi,
  withUndefinedNote,
} from './table.js';
import { UsageError } from './UsageError.js';

/** The options live in their own module, which the sweep and the network simulation share. */
export type { SimulateOptions };

/** The columns of the simulated per-service table (single service and networks alike). */
const SERVICE_COLUMNS: readonly Column[] = [
  { heading: 'service', alignRight: false },
  { heading: 'ρ' },
  { heading: 's' },
  { heading: 'class', alignRight: false },
  { heading: 'in/s' },
  { heading: 'attempts/s' },
  { heading: 'rejection' },
  { heading: 'out/s' },
];

/** {@link SERVICE_COLUMNS} with a `timeouts/s` column after `attempts/s`. */
const SERVICE_COLUMNS_WITH_TIMEOUTS: readonly Column[] = [
  ...SERVICE_COLUMNS.slice(0, 6),
  { heading: 'timeouts/s' },
  ...SERVICE_COLUMNS.slice(6),
];

/**
 * Parses `--strategy NAME`.
 * @throws UsageError naming the strategies on an unknown name.
 */
export function parseStrategy(text: string): NetworkStrategy {
  if (isNetworkStrategy(text)) return text;
  throw new UsageError(
    `--strategy: expected one of ${NETWORK_STRATEGIES.join(', ')}, got "${text}"`,
  );
}

/** Defaults of `difftry simulate`: 200 s measured, 10 replications, seed 1. */
export const SIMULATE_DEFAULTS = { duration: 200, replications: 10, seed: 1 } as const;

/** `difftry simulate`: simulates a network (or a sweep of it) and returns what to print. */
export async function simulateCommand(options: SimulateOptions): Promise<CommandOutput> {
  const timeouts = timeoutsOption(options);
  checkOptionPairs(options);
  if (options.csv !== undefined) await checkOutputPath(options.csv, '--csv');
  const network = await loadNetwork(options);
  const model = toNetworkModel(network, { retries: options.retries });
  const sweep = options.sweep === undefined ? undefined : parseSweep(options.sweep, model);
  const shard = options.shard === undefined ? undefined : shardOption(options.shard);
  const range = sweep === undefined ? undefined : shardRange(sweep.values.length, shard);
  checkRunSize(
    model,
    options,
    sweep === undefined || range === undefined
      ? undefined
      : { ...sweep, values: sweep.values.slice(range.first, range.end) },
  );
  if (sweep !== undefined) {
    return shard === undefined
      ? sweepOutput(runSweep(network, sweep, timeouts, options), options)
      : simulateSweepShard(network, sweep, timeouts, options, shard);
  }
  const schedule =
    options.schedule === undefined ? undefined : await loadScheduleFile(options.schedule, model);
  // The single-service simulator knows DiffTry without timeouts, schedules or windows only;
  // anything else runs the network simulator, which handles one service as well.
  const strategy = options.strategy ?? 'difftry';
  const setting = timeoutSetting(network, timeouts);
  const overTime = schedule !== undefined || options.window !== undefined;
  if (strategy !== 'difftry' || !isSingleService(model) || setting !== null || overTime) {
    return simulateNetworkCommand(network, model, timeouts, schedule, options);
  }
  const analysis = options.compareAnalysis
    ? predict(network, { retries: options.retries }, strategy, setting)
    : undefined;
  const config = toSingleServiceConfig(network, model, options);
  const progress = options.progress ?? progressOnStderr('simulate');
  let result: ReplicatedSingleServiceResult;
  try {
    result = replicateSingleService(config, options.replications, {
      onProgress: (fraction) => progress.update(fraction),
    });
  } finally {
    progress.stop();
  }
  const serviceName = network.services[0]?.name ?? 'service';
  const document = simulationDocument(model, serviceName, result, options.seed);
  if (options.json) {
    const withAnalysis = analysis === undefined ? document : { ...document, analysis };
    return { stdout: JSON.stringify(withAnalysis, null, 2) };
  }
  return { stdout: withUndefinedNote(formatSimulation(model, document, analysis)) };
}

/**
 * The per-try timeouts asked for: `--timeout MS` as a fixed strategy, or `--timeouts`.
 * @throws UsageError when both are given or the timeout is not a positive number.
 */
function timeoutsOption(options: SimulateOptions): TimeoutStrategyDescription | undefined {
  if (options.timeout === undefined) return options.timeouts;
  if (options.timeouts !== undefined) {
    throw new UsageError('give --timeout MS or --timeouts STRATEGY, not both');
  }
  if (!(Number.isFinite(options.timeout) && options.timeout > 0)) {
    throw new UsageError(
      `--timeout: expected a positive number of milliseconds, got "${options.timeout}"`,
    );
  }
  return { kind: 'fixed', timeoutMs: options.timeout };
}

/**
 * The options that go only with others: `--csv` with `--sweep` or `--window`; `--schedule` and
 * `--window` not with `--sweep` (a sweep point is a steady state).
 * @throws UsageError naming the option.
 */
function checkOptionPairs(options: SimulateOptions): void {
  if (options.csv !== undefined && options.sweep === undefined && options.window === undefined) {
    throw new UsageError('--csv: only with --sweep or --window');
  }
  if (options.shard !== undefined && options.sweep === undefined) {
    throw new UsageError('--shard: only with --sweep (the shards split its points)');
  }
  if (options.out !== undefined && options.shard === undefined) {
    throw new UsageError('--out: only with --shard (where the shard writes its result)');
  }
  if (options.shard !== undefined && options.csv !== undefined) {
    throw new UsageError(
      "--csv: not with --shard (difftry merge --csv writes the whole run's rows)",
    );
  }
  if (options.sweep === undefined) return;
  for (const [given, name] of [
    [options.schedule, '--schedule'],
    [options.window, '--window'],
  ] as const) {
    if (given !== undefined) {
      throw new UsageError(`${name}: not with --sweep (each sweep point is a steady state)`);
    }
  }
}

/** One service, no routes, no calls: the single-service simulator's case. */
function isSingleService(model: NetworkModel): boolean {
  const [service, ...others] = model.services;
  return (
    service !== undefined &&
    others.length === 0 &&
    (model.mode ?? 'routing') === 'routing' &&
    service.routes.length === 0
  );
}

/**
 * `difftry simulate` by the network simulator (a network, or one service with anything the
 * single-service simulator lacks): replications of `simulateNetwork`, and with `--window` the
 * windows averaged over them, as a table, in the JSON and as CSV.
 */
async function simulateNetworkCommand(
  network: NetworkSpec,
  model: NetworkModel,
  timeouts: TimeoutStrategyDescription | undefined,
  schedule: ScheduleSpec | undefined,
  options: SimulateOptions,
): Promise<CommandOutput> {
  const simulation = {
    ...simulationOptions(network, timeouts, options),
    ...(schedule === undefined ? {} : { schedule }),
    ...(options.window === undefined ? {} : { windowSeconds: options.window }),
  };
  const setting = timeoutSetting(network, timeouts);
  const analysis = options.compareAnalysis
    ? predict(network, { retries: options.retries }, simulation.strategy, setting)
    : undefined;
  const progress = options.progress ?? progressOnStderr('simulate');
  let result: ReplicatedNetworkResult;
  try {
    result = replicateWithProgress(model, simulation, options.replications, (f) =>
      progress.update(f),
    );
  } finally {
    progress.stop();
  }
  const document = networkSimulationDocument(
    model,
    result,
    options.seed,
    simulation.classBackoffs,
    setting,
  );
  const windows = result.windows;
  let stderr: string | undefined;
  if (options.csv !== undefined && windows !== undefined) {
    await writeOutputFiles([{ path: options.csv, text: windowCsv(windows) }], '--csv');
    stderr = `wrote ${windows.length} windows to ${options.csv}`;
  }
  if (options.json) {
    const overTime = {
      ...(options.schedule === undefined
        ? {}
        : { schedule: { file: options.schedule, ...schedule } }),
      ...(windows === undefined ? {} : { windowSeconds: options.window, windows }),
    };
    const withAnalysis = analysis === undefined ? document : { ...document, analysis };
    return { stdout: JSON.stringify({ ...withAnalysis, ...overTime }, null, 2), stderr };
  }
  const lines = [formatNetworkSimulation(document, analysis)];
  if (options.schedule !== undefined) {
    const count = schedule?.changes.length ?? 0;
    lines.push(`Schedule: ${options.schedule} (${count} ${count === 1 ? 'change' : 'changes'})`);
  }
  if (windows !== undefined) {
    const over =
      result.replications === 1
        ? 'one replication'
        : `means over ${result.replications} replications (the JSON and --csv give each 95 % half-width)`;
    lines.push(
      `\nWindows of ${options.window} s of virtual time from the start of the run (warm-up ${result.warmup} s included); ${over}`,
      formatWindows(windows, setting !== null),
    );
  }
  return { stdout: withUndefinedNote(lines.join('\n')), stderr };
}

/** The predicted end-to-end rejection of a class, `*`-marked if the analysis did not converge. */
function predictedCell(analysis: Prediction | undefined, className: string): string {
  const report = analysis?.report;
  if (report === undefined || report === null) return '—';
  const value = fixed(report.endToEnd[className]?.rejection ?? Number.NaN);
  return report.converged ? value : `${value}*`;
}

function formatNetworkSimulation(
  doc: NetworkSimulationDocument,
  analysis: Prediction | undefined,
): string {
  const withTimeouts = doc.timeouts !== null;
  const rows = groupedRows(
    doc.services,
    (service) => service.classes,
    serviceCells,
    (className, c) => [
      className,
      withCi(c.in ?? Number.NaN, c.inCi95 ?? Number.NaN, 2),
      withCi(c.attempts ?? Number.NaN, c.attemptsCi95 ?? Number.NaN, 2),
      ...(withTimeouts ? [withCi(c.timeouts ?? Number.NaN, c.timeoutsCi95 ?? Number.NaN, 2)] : []),
      withCi(c.rejection ?? Number.NaN, c.rejectionCi95 ?? Number.NaN),
      withCi(c.out ?? Number.NaN, c.outCi95 ?? Number.NaN, 2),
    ],
  );
  const services = formatTable(
    withTimeouts ? SERVICE_COLUMNS_WITH_TIMEOUTS : SERVICE_COLUMNS,
    rows,
  );
  const endToEnd = endToEndTable(doc.classes, doc.endToEnd, analysis, true);
  const load =
    `Load: ${fixed(doc.load.attemptsPerRequest, 3)} attempts/request, ${fixed(doc.load.attemptsPerSuccess, 3)} attempts/success; ` +
    `${fixed(doc.load.internalPerRequest, 3)} internal calls/request, ${fixed(doc.load.internalPerSuccess, 3)} internal calls/success`;
  return `${networkHeader(doc)}\n\nServices\n${services}\n\nEnd to end\n${endToEnd}\n${load}${analysisNotes(analysis)}`;
}

/** The analysis's notes, one `Note:` line each, after a newline; empty without any. */
function analysisNotes(analysis: Prediction | undefined): string {
  const notes = analysis?.notes ?? [];
  const report = analysis?.report;
  const marked =
    report?.converged === false
      ? [
          `* the analysis did not converge in ${report.iterations} iterations (residual ${report.residual.toExponential(2)})`,
        ]
      : [];
  return [...notes.map((note) => `\nNote: ${note}`), ...marked.map((m) => `\n${m}`)].join('');
}

/** The `simulate --json` document: docs/design.md's analysis shape, each figure with its `Ci95`. */
export function simulationDocument(
  model: NetworkModel,
  serviceName: string,
  result: ReplicatedSingleServiceResult,
  seed: number,
) {
  const classes: Record<string, Record<string, number>> = {};
  const endToEnd: Record<string, Record<string, number>> = {};
  for (const c of model.classes) {
    const m = result.classes[c.name];
    if (m === undefined) continue;
    classes[c.name] = {
      in: m.arrivalRate,
      inCi95: m.arrivalRateCi95,
      out: m.goodput,
      outCi95: m.goodputCi95,
      attempts: m.attemptRate,
      attemptsCi95: m.attemptRateCi95,
      rejection: m.rejection,
      rejectionCi95: m.rejectionCi95,
    };
    endToEnd[c.name] = {
      rejection: m.rejection,
      rejectionCi95: m.rejectionCi95,
      completion: 1 - m.rejection,
      completionCi95: m.rejectionCi95,
      attemptsPerRequest: m.attemptsPerRequest,
      attemptsPerRequestCi95: m.attemptsPerRequestCi95,
      latencyMean: m.latencyMean,
      latencyMeanCi95: m.latencyMeanCi95,
      latencyP50: m.latencyP50,
      latencyP50Ci95: m.latencyP50Ci95,
      latencyP99: m.latencyP99,
      latencyP99Ci95: m.latencyP99Ci95,
    };
  }
  return {
    strategy: 'difftry' as const,
    classes: model.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services: {
      [serviceName]: {
        s: result.s,
        sCi95: result.sCi95,
        rho: result.rho,
        rhoCi95: result.rhoCi95,
        meanInSystem: result.meanInSystem,
        meanInSystemCi95: result.meanInSystemCi95,
        classes,
      },
    },
    endToEnd,
    replications: result.replications,
    duration: result.duration,
    warmup: result.warmup,
    seed,
    events: result.events,
  };
}

type SimulationDocument = ReturnType<typeof simulationDocument>;

function formatSimulation(
  model: NetworkModel,
  doc: SimulationDocument,
  analysis?: Prediction,
): string {
  const rows = groupedRows(
    doc.services,
    (service) => service.classes,
    serviceCells,
    (className, c) => [
      className,
      fixed(c.in ?? Number.NaN, 2),
      withCi(c.attempts ?? Number.NaN, c.attemptsCi95 ?? Number.NaN, 2),
      withCi(c.rejection ?? Number.NaN, c.rejectionCi95 ?? Number.NaN),
      fixed(c.out ?? Number.NaN, 2),
    ],
  );
  const services = formatTable(SERVICE_COLUMNS, rows);
  const endToEnd = endToEndTable(
    model.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    doc.endToEnd,
    analysis,
    false,
  );
  return `Strategy: ${doc.strategy}\nSimulated ${doc.replications} × ${doc.duration} s (warm-up ${doc.warmup} s, seed ${doc.seed}, ${doc.events} events); ± is the 95 % confidence half-width\n\nServices\n${services}\n\nEnd to end\n${endToEnd}${analysisNotes(analysis)}`;
}

/**
 * The end-to-end table of a simulated run: per class its retries, rejection (with the analysis's
 * prediction when asked), completion (networks), attempts per request and latency percentiles.
 */
function endToEndTable(
  classes: readonly { readonly name: string; readonly retries: number }[],
  endToEnd: Readonly<Record<string, Readonly<Record<string, number>>>>,
  analysis: Prediction | undefined,
  withCompletion: boolean,
): string {
  return formatTable(
    [
      { heading: 'class', alignRight: false },
      { heading: 'retries' },
      { heading: 'rejection' },
      ...(analysis === undefined ? [] : [{ heading: 'predicted' }]),
      ...(withCompletion ? [{ heading: 'completion' }] : []),
      { heading: 'attempts/request' },
      { heading: 'p50 ms' },
      { heading: 'p99 ms' },
    ],
    classes.map((c) => {
      const e = endToEnd[c.name] ?? {};
      return [
        c.name,
        String(c.retries),
        withCi(e.rejection ?? Number.NaN, e.rejectionCi95 ?? Number.NaN),
        ...(analysis === undefined ? [] : [predictedCell(analysis, c.name)]),
        ...(withCompletion
          ? [withCi(e.completion ?? Number.NaN, e.completionCi95 ?? Number.NaN)]
          : []),
        fixed(e.attemptsPerRequest ?? Number.NaN, 3),
        fixed((e.latencyP50 ?? Number.NaN) * 1000, 1),
        fixed((e.latencyP99 ?? Number.NaN) * 1000, 1),
      ];
    }),
  );
}

/** A service's own cells in the simulated services table: name, ρ and s with their CIs. */
function serviceCells<
  S extends {
    readonly rho: number;
    readonly rhoCi95: number;
    readonly s: number;
    readonly sCi95: number;
  },
>(name: string, service: S): string[] {
  return [name, withCi(service.rho, service.rhoCi95, 3), withCi(service.s, service.sCi95)];
}

/** Registers `difftry simulate` on the CLI: its flags, parsed and checked, and the call. */
export function registerSimulateCommand(program: Command, emit: Emit): void {
  program
    .command('simulate')
    .description('simulate a network file in virtual time, with 95 % confidence intervals')
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--json', 'print one JSON document on stdout')
    .addOption(
      new Option('--duration <seconds>', 'measured window per replication (virtual seconds)')
        .argParser(positiveNumber('--duration'))
        .default(SIMULATE_DEFAULTS.duration),
    )
    .addOption(
      new Option(
        '--warmup <seconds>',
        'warm-up before the window (default 10 % of duration)',
      ).argParser(nonNegativeNumber('--warmup')),
    )
    .addOption(
      new Option('--seed <n>', 'random seed')
        .argParser(integerIn('--seed', 0, 2 ** 31 - 1))
        .default(SIMULATE_DEFAULTS.seed),
    )
    .addOption(
      new Option('--replications <r>', 'independent replications')
        .argParser(integerIn('--replications', 1, 10_000))
        .default(SIMULATE_DEFAULTS.replications),
    )
    .option(
      '--retries <limits>',
      "retry limits per class at every hop, e.g. high=5,low=1 ('*=2' for every class; istio-default: Istio's default, 2 for all)",
      parseRetries,
    )
    .option(
      '--strategy <name>',
      'retry strategy: difftry, uniform, budget-finagle, budget-grpc, budget-envoy, sre-throttle or class-budget (default difftry)',
      parseStrategy,
    )
    .addOption(
      new Option(
        '--timeout <ms>',
        "a fixed per-try timeout at every hop, every class (replaces the classes' timeoutMs); " +
          'an abandoned attempt is a timeout the policy may retry',
      ).argParser(parseTimeoutMs),
    )
    .addOption(
      new Option(
        '--timeouts <strategy>',
        `adaptive per-try timeouts, a fresh strategy per hop: ${SIMULATE_TIMEOUT_STRATEGIES.join(', ')} ` +
          `(their defaults), or JSON such as '{"kind":"rto","minMs":20}'`,
      ).argParser(parseTimeoutStrategy),
    )
    .option(
      '--sweep <spec>',
      "simulate each point of one arrival rate or capacity, e.g. 'frontend.low=50:250:25', " +
        'one row per point and class beside the analysis',
    )
    .option(
      '--schedule <file>',
      "change arrival rates and capacities over virtual time: a schedule file of multipliers of the network's (YAML or JSON)",
    )
    .addOption(
      new Option(
        '--window <seconds>',
        'measure per window of this many virtual seconds: a table over time (and --csv, --json)',
      ).argParser(positiveNumber('--window')),
    )
    .option(
      '--csv <file>',
      'with --sweep or --window: also write the rows as CSV to this file (checked before the run)',
    )
    .option(
      '--shard <i/n>',
      'with --sweep: run part I of N of its points (I from 0, as JOB_COMPLETION_INDEX) and write the result to --out for difftry merge',
    )
    .option(
      '--out <dir>',
      'with --shard: where to write the result (default: the current directory)',
    )
    .option(
      '--compare-analysis',
      "put the analysis's predicted rejection beside the simulated one (always in a sweep)",
    )
    .addHelpText(
      'after',
      '\nProgress goes to stderr. Per-class backoffs and timeouts come from the file. A network of\n' +
        'one service simulated with DiffTry and no timeouts uses the single-service simulator; sweeps\n' +
        'and everything else the network simulator. The --timeouts strategies all run on the\n' +
        "simulation's virtual time (none needs a wall clock). The analysis models fixed per-try\n" +
        "timeouts (--timeout, the file's) and retry limits; an adaptive --timeouts strategy is\n" +
        'predicted without timeouts, a budget strategy not at all (the output says so).\n\n' +
        'Examples:\n' +
        '  difftry simulate --example hotel --timeout 500        # 500 ms per try: about as without\n' +
        '  difftry simulate --example hotel --timeout 250        # 250 ms: a retry storm (docs/metastability.md)\n' +
        '  difftry simulate --example two-tier --timeouts rto --compare-analysis\n' +
        "  difftry simulate --example hotel --sweep 'frontend.low=50:250:50' --csv sweep.csv\n" +
        "  difftry simulate --example hotel --sweep 'frontend.low=50:250:50' --shard 0/2 --out s0\n" +
        '  difftry merge s0 s1 --csv sweep.csv   # the shards added up: the run made whole\n' +
        '  difftry simulate examples/metastable.yaml --schedule examples/capacity-drop.yaml \\\n' +
        '    --timeout 100 --window 10 --duration 300 --warmup 0 --replications 1 --csv windows.csv',
    )
    .action(async (file: string | undefined, opts) => {
      emit(await simulateCommand({ file, ...opts }));
    });
}
