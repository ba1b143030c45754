import { type Command, Option } from 'commander';
import { builtinExample } from '../config/examples.js';
import { loadNetworkFile } from '../config/loadNetworkFile.js';
import { parseNetwork } from '../config/parseNetwork.js';
import type { NetworkSpec } from '../config/schema.js';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { describeBackoff } from '../model/backoff/describeBackoff.js';
import { percent } from '../report/numberFormat.js';
import {
  DEFAULT_GRACE_S,
  measureTestbed,
  type TestbedMeasurement,
} from '../testbed/experiment/measureTestbed.js';
import { predictTestbed, type TestbedPrediction } from '../testbed/experiment/predictTestbed.js';
import { TESTBED_BACKOFF, TESTBED_RUN_SETTINGS } from '../testbed/experiment/runValidity.js';
import {
  TESTBED_TRANSPORTS,
  type TestbedTransport,
  testbedGrpcCappedClasses,
  testbedNetwork,
} from '../testbed/network/testbedNetwork.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { EXIT_INTERRUPTED } from './exitCodes.js';
import {
  integerIn,
  loadNetwork,
  nonNegativeNumber,
  parseRetries,
  positiveNumber,
} from './input.js';
import { interruptible } from './interruptible.js';
import { makeOutputDirectory } from './outputPath.js';
import { progressOnStderr } from './progress.js';
import { fixed, formatTable } from './table.js';
import { BACKOFF_BASE_HELP, type TestbedBackoffFlags, testbedBackoff } from './testbedBackoff.js';
import { UsageError } from './UsageError.js';

/** Defaults of `difftry testbed run`. */
export const TESTBED_RUN_DEFAULTS = Object.freeze({
  example: 'hotel-calls',
  scale: TESTBED_RUN_SETTINGS.scale,
  warmup: TESTBED_RUN_SETTINGS.warmupS,
  duration: TESTBED_RUN_SETTINGS.durationS,
  backoffMs: (TESTBED_BACKOFF as { meanMs: number }).meanMs,
  seed: TESTBED_RUN_SETTINGS.seed,
});

/** The built-in call-graph examples and their routing twins. */
const ROUTING_TWINS: Readonly<Record<string, string>> = Object.freeze({ 'hotel-calls': 'hotel' });

/** Options of `difftry testbed run`. */
export interface TestbedRunOptions extends TestbedBackoffFlags {
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
  readonly seed?: number;
  /** false: in-process retries instead of sidecars (`--no-sidecar`). */
  readonly sidecar?: boolean;
  /** false: the load generator on the services' thread (`--no-load-thread`). */
  readonly loadThread?: boolean;
  /** How services talk (`--transport`): `http` (default) or `grpc-xds`. */
  readonly transport?: TestbedTransport;
  readonly json?: boolean;
  /** Trace every request into this folder (`--traces DIR`, created if missing). */
  readonly traces?: string;
  /** Where a warning line goes (before the run); default stderr, prefixed `difftry: `. */
  readonly warn?: (line: string) => void;
}

/** Writes a warning line on stderr, as the CLI writes its other lines. */
export const warnOnStderr = (line: string): void => {
  process.stderr.write(`difftry: ${line}\n`);
};

/**
 * The one-line warning of a gRPC run whose limits gRPC cuts (k above 4 at some hop: gRPC makes
 * at most 5 attempts a call), or undefined when none is cut. Each network is one as it runs
 * (`label`: which of a sweep's configurations it is).
 */
