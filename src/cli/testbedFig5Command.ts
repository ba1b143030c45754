import { join, relative, sep } from 'node:path';
import { type Command, Option } from 'commander';
import { builtinExample } from '../config/examples.js';
import { parseNetwork } from '../config/parseNetwork.js';
import { figure5LimitPairs } from '../experiments/figure5/figure5Sweep.js';
import {
  FIG5_PRESETS,
  type Fig5Limit,
  runFig5,
  TESTBED_BACKOFF,
} from '../experiments/figure5/testbedFigure5.js';
import {
  fig5Csv,
  fig5Json,
  fig5Markdown,
  fig5Svg,
} from '../experiments/figure5/testbedFigure5Report.js';
import { fig5Summary } from '../experiments/figure5/testbedFigure5Summary.js';
import { percentPoints } from '../report/numberFormat.js';
import { DEFAULT_GRACE_S } from '../testbed/experiment/measureTestbed.js';
import {
  TESTBED_TRANSPORTS,
  type TestbedTransport,
  testbedNetwork,
} from '../testbed/network/testbedNetwork.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { EXIT_INTERRUPTED } from './exitCodes.js';
import { integerIn, nonNegativeNumber, positiveNumber } from './input.js';
import { interruptible } from './interruptible.js';
import { checkOutputDirectory, makeOutputDirectory, writeOutputFiles } from './outputPath.js';
import { progressOnStderr } from './progress.js';
import { fixed, formatTable } from './table.js';
import {
  BACKOFF_BASE_HELP,
  backoffFlag,
  type TestbedBackoffFlags,
  testbedBackoff,
} from './testbedBackoff.js';
import { grpcCapWarning, warnOnStderr } from './testbedRunCommand.js';
import { UsageError } from './UsageError.js';

/** Defaults of `difftry testbed fig5`. */
export const TESTBED_FIG5_DEFAULTS = Object.freeze({
  scale: 0.5,
  seed: 5,
  /** A new folder in the working directory named for the run's start (UTC). */
  out: 'testbed-fig5-YYYYMMDD-HHMMSS',
  backoffMs: (TESTBED_BACKOFF as { meanMs: number }).meanMs,
});

/** Options of `difftry testbed fig5`. */
export interface TestbedFig5Options extends TestbedBackoffFlags {
  readonly quick?: boolean;
  readonly json?: boolean;
  readonly out?: string;
  readonly scale?: number;
  readonly seed?: number;
  readonly warmup?: number;
  readonly duration?: number;
  /** Longest drain after each window, seconds (`--grace`). */
  readonly grace?: number;
  readonly sidecar?: boolean;
  readonly loadThread?: boolean;
  /** Runs a point may take when a run is not a valid measurement. */
  readonly runs?: number;
  /** How services talk (`--transport`): `http` (default) or `grpc-xds`. */
  readonly transport?: TestbedTransport;
  /**
   * `--limits 4/1,4/4`: the (k_high, k_low) configurations compared, DiffTry's first, the uniform
   * baseline last; default 5/1,5/5, and 4/1,4/4 over grpc-xds (gRPC caps a call at 5 attempts).
   */
  readonly limits?: string;
  /** Where a warning line goes (before the sweep); default stderr, prefixed `difftry: `. */
  readonly warn?: (line: string) => void;
}

/**
 * Parses `--limits 4/1,4/4` into the sweep's configurations (see `figure5LimitPairs`).
 * @throws UsageError on anything but comma-separated `H/L` pairs, the last uniform.
 */
