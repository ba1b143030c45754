import { join } from 'node:path';
import { type Command, Option } from 'commander';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { describeBackoff } from '../model/backoff/describeBackoff.js';
import { builtinExample } from '../spec/examples.js';
import { loadNetworkFile, parseNetwork } from '../spec/parseNetwork.js';
import type { NetworkSpec } from '../spec/schema.js';
import { FIG5_BACKOFF, FIG5_PRESETS, runFig5 } from '../testbed/experiment/fig5.js';
import { fig5Csv, fig5Json, fig5Markdown, fig5Svg } from '../testbed/experiment/fig5Report.js';
import { fig5Summary } from '../testbed/experiment/fig5Summary.js';
import {
  DEFAULT_GRACE_S,
  measureTestbed,
  type TestbedMeasurement,
} from '../testbed/experiment/measureTestbed.js';
import { predictTestbed, type TestbedPrediction } from '../testbed/experiment/predictTestbed.js';
import type { CommandOutput } from './CommandOutput.js';
import {
  integerIn,
  loadNetwork,
  nonNegativeNumber,
  parseRetries,
  positiveNumber,
} from './input.js';
import { checkOutputDirectory, makeOutputDirectory, writeOutputFiles } from './outputPath.js';
import { progressOnStderr } from './progress.js';
import { fixed, formatTable } from './table.js';
import { UsageError } from './UsageError.js';

/** Defaults of `difftry testbed run`. */
export const TESTBED_RUN_DEFAULTS = Object.freeze({
  example: 'hotel-calls',
  scale: 0.5,
  warmup: 8,
  duration: 30,
  backoffMs: (FIG5_BACKOFF as { meanMs: number }).meanMs,
  seed: 1,
});

/** Defaults of `difftry testbed fig5`. */
export const TESTBED_FIG5_DEFAULTS = Object.freeze({
  scale: 0.5,
  seed: 5,
  /** A new folder in the working directory named for the run's start (UTC). */
  out: 'testbed-fig5-YYYYMMDD-HHMMSS',
  backoffMs: (FIG5_BACKOFF as { meanMs: number }).meanMs,
});

/** The built-in call-graph examples and their routing twins. */
const ROUTING_TWINS: Readonly<Record<string, string>> = Object.freeze({ 'hotel-calls': 'hotel' });

/** Exit code of a run stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

/** Options of `difftry testbed run`. */
export interface TestbedRunOptions {
  readonly file?: string;
  readonly example?: string;
  /** Routing form of the same network: a file, or a built-in example. */
  readonly routing?: string;
  readonly routingExample?: string;
  readonly scale?: number;
  readonly warmup?: number;
  readonly duration?: number;
  /** Longest drain after the window, seconds (`--grace`). */
  readonly grace?: number;
  readonly retries?: Record<string, number>;
  readonly backoffMs?: number;
  readonly seed?: number;
  /** false: in-process retries instead of sidecars (`--no-sidecar`). */
  readonly sidecar?: boolean;
  /** false: the load generator on the services' thread (`--no-load-thread`). */
  readonly loadThread?: boolean;
  readonly json?: boolean;
}

/** Options of `difftry testbed fig5`. */
export interface TestbedFig5Options {
  readonly quick?: boolean;
  readonly json?: boolean;
  readonly out?: string;
  readonly scale?: number;
  readonly seed?: number;
  readonly warmup?: number;
  readonly duration?: number;
  /** Longest drain after each window, seconds (`--grace`). */
  readonly grace?: number;
  readonly backoffMs?: number;
  readonly sidecar?: boolean;
  readonly loadThread?: boolean;
  /** Runs a point may take when a run is not a valid measurement. */
  readonly runs?: number;
}

/**
 * `difftry testbed run`: starts a call-graph network live, loads it for a while, and prints the
 * measured per-class rejection and latency beside the analysis's prediction (call-graph form and,
 * when known, routing form) for the same network and the capacities calibrated during the run.
 * Everything is stopped at the end, on error, and on `signal`.
 */
