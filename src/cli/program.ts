import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { isSpecError } from '../spec/SpecError.js';
import { analyzeCommand } from './analyzeCommand.js';
import type { CommandOutput } from './CommandOutput.js';
import { DEMO_DEFAULTS, demoCommand } from './demoCommand.js';
import { EXIT_BAD_INPUT, EXIT_INTERNAL } from './exitCodes.js';
import { GENERATE_DEFAULTS, generateCommand } from './generateCommand.js';
import { integerIn, nonNegativeNumber, parseModel, parseRetries, positiveNumber } from './input.js';
import { registerMeshCommand } from './meshCommand.js';
import { registerProxyCommand } from './proxyCommand.js';
import { parseStrategy, SIMULATE_DEFAULTS, simulateCommand } from './simulateCommand.js';
import {
  parseTimeoutMs,
  parseTimeoutStrategy,
  SIMULATE_TIMEOUT_STRATEGIES,
} from './simulationConfig.js';
import { registerTestbedCommands } from './testbedCommand.js';
import { TIMEOUTS_EVAL_DEFAULTS, timeoutsEvalCommand } from './timeoutsEvalCommand.js';
import { TIMEOUTS_FIT_DEFAULTS, timeoutsFitCommand } from './timeoutsFitCommand.js';
import { collect, parseObjective, TUNE_DEFAULTS, tuneCommand } from './tuneCommand.js';
import { isUsageError } from './UsageError.js';
import {
  VERIFY_UNIQUENESS_DEFAULTS as UNIQ,
  VERIFY_UNIQUENESS_LIMITS as UNIQ_LIMITS,
  verifyUniquenessCommand,
} from './verifyUniquenessCommand.js';

/** Exit code for bad input of every kind: a bad file, option or argument. */
export { EXIT_BAD_INPUT } from './exitCodes.js';

/** The package's version, from the package.json beside `src/` and `dist/`. */
function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

