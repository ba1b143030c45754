import { type Command, Option } from 'commander';
import { DEFAULT_GRACE_S } from '../testbed/experiment/measureTestbed.js';
import type { CommandOutput } from './CommandOutput.js';
import { integerIn, nonNegativeNumber, parseRetries, positiveNumber } from './input.js';
import {
  TESTBED_FIG5_DEFAULTS,
  type TestbedFig5Options,
  testbedFig5Command,
} from './testbedFig5Command.js';
import {
  TESTBED_RUN_DEFAULTS,
  type TestbedRunOptions,
  testbedRunCommand,
} from './testbedRunCommand.js';

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