export async function testbedRunCommand(
  options: TestbedRunOptions,
  signal?: AbortSignal,
): Promise<CommandOutput> {
  const example =
    options.file === undefined && options.example === undefined
      ? TESTBED_RUN_DEFAULTS.example
      : options.example;
  const network = await loadNetwork({ file: options.file, example });
  const routing = await loadRouting(options, example);
  const backoff: BackoffDescription = {
    kind: 'random',
    meanMs: options.backoffMs ?? TESTBED_RUN_DEFAULTS.backoffMs,
  };
  const warmupS = options.warmup ?? TESTBED_RUN_DEFAULTS.warmup;
  const durationS = options.duration ?? TESTBED_RUN_DEFAULTS.duration;
  const progress = progressOnStderr('testbed');
  let measurement: TestbedMeasurement;
  try {
    measurement = await measureTestbed(network, {
      scale: options.scale ?? TESTBED_RUN_DEFAULTS.scale,
      ...(options.retries !== undefined && { retries: options.retries }),
      backoff,
      seed: options.seed ?? TESTBED_RUN_DEFAULTS.seed,
      sidecars: options.sidecar ?? true,
      edgeThread: options.loadThread ?? true,
      warmupS,
      durationS,
      ...(options.grace !== undefined && { graceS: options.grace }),
      ...(signal !== undefined && { signal }),
      onProgress: (fraction) => progress.update(fraction),
    });
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  } finally {
    progress.stop();
  }
  if (measurement.aborted) {
    return { stdout: '', stderr: 'interrupted: every service stopped', exitCode: EXIT_INTERRUPTED };
  }
  const prediction = predictTestbed(measurement, routing);
  if (options.json) {
    const { network: _network, ...measured } = measurement;
    return {
      stdout: JSON.stringify(
        {
          network: measurement.network.name ?? options.file ?? example,
          setup: {
            scale: options.scale ?? TESTBED_RUN_DEFAULTS.scale,
            warmupS,
            durationS,
            graceS: measurement.graceS,
            backoff,
            sidecars: measurement.sidecars,
          },
          measured,
          predicted: {
            capacities: prediction.capacities,
            arrivals: prediction.arrivals,
            calls: prediction.calls,
            routing: prediction.routing,
            nominal: prediction.nominal,
          },
        },
        null,
        2,
      ),
    };
  }
  return { stdout: formatRun(measurement, prediction, backoff) };
}

async function loadRouting(
  options: TestbedRunOptions,
  example: string | undefined,
): Promise<NetworkSpec | undefined> {
  if (options.routing !== undefined && options.routingExample !== undefined) {
    throw new UsageError('give --routing FILE or --routing-example NAME, not both');
  }
  if (options.routing !== undefined) return loadNetworkFile(options.routing);
  const twin =
    options.routingExample ?? (example === undefined ? undefined : ROUTING_TWINS[example]);
  if (twin === undefined) return undefined;
  const { fileName, text } = builtinExample(twin);
  return parseNetwork(text, fileName);
}