function program(): Command {
  const cli = new Command('difftry')
    .description('Differential retries (DiffTry): analyse and simulate priority-aware retries')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError(false)
    .exitOverride();
  cli.configureOutput({
    writeErr: (text) => process.stderr.write(text),
    outputError: (text, write) => write(`difftry: ${text.replace(/^error: /, '').trim()}\n`),
  });

  cli
    .command('analyze')
    .description('predict per-class, per-service and end-to-end rejection for a network file')
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--json', 'print one JSON document on stdout')
    .option('--model <model>', 'φ at every service: fluid, mm1m or mixed', parseModel)
    .option(
      '--retries <limits>',
      'retry limits per class at every hop, e.g. high=5,low=1',
      parseRetries,
    )
    .addOption(
      new Option(
        '--timeout <ms>',
        "a per-try timeout at every hop, every class (replaces the classes' timeoutMs): an " +
          'accepted attempt not back in time is abandoned by its caller while the service still does its work',
      ).argParser(positiveNumber('--timeout')),
    )
    .option('--sweep <spec>', "vary one arrival rate or capacity, e.g. 'frontend.low=50:250:25'")
    .option('--csv <file>', 'with --sweep: also write the rows as CSV to this file')
    .action(async (file: string | undefined, opts) => {
      emit(await analyzeCommand({ file, ...opts }));
    });

  cli
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
      'retry limits per class at every hop, e.g. high=5,low=1',
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
        '  difftry simulate examples/metastable.yaml --schedule examples/capacity-drop.yaml \\\n' +
        '    --timeout 100 --window 10 --duration 300 --warmup 0 --replications 1 --csv windows.csv',
    )
    .action(async (file: string | undefined, opts) => {
      emit(await simulateCommand({ file, ...opts }));
    });

  cli
    .command('demo')
    .description(
      'the quick start: analysis beside simulation, DiffTry (5, 1) against uniform (5, 5)',
    )
    .option('--json', 'print one JSON document on stdout')
    .addOption(
      new Option('--duration <seconds>', 'measured window per replication')
        .argParser(positiveNumber('--duration'))
        .default(DEMO_DEFAULTS.duration),
    )
    .addOption(
      new Option('--seed <n>', 'random seed')
        .argParser(integerIn('--seed', 0, 2 ** 31 - 1))
        .default(DEMO_DEFAULTS.seed),
    )
    .addOption(
      new Option('--replications <r>', 'independent replications')
        .argParser(integerIn('--replications', 2, 10_000))
        .default(DEMO_DEFAULTS.replications),
    )
    .action(async (opts) => {
      write(await demoCommand(opts));
    });
  cli
    .command('generate')
    .description('write a seeded network file: mubench, dgg (2 to 7 services) or cyclic')
    .argument('<kind>', 'mubench, dgg or cyclic')
    .addOption(
      new Option('--services <n>', 'number of services (default 20; 5 for dgg)').argParser(
        integerIn('--services', 1, 10_000),
      ),
    )
    .addOption(
      new Option('--classes <p>', 'priority classes')
        .argParser(integerIn('--classes', 1, 20))
        .default(GENERATE_DEFAULTS.classes),
    )
    .addOption(
      new Option('--seed <n>', 'random seed')
        .argParser(integerIn('--seed', 0, 2 ** 31 - 1))
        .default(GENERATE_DEFAULTS.seed),
    )
    .option('--form <form>', 'routes or calls (default routes; cyclic: routes only)')
    .option('--output <file>', 'write the network to this file instead of stdout')
    .option('--json', 'write JSON instead of YAML')
    .action(async (kind: string, opts) => {
      const text = await generateCommand({ kind, ...opts });
      if (text !== undefined) write(text);
    });
  cli
    .command('tune')
    .description('choose per-class retry limits that maximise goodput under constraints')
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--grid <ranges>', 'retry limits to try per class, e.g. high=0:8,low=0:3 (default 0:8)')
    .addOption(
      new Option('--objective <kind>', 'goodput or weighted-goodput (weights: class weight)')
        .argParser(parseObjective)
        .default(TUNE_DEFAULTS.objective),
    )
    .option('--weights <weights>', "class weights replacing the file's, e.g. high=10,low=1")
    .option(
      '--constraint <c>',
      "[CLASS.]METRIC<=|>=NUMBER, repeatable, e.g. 'high.rejection<=0.05' 'attemptsPerRequest<=4'; " +
        'METRIC: rejection, completion, goodput (per class or total), attemptsPerRequest, ' +
        "attemptsPerSuccess, internalPerRequest, maxRho, storms; or 'monostable' (no retry-storm " +
        'state at the load: storms<=0)',
      collect,
      [],
    )
    .addOption(
      new Option('--frontier <n>', 'frontier rows to print (--json has them all)')
        .argParser(integerIn('--frontier', 0, 100_000))
        .default(TUNE_DEFAULTS.frontier),
    )
    .addOption(
      new Option('--digits <n>', 'significant digits at which objectives and attempts are compared')
        .argParser(integerIn('--digits', 1, 15))
        .default(TUNE_DEFAULTS.digits),
    )
    .option('--json', 'print one JSON document on stdout')
    .option('--model <model>', 'φ at every service: fluid, mm1m or mixed', parseModel)
    .addOption(
      new Option(
        '--timeout <ms>',
        "a per-try timeout at every hop, every class (replaces the classes' timeoutMs)",
      ).argParser(positiveNumber('--timeout')),
    )
    .action(async (file: string | undefined, opts) => {
      emit(await tuneCommand({ file, ...opts }));
    });
  cli
    .command('verify-uniqueness')
    .description(
      'check numerically that random cyclic routing networks (or call graphs) have one fixed point',
    )
    .addOption(
      new Option('--graphs <n>', 'random graphs (cyclic routing: 3 to 30 services; calls: 2 to 30)')
        .argParser(integerIn('--graphs', ...UNIQ_LIMITS.graphs))
        .default(UNIQ.graphs),
    )
    .addOption(
      new Option('--configs <m>', 'random configurations per graph')
        .argParser(integerIn('--configs', ...UNIQ_LIMITS.configs))
        .default(UNIQ.configs),
    )
    .addOption(
      new Option('--inits <k>', 'initial points (solves) per configuration')
        .argParser(integerIn('--inits', ...UNIQ_LIMITS.inits))
        .default(UNIQ.inits),
    )
    .addOption(
      new Option('--seed <n>', 'random seed')
        .argParser(integerIn('--seed', ...UNIQ_LIMITS.seed))
        .default(UNIQ.seed),
    )
    .addOption(
      new Option('--classes-max <p>', 'most priority classes of a configuration')
        .argParser(integerIn('--classes-max', ...UNIQ_LIMITS.classesMax))
        .default(UNIQ.classesMax),
    )
    .addOption(
      new Option(
        '--threads <t>',
        'threads, this one included (default: every core; 1: no worker)',
      ).argParser(integerIn('--threads', ...UNIQ_LIMITS.threads)),
    )
    .option(
      '--form <form>',
      'routes (cyclic routing networks) or calls (call graphs with nested retries)',
      UNIQ.form,
    )
    .option('--out <dir>', 'where to write counterexamples (default: the current directory)')
    .option('--json', 'print one JSON document on stdout')
    .action(async (opts) => {
      emit(await verifyUniquenessCommand(opts));
    });
  const timeouts = cli.command('timeouts');
  timeouts.description('adaptive sequential timeouts');
  timeouts
    .command('eval')
    .description(
      'the eight-scenario Time Fraction table of the timeout strategies (virtual or live)',
    )
    .option('--scenario <name>', 'a scenario or all (default all)')
    .option('--strategies <list>', `comma-separated (default ${TIMEOUTS_EVAL_DEFAULTS.strategies})`)
    .option('--live', 'App1 → App2 over real HTTP on loopback instead of virtual time')
    .addOption(
      new Option(
        '--time-scale <x>',
        `with --live: latency multiplier (default ${TIMEOUTS_EVAL_DEFAULTS.timeScale})`,
      ).argParser(positiveNumber('--time-scale')),
    )
    .addOption(
      new Option('--requests <n>', 'requests per scenario, the first 10 % initialising')
        .argParser(integerIn('--requests', 20, 1_000_000))
        .default(TIMEOUTS_EVAL_DEFAULTS.requests),
    )
    .addOption(
      new Option('--seed <n>', 'random seed')
        .argParser(integerIn('--seed', 0, 2 ** 31 - 1))
        .default(TIMEOUTS_EVAL_DEFAULTS.seed),
    )
    .option('--json', 'print one JSON document on stdout')
    .action(async (opts) => {
      emit(await timeoutsEvalCommand(opts));
    });
  timeouts
    .command('fit')
    .description('the optimal timeout sequence and best single timeout for a latency sample file')
    .argument('<file>', 'latencies in seconds, one a line (a header line allowed)')
    .addOption(
      new Option('--depth <n>', 'timeouts in the sequence, t_z included')
        .argParser(integerIn('--depth', 1, 16))
        .default(TIMEOUTS_FIT_DEFAULTS.depth),
    )
    .addOption(
      new Option(
        '--tz <seconds>',
        'the ceiling t_z (default 1.5 × p99, at most 2 × max)',
      ).argParser(positiveNumber('--tz')),
    )
    .addOption(
      new Option('--cost <c1>', 'attempt cost g(t) = c1·t')
        .argParser(nonNegativeNumber('--cost'))
        .default(TIMEOUTS_FIT_DEFAULTS.cost),
    )
    .option('--json', 'print one JSON document on stdout')
    .action(async (file: string, opts) => {
      emit(await timeoutsFitCommand({ file, ...opts }));
    });
  registerProxyCommand(cli);
  registerMeshCommand(cli);
  registerTestbedCommands(cli, emit);
  return cli;
}

/** Prints a command's output; a non-zero exit code is kept for `main` to return. */
function emit(output: CommandOutput): void {
  write(output.stdout);
  if (output.stderr !== undefined) process.stderr.write(`difftry: ${output.stderr}\n`);
  if (output.exitCode !== undefined && output.exitCode !== 0) pendingExitCode = output.exitCode;
}

let pendingExitCode = 0;

function write(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Runs the CLI with `argv` (without the node and script paths) and returns the exit code (see
 * `exitCodes.ts`): 0 on success, 1 for a negative answer, 2 on bad input (one line on stderr,
 * nothing on stdout), 70 on an internal error.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    pendingExitCode = 0;
    await program().parseAsync([...argv], { from: 'user' });
    return pendingExitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    }
    if (isSpecError(error) || isUsageError(error) || error instanceof RangeError) {
      process.stderr.write(`difftry: ${error.message}\n`);
      return EXIT_BAD_INPUT;
    }
    process.stderr.write(
      `difftry: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_INTERNAL;
  }
}