export function grpcCapWarning(
  runs: readonly { readonly network: NetworkSpec; readonly label?: string }[],
): string | undefined {
  const parts = runs.flatMap(({ network, label }) => {
    const capped = testbedGrpcCappedClasses(network);
    if (capped.length === 0) return [];
    const classes = capped.map((c) => `${c.className} (k = ${c.retries})`).join(', ');
    return [label === undefined ? classes : `${classes} in ${label}`];
  });
  if (parts.length === 0) return undefined;
  return (
    `grpc-xds: gRPC makes at most 5 attempts a call, so k above 4 acts as 4 for ${parts.join('; ')}; ` +
    'the prediction still uses the k given'
  );
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
  const backoff: BackoffDescription = testbedBackoff(options);
  const warmupS = options.warmup ?? TESTBED_RUN_DEFAULTS.warmup;
  const durationS = options.duration ?? TESTBED_RUN_DEFAULTS.duration;
  const transport = options.transport ?? 'http';
  if (!TESTBED_TRANSPORTS.includes(transport)) {
    throw new UsageError(
      `--transport: expected ${TESTBED_TRANSPORTS.join(' or ')}, got "${String(transport)}"`,
    );
  }
  if (transport === 'grpc-xds') {
    let running: NetworkSpec;
    try {
      running = testbedNetwork(network, {
        ...(options.retries !== undefined && { retries: options.retries }),
      });
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
    const warning = grpcCapWarning([{ network: running }]);
    if (warning !== undefined) (options.warn ?? warnOnStderr)(warning);
  }
  if (options.traces !== undefined) await makeOutputDirectory(options.traces, '--traces');
  const progress = progressOnStderr('testbed');
  let measurement: TestbedMeasurement;
  try {
    measurement = await measureTestbed(network, {
      scale: options.scale ?? TESTBED_RUN_DEFAULTS.scale,
      ...(options.retries !== undefined && { retries: options.retries }),
      backoff,
      seed: options.seed ?? TESTBED_RUN_DEFAULTS.seed,
      sidecars: options.sidecar ?? true,
      transport,
      edgeThread: options.loadThread ?? true,
      warmupS,
      durationS,
      ...(options.grace !== undefined && { graceS: options.grace }),
      ...(options.traces !== undefined && { traces: options.traces }),
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
            transport,
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
  return { stdout: formatRun(measurement, prediction, backoff, transport) };
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

/** How the services of a run called each other, for its report's first line. */
function deploymentOf(m: TestbedMeasurement, transport: TestbedTransport): string {
  if (transport === 'grpc-xds') {
    return 'gRPC services calling over xds:/// channels, every retry made by gRPC from the xDS routes';
  }
  return m.sidecars
    ? 'each calling through its DiffTry sidecar'
    : 'in-process retries (no sidecars)';
}

/** The human-readable report of one run (`transport`: how it ran; default `http`). */
export function formatRun(
  m: TestbedMeasurement,
  p: TestbedPrediction,
  backoff: BackoffDescription,
  transport: TestbedTransport = 'http',
): string {
  const lines: string[] = [
    `testbed: ${m.network.name ?? 'network'}, ${m.services.length} services on 127.0.0.1, ` +
      `${deploymentOf(m, transport)}; ` +
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
        `${percent(c.rejection)} ± ${percent(c.rejectionCi95)}`,
        `${percent(c.answeredInWindow.rejection)} of ${c.answeredInWindow.finished}`,
        percent(p.calls.endToEnd[c.name]?.rejection ?? Number.NaN),
        percent(p.routing?.endToEnd[c.name]?.rejection ?? Number.NaN),
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

/** Registers `difftry testbed run` on the `testbed` command: its flags and the interruptible call. */
export function registerTestbedRunCommand(program: Command, emit: Emit): void {
  program
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
      "retry limits per class at every hop, e.g. high=5,low=1 ('*=2' for every class; istio-default: Istio's default, 2 for all)",
      parseRetries,
    )
    .option(
      '--backoff-ms <ms>',
      `mean of the random retry delay (default ${TESTBED_RUN_DEFAULTS.backoffMs})`,
      positiveNumber('--backoff-ms'),
    )
    .option('--backoff-base-ms <ms>', BACKOFF_BASE_HELP, positiveNumber('--backoff-base-ms'))
    .option(
      '--seed <n>',
      `seed (default ${TESTBED_RUN_DEFAULTS.seed})`,
      integerIn('--seed', 0, 2 ** 31),
    )
    .addOption(new Option('--no-sidecar', 'retry in-process (runtime retry()) instead of sidecars'))
    .addOption(
      new Option(
        '--transport <kind>',
        'http (default): node:http services; grpc-xds: gRPC services over xds:/// channels, gRPC retrying from the routes of a difftry xDS control plane',
      ).choices(TESTBED_TRANSPORTS),
    )
    .addOption(new Option('--no-load-thread', 'run the load generator on the services’ thread'))
    .option(
      '--traces <dir>',
      'trace every request into DIR (OTLP/JSON lines, for difftry from-traces; HTTP only)',
    )
    .option('--json', 'print one JSON document on stdout')
    .action(async (file: string | undefined, opts: TestbedRunOptions) => {
      emit(await interruptible((signal) => testbedRunCommand({ file, ...opts }, signal)));
    });
}