/** The human-readable report of one run. */
export function formatRun(
  m: TestbedMeasurement,
  p: TestbedPrediction,
  backoff: BackoffDescription,
): string {
  const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : 'n/a');
  const lines: string[] = [
    `testbed: ${m.network.name ?? 'network'}, ${m.services.length} services on 127.0.0.1, ` +
      `${m.sidecars ? 'each calling through its DiffTry sidecar' : 'in-process retries (no sidecars)'}; ` +
      `${m.warmupS} s warm-up, ${fixed(m.windowS, 0)} s window, drained ${fixed(m.drainS, 1)} s ` +
      `(grace ${m.graceS} s); retry delay ${describeBackoff(backoff)}`,
    'measured: the requests sent in the window, each followed to its end; answered in window: the old count',
    '',
  ];
  lines.push(
    formatTable(
      [
        { heading: 'class', alignRight: false },
        { heading: 'k' },
        { heading: 'sent/s' },
        { heading: 'sent' },
        { heading: 'measured' },
        { heading: 'answered in window' },
        { heading: 'pred. call graph' },
        { heading: 'pred. routing' },
        { heading: 'p50 s' },
        { heading: 'p99 s' },
      ],
      m.classes.map((c) => [
        c.name,
        String(m.network.classes.find((x) => x.name === c.name)?.retries ?? ''),
        fixed(c.windowRate, 1),
        String(c.sent),
        `${pct(c.rejection)} ± ${pct(c.rejectionCi95)}`,
        `${pct(c.answeredInWindow.rejection)} of ${c.answeredInWindow.finished}`,
        pct(p.calls.endToEnd[c.name]?.rejection ?? Number.NaN),
        pct(p.routing?.endToEnd[c.name]?.rejection ?? Number.NaN),
        fixed(c.latency.p50, 3),
        fixed(c.latency.p99, 3),
      ]),
    ),
    '',
    formatTable(
      [
        { heading: 'service', alignRight: false },
        { heading: 'nominal μ' },
        { heading: 'calibrated μ' },
        { heading: 'stretch' },
        { heading: 'utilisation' },
        { heading: 's measured' },
        { heading: 's predicted' },
      ],
      m.services.map((s) => [
        s.name,
        fixed(s.nominalCapacity, 2),
        fixed(s.calibratedCapacity, 2),
        fixed(s.stretch, 3),
        fixed(s.utilization, 2),
        fixed(s.attemptRejection, 3),
        fixed(p.calls.services[s.name]?.s ?? Number.NaN, 3),
      ]),
    ),
    '',
    `internal calls per request: ${fixed(m.internalPerRequest, 2)} measured, ` +
      `${fixed(p.calls.load.internalPerRequest, 2)} predicted (call graph)` +
      (p.routing ? `, ${fixed(p.routing.load.internalPerRequest, 2)} (routing)` : ''),
  );
  for (const s of m.streams) {
    lines.push(
      `load ${s.entry}/${s.className}: ${s.sent} sent at ${fixed(s.achievedRate, 2)}/s (asked ${fixed(s.rate, 2)}), ` +
        `${s.poisson.verdict}; ${s.late} late (> 1 ms), mean lateness ${fixed(s.meanLatenessMs, 2)} ms`,
    );
  }
  if (m.unfinished > 0) {
    lines.push(
      `${m.unfinished} request(s) sent in the window still unfinished after the ${m.graceS} s drain: left out of measured`,
    );
  }
  lines.push(
    `event-loop delay: mean ${fixed(m.eventLoopDelay.meanMs, 2)} ms, p99 ${fixed(m.eventLoopDelay.p99Ms, 1)} ms, max ${fixed(m.eventLoopDelay.maxMs, 1)} ms`,
  );
  return lines.join('\n');
}

/**
 * `difftry testbed fig5`: the DiffTry paper's Figure 5 on the live testbed (hotel-calls, with
 * hotel as its routing form); writes `testbed-fig5.csv`, `.svg` and `.md` into `out` and prints
 * a summary (or, with `json`, the whole sweep as one JSON document).
 */