export function parseFig5Limits(text: string, high: string, low: string): Fig5Limit[] {
  const pairs = text.split(',').map((part): [number, number] => {
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(part);
    if (match === null) {
      throw new UsageError(
        `--limits: expected K_HIGH/K_LOW pairs separated by commas (e.g. 4/1,4/4), got "${part}"`,
      );
    }
    return [Number(match[1]), Number(match[2])];
  });
  try {
    return figure5LimitPairs(pairs, high, low);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new UsageError(`--limits: ${error.message}`, { cause: error });
    }
    throw error;
  }
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
  const transport = options.transport ?? 'http';
  if (!TESTBED_TRANSPORTS.includes(transport)) {
    throw new UsageError(
      `--transport: expected ${TESTBED_TRANSPORTS.join(' or ')}, got "${String(transport)}"`,
    );
  }
  const network = load('hotel-calls');
  const high = network.classes[0]?.name ?? 'high';
  const low = network.classes[network.classes.length - 1]?.name ?? 'low';
  const limits = parseFig5Limits(
    options.limits ?? (transport === 'grpc-xds' ? '4/1,4/4' : '5/1,5/5'),
    high,
    low,
  );
  if (transport === 'grpc-xds') {
    // The sweep's limits as each point's network runs them.
    const warning = grpcCapWarning(
      limits.map((limit) => ({
        network: testbedNetwork(network, { retries: limit.retries }),
        label: limit.label,
      })),
    );
    if (warning !== undefined) (options.warn ?? warnOnStderr)(warning);
  }
  const backoff = testbedBackoff(options);
  const progress = progressOnStderr('fig5', { delayMs: 0 });
  let result: Awaited<ReturnType<typeof runFig5>>;
  try {
    result = await runFig5({
      network,
      routing: load('hotel'),
      gammaLows: preset.gammaLows,
      limits,
      warmupS: options.warmup ?? preset.warmupS,
      durationS: options.duration ?? preset.durationS,
      ...(options.grace !== undefined && { graceS: options.grace }),
      scale: options.scale ?? TESTBED_FIG5_DEFAULTS.scale,
      seed: options.seed ?? TESTBED_FIG5_DEFAULTS.seed,
      backoff,
      sidecars: options.sidecar ?? true,
      transport,
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
  // The page links the testbed guide, docs/testbed.md, relative to where it is written.
  const guide = relative(out, 'docs/testbed.md').split(sep).join('/');
  const command = fig5CommandLine(options);
  await makeOutputDirectory(out, '--out');
  await writeOutputFiles(
    [
      { path: join(out, files.csv), text: fig5Csv(result) },
      { path: join(out, files.svg), text: fig5Svg(result) },
      { path: join(out, files.md), text: fig5Markdown(result, { ...files, command, guide }) },
    ],
    '--out',
  );
  const written = `wrote ${Object.values(files)
    .map((f) => join(out, f))
    .join(', ')} in ${fixed(result.seconds / 60, 1)} min`;
  if (options.json) return { stdout: fig5Json(result), stderr: written };
  return { stdout: formatFig5(result), stderr: written };
}

/**
 * The command line a report names as its maker: `difftry testbed fig5` and every flag that
 * changes what is measured (not `--out`, `--json` or the progress), so the page can be re-made.
 */
export function fig5CommandLine(options: Readonly<TestbedFig5Options>): string {
  const flags: [string, unknown][] = [
    ['--transport', options.transport === 'http' ? undefined : options.transport],
    ['--limits', options.limits],
    ['--scale', options.scale],
    ['--warmup', options.warmup],
    ['--duration', options.duration],
    ['--grace', options.grace],
    ['--seed', options.seed],
    ['--runs', options.runs],
  ];
  return [
    'difftry testbed fig5',
    ...(options.quick ? ['--quick'] : []),
    ...flags.filter(([, value]) => value !== undefined).map(([flag, value]) => `${flag} ${value}`),
    backoffFlag(options),
    options.sidecar === false ? '--no-sidecar' : undefined,
    options.loadThread === false ? '--no-load-thread' : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
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
  const pct = (x: number) => percentPoints(x);
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
  if (summary.latency.length > 0) {
    const ms = (x: number) => fixed(1000 * x, 0);
    lines.push(
      `latency at γ_low = ${summary.latency[0]?.gammaLow} (p50 / p99 ms, paper's median): ` +
        summary.latency
          .map(
            (l) =>
              `${l.role === 'diffTry' ? 'DiffTry' : 'uniform'} ${l.className} ${ms(l.p50)} / ${ms(l.p99)}` +
              (Number.isFinite(l.paperMedian) ? ` (≈ ${ms(l.paperMedian)})` : ''),
          )
          .join(', '),
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

/** Registers `difftry testbed fig5` on the `testbed` command: its flags and the interruptible call. */
export function registerTestbedFig5Command(program: Command, emit: Emit): void {
  program
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
    .option('--backoff-base-ms <ms>', BACKOFF_BASE_HELP, positiveNumber('--backoff-base-ms'))
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
    .addOption(
      new Option(
        '--transport <kind>',
        'http (default): node:http services; grpc-xds: gRPC services over xds:/// channels, gRPC retrying from the routes of a difftry xDS control plane',
      ).choices(TESTBED_TRANSPORTS),
    )
    .option(
      '--limits <pairs>',
      'the (k_high, k_low) configurations compared, DiffTry first, uniform last (default 5/1,5/5; 4/1,4/4 over grpc-xds, whose calls make at most 5 attempts)',
    )
    .action(async (opts: TestbedFig5Options) => {
      emit(await interruptible((signal) => testbedFig5Command(opts, signal)));
    });
}
