import { type Command, Option } from 'commander';
import { builtinExample } from '../config/examples.js';
import { parseNetwork } from '../config/parseNetwork.js';
import { toNetworkModel } from '../config/toNetworkModel.js';
import { analyzeNetwork } from '../model/network/analyzeNetwork.js';
import { replicateSingleService } from '../sim/replicate.js';
import type { Emit } from './CommandOutput.js';
import { integerIn, positiveNumber } from './input.js';
import { progressOnStderr } from './progress.js';
import { simulationDocument } from './simulateCommand.js';
import { toSingleServiceConfig } from './simulationConfig.js';
import { fixed, formatTable, withCi } from './table.js';

/** Options of `difftry demo`. */
export interface DemoOptions {
  readonly json?: boolean;
  readonly duration: number;
  readonly replications: number;
  readonly seed: number;
}

/** Defaults of `difftry demo`: 100 s measured, 5 replications, seed 1 (well under a second). */
export const DEMO_DEFAULTS = { duration: 100, replications: 5, seed: 1 } as const;

/** The two policies the demo compares: DiffTry (5, 1) against uniform retries (5, 5). */
const POLICIES = [
  { label: 'DiffTry (5, 1)', retries: { high: 5, low: 1 } },
  { label: 'uniform (5, 5)', retries: { high: 5, low: 5 } },
] as const;

/**
 * `difftry demo` (what `npm start` runs): the built-in single-service example analysed and
 * simulated side by side, under DiffTry retry limits and under uniform ones.
 */
export async function demoCommand(options: DemoOptions): Promise<string> {
  const { fileName, text } = builtinExample('single');
  const network = parseNetwork(text, fileName);
  const progress = progressOnStderr('demo');
  const runs = POLICIES.map((policy, i) => {
    const model = toNetworkModel(network, { retries: policy.retries });
    const analysis = analyzeNetwork(model, { law: 'auto' });
    const config = toSingleServiceConfig(network, model, options);
    const result = replicateSingleService(config, options.replications, {
      onProgress: (fraction) => progress.update((i + fraction) / POLICIES.length),
    });
    const simulation = simulationDocument(
      model,
      network.services[0]?.name ?? '',
      result,
      options.seed,
    );
    return { policy: policy.label, retries: policy.retries, analysis, simulation };
  });
  progress.stop();
  if (options.json) return JSON.stringify({ example: fileName, runs }, null, 2);

  const service = network.services[0];
  const rows: string[][] = [];
  for (const run of runs) {
    run.analysis.classes.forEach((c, p) => {
      const predicted = run.analysis.endToEnd[c.name]?.rejection ?? Number.NaN;
      const simulated = run.simulation.endToEnd[c.name] ?? {};
      const serviceReport = Object.values(run.analysis.services)[0];
      const attemptsPredicted =
        (serviceReport?.classes[c.name]?.attempts ?? Number.NaN) /
        (serviceReport?.classes[c.name]?.in ?? Number.NaN);
      rows.push([
        p === 0 ? run.policy : '',
        c.name,
        fixed(predicted),
        withCi(simulated.rejection ?? Number.NaN, simulated.rejectionCi95 ?? Number.NaN),
        fixed(Math.abs(predicted - (simulated.rejection ?? Number.NaN))),
        fixed(attemptsPredicted, 3),
        fixed(simulated.attemptsPerRequest ?? Number.NaN, 3),
        fixed((simulated.latencyP99 ?? Number.NaN) * 1000, 1),
      ]);
    });
  }
  const table = formatTable(
    [
      { heading: 'retries', alignRight: false },
      { heading: 'class', alignRight: false },
      { heading: 'predicted' },
      { heading: 'simulated' },
      { heading: '|error|' },
      { heading: 'attempts/req (model)' },
      { heading: '(sim)' },
      { heading: 'p99 ms' },
    ],
    rows,
  );
  const [difftry, uniform] = runs;
  const highOf = (run: typeof difftry) => run?.analysis.endToEnd.high?.rejection ?? Number.NaN;
  const lowOf = (run: typeof difftry) => run?.analysis.endToEnd.low?.rejection ?? Number.NaN;
  const heading =
    `One service "${service?.name}": capacity μ = ${service?.capacity} requests/s, room m = ${service?.queue}, ` +
    `arrivals high ${service?.arrivals.high} + low ${service?.arrivals.low} requests/s. ` +
    `Rejection per class: predicted by the ${Object.values(difftry?.analysis.services ?? {})[0]?.model} model, ` +
    `simulated over ${options.replications} × ${options.duration} s (± 95 % CI).`;
  const attemptsOf = (run: typeof difftry) =>
    Object.values(run?.analysis.services ?? {}).reduce(
      (sum, s) => sum + Object.values(s.classes).reduce((a, c) => a + c.attempts, 0),
      0,
    );
  const summary =
    `DiffTry cuts the high class's rejection ${fixed(highOf(uniform) / highOf(difftry), 2)}× ` +
    `(${fixed(highOf(uniform))} → ${fixed(highOf(difftry))} predicted); the low class pays ` +
    `(${fixed(lowOf(uniform))} → ${fixed(lowOf(difftry))}), and the retry storm shrinks from ` +
    `${fixed(attemptsOf(uniform), 0)} to ${fixed(attemptsOf(difftry), 0)} attempts/s.`;
  return `${heading}\n\n${table}\n\n${summary}`;
}

/** Registers `difftry demo` on the CLI: its flags, parsed and checked, and the call. */
export function registerDemoCommand(program: Command, emit: Emit): void {
  program
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
      emit({ stdout: await demoCommand(opts) });
    });
}