export async function testbedFig5Command(
  options: TestbedFig5Options,
  signal?: AbortSignal,
): Promise<CommandOutput> {
  const preset = options.quick ? FIG5_PRESETS.quick : FIG5_PRESETS.full;
  const out = options.out ?? runFolder(new Date());
  await checkOutputDirectory(out, '--out');
  const load = (name: string) => {
    const { fileName, text } = builtinExample(name);
    return parseNetwork(text, fileName);
  };
  const progress = progressOnStderr('fig5', { delayMs: 0 });
  let result: Awaited<ReturnType<typeof runFig5>>;
  try {
    result = await runFig5({
      network: load('hotel-calls'),
      routing: load('hotel'),
      gammaLows: preset.gammaLows,
      warmupS: options.warmup ?? preset.warmupS,
      durationS: options.duration ?? preset.durationS,
      ...(options.grace !== undefined && { graceS: options.grace }),
      scale: options.scale ?? TESTBED_FIG5_DEFAULTS.scale,
      seed: options.seed ?? TESTBED_FIG5_DEFAULTS.seed,
      backoff: { kind: 'random', meanMs: options.backoffMs ?? TESTBED_FIG5_DEFAULTS.backoffMs },
      sidecars: options.sidecar ?? true,
      edgeThread: options.loadThread ?? true,
      ...(options.runs !== undefined && { runsPerPoint: options.runs }),
      ...(signal !== undefined && { signal }),
      onProgress: (fraction) => progress.update(fraction),
    });
  } finally {
    progress.stop();
  }
  if (result.aborted) {
    return {
      stdout: '',
      stderr: 'interrupted: every service stopped, nothing written',
      exitCode: EXIT_INTERRUPTED,
    };
  }
  const files = { csv: 'testbed-fig5.csv', svg: 'testbed-fig5.svg', md: 'testbed-fig5.md' };
  const command = `difftry testbed fig5${options.quick ? ' --quick' : ''}`;
  await makeOutputDirectory(out, '--out');
  await writeOutputFiles(
    [
      { path: join(out, files.csv), text: fig5Csv(result) },
      { path: join(out, files.svg), text: fig5Svg(result) },
      { path: join(out, files.md), text: fig5Markdown(result, { ...files, command }) },
    ],
    '--out',
  );
  const written = `wrote ${Object.values(files)
    .map((f) => join(out, f))
    .join(', ')} in ${fixed(result.seconds / 60, 1)} min`;
  if (options.json) return { stdout: fig5Json(result), stderr: written };
  return { stdout: formatFig5(result), stderr: written };
}

/** `testbed-fig5-20261201-163512`: the default folder of a run started at `now` (UTC). */
export function runFolder(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/-|:/g, '')
    .replace('T', '-');
  return `testbed-fig5-${stamp}`;
}

/** The summary `difftry testbed fig5` prints. */
export function formatFig5(result: Awaited<ReturnType<typeof runFig5>>): string {
  const summary = fig5Summary(result);
  const { setup } = result;
  const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}` : 'n/a');
  const rows = result.points.flatMap((point) =>
    point.measurement.classes.map((c, i) => {
      const predicted = point.prediction.calls.endToEnd[c.name]?.rejection ?? Number.NaN;
      const routing = point.prediction.routing?.endToEnd[c.name]?.rejection ?? Number.NaN;
      return [
        i === 0 ? String(point.gammaLow) : '',
        i === 0 ? point.limit.key : '',
        c.name,
        `${pct(c.rejection)} ± ${pct(c.rejectionCi95)}`,
        pct(c.answeredInWindow.rejection),
        pct(predicted),
        pct(routing),
        fixed(c.latency.p50, 3),
        fixed(c.latency.p99, 3),
        i === 0 ? fixed(point.measurement.internalPerRequest, 2) : '',
        i === 0 ? fixed(point.prediction.calls.load.internalPerRequest, 2) : '',
        i === 0
          ? fixed(
              point.measurement.services.find((s) => s.name === setup.entry)?.calibratedCapacity ??
                Number.NaN,
              1,
            )
          : '',
      ];
    }),
  );
  const lines = [
    formatTable(
      [
        { heading: 'γ_low' },
        { heading: 'k', alignRight: false },
        { heading: 'class', alignRight: false },
        { heading: 'measured %' },
        { heading: 'answered %' },
        { heading: 'pred. cg %' },
        { heading: 'pred. rt %' },
        { heading: 'p50 s' },
        { heading: 'p99 s' },
        { heading: 'internal/req' },
        { heading: 'pred.' },
        { heading: `${setup.entry} μ` },
      ],
      rows,
    ),
    '',
    `largest |measured − predicted|: ${fixed(summary.maxGapCalls, 3)} (call graph), ${fixed(summary.maxGapRouting, 3)} (routing); ` +
      `${summary.outside.length === 0 ? `every point within ${summary.tolerance}` : `${summary.outside.length} class-point(s) outside ${summary.tolerance}`}`,
    `measured: requests sent in the window, followed to their end (drains up to ${fixed(summary.drainMaxS, 1)} s, ` +
      `${summary.unfinished} unfinished); answered: the old count over answers in the window ` +
      `(largest |answered − predicted| ${fixed(summary.maxGapAnswered, 3)})`,
  ];
  if (summary.cut !== undefined) {
    const cut = summary.cut;
    lines.push(
      `high-class rejection at γ_low = ${cut.gammaLow}: ${pct(cut.measuredUniform)} % uniform → ${pct(cut.measuredDiffTry)} % DiffTry; ` +
        `cut ${fixed(cut.measured, 2)}× measured (95 % ${fixed(cut.measuredLow95, 2)}–${fixed(cut.measuredHigh95, 2)}), ` +
        `${fixed(cut.predictedCalls, 2)}× predicted (paper ≈ 3.5×)`,
    );
  }
  lines.push(
    `scale ${setup.scale}: ${setup.entry} μ nominal ${fixed(summary.capacities.find((c) => c.name === setup.entry)?.nominal ?? Number.NaN, 2)}/s, ` +
      `calibrated ${fixed(summary.capacities.find((c) => c.name === setup.entry)?.calibratedMin ?? Number.NaN, 1)}–` +
      `${fixed(summary.capacities.find((c) => c.name === setup.entry)?.calibratedMax ?? Number.NaN, 1)}/s; ` +
      `send-gap CV ${fixed(summary.cvMin, 3)}–${fixed(summary.cvMax, 3)} (${summary.allPoisson ? 'Poisson' : 'NOT all Poisson'}); ` +
      `event-loop p99 ≤ ${fixed(summary.eventLoopP99MaxMs, 1)} ms`,
  );
  if (summary.discardedRuns > 0 || summary.invalidPoints > 0) {
    lines.push(
      `${summary.discardedRuns} invalid run(s) discarded and run again` +
        (summary.invalidPoints > 0 ? `; ${summary.invalidPoints} point(s) still invalid` : ''),
    );
  }
  return lines.join('\n');
}

/**
 * Registers `difftry testbed run` and `difftry testbed fig5` on the CLI. Each command stops every
 * service, sidecar and socket it started when it ends, when it fails and on Ctrl-C (exit 130);
 * a second Ctrl-C kills the process.
 * @param emit - prints a command's output and keeps its exit code (pass the CLI's own, so
 *   `main()` returns the code); default: writes stdout/stderr and sets `process.exitCode`.
 */
export function registerTestbedCommands(
  program: Command,
  emit: (output: CommandOutput) => void = defaultEmit,
): Command {
  const testbed = program
    .command('testbed')
    .description(
      'run a network live on 127.0.0.1 under open-loop load; measured against predicted',
    );
  testbed
    .command('run')
    .description(
      'start a call-graph network live, load it, print measured beside predicted rejection',
    )
    .argument('[file]', 'call-graph network file (YAML or JSON); default --example hotel-calls')
    .option('--example <name>', 'a built-in example instead of a file (hotel-calls)')
    .option('--routing <file>', 'the routing form of the same network, predicted beside it')
    .option('--routing-example <name>', 'a built-in routing form (default for hotel-calls: hotel)')
    .option(
      '--scale <x>',
      `rates × x on the testbed (default ${TESTBED_RUN_DEFAULTS.scale})`,
      positiveNumber('--scale'),
    )
    .option(
      '--warmup <s>',
      `seconds of load before measuring (default ${TESTBED_RUN_DEFAULTS.warmup})`,
      nonNegativeNumber('--warmup'),
    )
    .option(
      '--duration <s>',
      `seconds measured (default ${TESTBED_RUN_DEFAULTS.duration})`,
      positiveNumber('--duration'),
    )
    .option(
      '--grace <s>',
      `longest drain after the window while its requests finish (default ${DEFAULT_GRACE_S})`,
      nonNegativeNumber('--grace'),
    )
    .option(
      '--retries <limits>',
      'retry limits per class at every hop, e.g. high=5,low=1',
      parseRetries,
    )
    .option(
      '--backoff-ms <ms>',
      `mean of the random retry delay (default ${TESTBED_RUN_DEFAULTS.backoffMs})`,
      positiveNumber('--backoff-ms'),
    )
    .option(
      '--seed <n>',
      `seed (default ${TESTBED_RUN_DEFAULTS.seed})`,
      integerIn('--seed', 0, 2 ** 31),
    )
    .addOption(new Option('--no-sidecar', 'retry in-process (runtime retry()) instead of sidecars'))
    .addOption(new Option('--no-load-thread', 'run the load generator on the services’ thread'))
    .option('--json', 'print one JSON document on stdout')
    .action(async (file: string | undefined, opts: TestbedRunOptions) => {
      emit(await interruptible((signal) => testbedRunCommand({ file, ...opts }, signal)));
    });
  testbed
    .command('fig5')
    .description(
      "the DiffTry paper's Figure 5 live: hotelReservation, γ_low swept, k = (5,1) vs (5,5)",
    )
    .option('--quick', '3 points and short windows (about 2 minutes)')
    .option('--json', 'print the whole sweep as one JSON document on stdout')
    .option(
      '--out <dir>',
      'where to write testbed-fig5.{csv,svg,md} (default: a new folder testbed-fig5-YYYYMMDD-HHMMSS ' +
        'here; the recorded run in docs/ is re-made by npm run testbed:fig5)',
    )
    .option(
      '--scale <x>',
      `rates × x on the testbed (default ${TESTBED_FIG5_DEFAULTS.scale})`,
      positiveNumber('--scale'),
    )
    .option('--warmup <s>', 'seconds of load before each window', nonNegativeNumber('--warmup'))
    .option('--duration <s>', 'seconds of each window', positiveNumber('--duration'))
    .option(
      '--grace <s>',
      `longest drain after each window while its requests finish (default ${DEFAULT_GRACE_S})`,
      nonNegativeNumber('--grace'),
    )
    .option(
      '--backoff-ms <ms>',
      `mean of the random retry delay (default ${TESTBED_FIG5_DEFAULTS.backoffMs})`,
      positiveNumber('--backoff-ms'),
    )
    .option(
      '--seed <n>',
      `seed of the first point (default ${TESTBED_FIG5_DEFAULTS.seed})`,
      integerIn('--seed', 0, 2 ** 31),
    )
    .addOption(new Option('--no-sidecar', 'retry in-process (runtime retry()) instead of sidecars'))
    .option(
      '--runs <n>',
      'runs a point may take when one is not a valid measurement (default 2)',
      integerIn('--runs', 1, 5),
    )
    .addOption(new Option('--no-load-thread', 'run the load generator on the services’ thread'))
    .action(async (opts: TestbedFig5Options) => {
      emit(await interruptible((signal) => testbedFig5Command(opts, signal)));
    });
  return testbed;
}

/** Runs `work` with a signal that the first Ctrl-C aborts; the second one kills as usual. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => {
    process.stderr.write('difftry: stopping the testbed (Ctrl-C again to kill)\n');
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    return await work(controller.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

function defaultEmit(output: CommandOutput): void {
  if (output.stdout !== '') {
    process.stdout.write(output.stdout.endsWith('\n') ? output.stdout : `${output.stdout}\n`);
  }
  if (output.stderr !== undefined) process.stderr.write(`difftry: ${output.stderr}\n`);
  if (output.exitCode !== undefined && output.exitCode !== 0) process.exitCode = output.exitCode;
}
