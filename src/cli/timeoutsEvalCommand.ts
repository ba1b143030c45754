import { type Command, Option } from 'commander';
import { assessTarget, type TargetAssessment } from '../experiments/timeouts/assessTarget.js';
import { DEFAULT_MAX_ATTEMPTS } from '../experiments/timeouts/attemptPlan.js';
import {
  createEvalStrategy,
  TIMEOUT_EVAL_RUN_DEFAULTS,
  TIMEOUT_EVAL_STRATEGIES,
  type TimeoutEvalStrategy,
} from '../experiments/timeouts/evalStrategies.js';
import {
  evaluateTimeoutSuite,
  type StrategyEvaluation,
} from '../experiments/timeouts/evaluateSuite.js';
import { HEAVY_TAILED_NOISE_DEFAULTS } from '../experiments/timeouts/latencyNoise.js';
import {
  evaluateTimeoutSuiteLive,
  type LiveStrategyEvaluation,
} from '../experiments/timeouts/live/evaluateLiveSuite.js';
import {
  COMBINED_TARGET_TIME_FRACTION,
  PAPER_TIME_FRACTIONS,
} from '../experiments/timeouts/paperFigures.js';
import {
  isTimeoutScenarioName,
  TIMEOUT_SCENARIO_LABELS,
  TIMEOUT_SCENARIO_NAMES,
  type TimeoutScenarioName,
} from '../experiments/timeouts/scenarios.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { integerIn, positiveNumber } from './input.js';
import { progressOnStderr } from './progress.js';
import { fixed, formatTable } from './table.js';
import { UsageError } from './UsageError.js';

// The strategies and the run's defaults are the experiment's, shared with
// scripts/timeouts-table.ts; re-exported for the CLI's callers.
export { createEvalStrategy, TIMEOUT_EVAL_STRATEGIES, type TimeoutEvalStrategy };

/** Defaults of `difftry timeouts eval`. */
export const TIMEOUTS_EVAL_DEFAULTS = {
  scenario: 'all',
  strategies: TIMEOUT_EVAL_STRATEGIES.join(','),
  ...TIMEOUT_EVAL_RUN_DEFAULTS,
} as const;

/** Options of `difftry timeouts eval`. */
export interface TimeoutsEvalOptions {
  /** A scenario name or `all` (default). */
  readonly scenario?: string;
  /** Comma-separated strategies (default all five). */
  readonly strategies?: string;
  /** Run App1 → App2 over real HTTP on loopback instead of in virtual time. */
  readonly live?: boolean;
  /** Live: real time = scenario time × timeScale (default 0.1). */
  readonly timeScale?: number;
  readonly json?: boolean;
  readonly seed?: number;
  /** Requests per scenario, the first 10 % initialising (default 2 000, 200 of them). */
  readonly requests?: number;
}

/**
 * Parses `--scenario NAME|all` (a list with commas). Names are taken in any case and with spaces
 * or underscores for dashes, so the labels the tables print (`Spikes`, `Random walk`) work too.
 */
export function parseScenarios(text: string): TimeoutScenarioName[] {
  if (text.trim().toLowerCase() === 'all') return [...TIMEOUT_SCENARIO_NAMES];
  const given = text.split(',').map((name) => name.trim());
  const names = given.map((name) => name.toLowerCase().replace(/[\s_]+/g, '-'));
  names.forEach((name, i) => {
    if (!isTimeoutScenarioName(name)) {
      throw new UsageError(
        `--scenario: expected all or one of ${TIMEOUT_SCENARIO_NAMES.join(', ')}, got "${given[i]}"`,
      );
    }
  });
  return names as TimeoutScenarioName[];
}

/** Parses `--strategies a,b,…` (each once). */
export function parseStrategies(text: string): TimeoutEvalStrategy[] {
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(TIMEOUT_EVAL_STRATEGIES as readonly string[]).includes(name)) {
      throw new UsageError(
        `--strategies: expected a comma-separated list of ${TIMEOUT_EVAL_STRATEGIES.join(', ')}, got "${name}"`,
      );
    }
  }
  if (new Set(names).size !== names.length) {
    throw new UsageError(`--strategies: each strategy at most once, got "${text}"`);
  }
  return names as TimeoutEvalStrategy[];
}

/**
 * `difftry timeouts eval`: runs the timeout strategies through the eight scenarios, in virtual
 * time (seconds for the whole table) or live (`--live`: App1 → App2 over loopback HTTP, latencies
 * scaled by `--time-scale`), and prints the Time Fraction table beside the paper's figures for
 * the Combined system and exponential backoff, whether the target is met, and the other metrics.
 * @example
 * ```ts
 * const { stdout } = await timeoutsEvalCommand({ scenario: 'spikes', strategies: 'combined' });
 * ```
 */
export async function timeoutsEvalCommand(
  options: Readonly<TimeoutsEvalOptions>,
): Promise<CommandOutput> {
  const scenarios = parseScenarios(options.scenario ?? TIMEOUTS_EVAL_DEFAULTS.scenario);
  const strategies = parseStrategies(options.strategies ?? TIMEOUTS_EVAL_DEFAULTS.strategies);
  const seed = options.seed ?? TIMEOUTS_EVAL_DEFAULTS.seed;
  const requests = options.requests ?? TIMEOUTS_EVAL_DEFAULTS.requests;
  const live = options.live === true;
  const timeScale = options.timeScale ?? TIMEOUTS_EVAL_DEFAULTS.timeScale;
  if (!live && options.timeScale !== undefined) {
    throw new UsageError('--time-scale: only with --live (virtual time needs no scaling)');
  }
  const progress = progressOnStderr(live ? 'timeouts eval --live' : 'timeouts eval');
  const suite = {
    seed,
    requests,
    scenarios,
    strategies,
    createStrategy: createEvalStrategy,
    onProgress: (fraction: number) => progress.update(fraction),
  };
  let rows: StrategyEvaluation[] | LiveStrategyEvaluation[];
  try {
    rows = live
      ? await evaluateTimeoutSuiteLive({ ...suite, timeScale })
      : evaluateTimeoutSuite(suite);
  } finally {
    progress.stop();
  }
  const target = assessTarget(rows);
  const initRequests = Math.floor(requests / 10);
  if (options.json) {
    return {
      stdout: JSON.stringify(
        {
          mode: live ? 'live' : 'virtual',
          ...(live && { timeScale }),
          seed,
          requests,
          initRequests,
          maxAttempts: DEFAULT_MAX_ATTEMPTS,
          noise: { kind: 'heavy-tailed', mean: 1, ...HEAVY_TAILED_NOISE_DEFAULTS },
          results: rows,
          paper: PAPER_TIME_FRACTIONS,
          target: target ?? null,
        },
        // Figures that do not exist (n/a, NaN) are null, so every row has every key.
        (_key, value) =>
          value === undefined || (typeof value === 'number' && !Number.isFinite(value))
            ? null
            : value,
        2,
      ),
    };
  }
  const heading = live
    ? `Time Fraction, live App1 → App2 on loopback at time scale ${timeScale} (seed ${seed}, ${requests} requests per scenario, the first ${initRequests} initialising)`
    : `Time Fraction, virtual time (seed ${seed}, ${requests} requests per scenario, the first ${initRequests} initialising)`;
  return {
    stdout: [
      heading,
      '1.00 = an oracle that knows the curve and waits every attempt out; lower is better.',
      '',
      formatTimeFractions(rows, scenarios, strategies),
      '',
      formatTarget(target, strategies),
      ...(live
        ? ['', formatOverhead(rows as LiveStrategyEvaluation[], scenarios, strategies, timeScale)]
        : []),
      '',
      formatDetails(rows),
    ].join('\n'),
  };
}

/** The Time Fraction table: one row per scenario, one column per strategy, then the paper's. */
export function formatTimeFractions(
  rows: readonly StrategyEvaluation[],
  scenarios: readonly TimeoutScenarioName[],
  strategies: readonly string[],
): string {
  const columns = [
    { heading: 'scenario', alignRight: false },
    ...strategies.map((heading) => ({ heading })),
    { heading: 'paper combined' },
    { heading: 'paper exp. backoff' },
  ];
  const cells = scenarios.map((scenario) => [
    TIMEOUT_SCENARIO_LABELS[scenario],
    ...strategies.map((strategy) =>
      fixed(
        rows.find((r) => r.scenario === scenario && r.strategy === strategy)?.timeFraction ??
          Number.NaN,
        3,
      ),
    ),
    String(PAPER_TIME_FRACTIONS[scenario].combined),
    String(PAPER_TIME_FRACTIONS[scenario].exponentialBackoff),
  ]);
  return formatTable(columns, cells);
}

/** One line (or a few) saying whether the target is met, and where it is missed. */
export function formatTarget(
  target: TargetAssessment | undefined,
  strategies: readonly string[],
): string {
  const goal = `combined ≤ ${COMBINED_TARGET_TIME_FRACTION} and below exponential-backoff in every scenario`;
  if (target === undefined) return `Target (${goal}): not assessed, combined did not run.`;
  const partial = strategies.includes('exponential-backoff')
    ? ''
    : ' (exponential-backoff did not run: threshold only)';
  if (target.met) {
    return `Target (${goal}): met in all ${target.scenarios} scenarios run${partial}.`;
  }
  const misses = target.misses.map((miss) => {
    const reasons = [
      ...(miss.aboveThreshold ? [`${fixed(miss.combined, 4)} > ${target.threshold}`] : []),
      ...(miss.notBelowBaseline
        ? [
            `${fixed(miss.combined, 4)} not below exponential-backoff's ${fixed(miss.exponentialBackoff ?? Number.NaN, 4)}`,
          ]
        : []),
    ];
    return `  ${TIMEOUT_SCENARIO_LABELS[miss.scenario]}: ${reasons.join('; ')}`;
  });
  return [
    `Target (${goal}): NOT met in ${target.misses.length} of ${target.scenarios} scenarios${partial}:`,
    ...misses,
  ].join('\n');
}

/**
 * What the transport added in a live run: the mean real overhead per attempt and the Time
 * Fraction it accounts for; then the Time Fraction table less that overhead (what the
 * strategies' live decisions cost by design) and its target verdict.
 */
export function formatOverhead(
  rows: readonly LiveStrategyEvaluation[],
  scenarios: readonly TimeoutScenarioName[],
  strategies: readonly string[],
  timeScale: number,
): string {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const byDesign = rows.map((r) => ({ ...r, timeFraction: r.timeFraction - r.overheadFraction }));
  return [
    `Live overhead: an attempt took ${fixed(mean(rows.map((r) => r.overheadMs)), 2)} ms (real) more than designed on average ` +
      `(App2's sleep, or the timeout): loopback HTTP, timer lateness, reconnecting after aborts, ` +
      `${rows.length} runs sharing one event loop. At time scale ${timeScale} that is ` +
      `+${fixed(mean(rows.map((r) => r.overheadFraction)), 3)} of a Time Fraction on average.`,
    '',
    'Time Fraction less that overhead (the cost of the strategies’ live decisions by design):',
    '',
    formatTimeFractions(byDesign, scenarios, strategies),
    '',
    formatTarget(assessTarget(byDesign), strategies),
  ].join('\n');
}

/** Every metric of every run. */
export function formatDetails(rows: readonly StrategyEvaluation[]): string {
  const columns = [
    { heading: 'scenario', alignRight: false },
    { heading: 'strategy', alignRight: false },
    { heading: 'time fraction' },
    { heading: 'timeouts %' },
    { heading: 'total s' },
    { heading: 'closeness' },
    { heading: 'recompute ms' },
    { heading: 'attempts' },
    { heading: 'diagnostic' },
    { heading: 'capped' },
  ];
  const cells = rows.map((r) => [
    TIMEOUT_SCENARIO_LABELS[r.scenario],
    r.strategy,
    fixed(r.timeFraction, 3),
    fixed(r.timeoutPercentage, 1),
    fixed(r.totalTimeS, 1),
    fixed(r.timeoutCloseness, 2),
    r.recomputeTimeMs === undefined ? 'n/a' : fixed(r.recomputeTimeMs, 1),
    String(r.attempts),
    String(r.diagnosticRequests),
    String(r.cappedRequests),
  ]);
  return [
    'Per run: timeouts % = timed-out attempts / attempts; total s = measured time (scenario seconds);',
    'closeness = Σ timeout / Σ latency over attempts that succeeded under a timeout (1 = exact);',
    'recompute ms = real time in Optimizer recomputes (n/a: the strategy has none);',
    'diagnostic, capped = requests whose first attempt, or 20th, waited without a timeout.',
    '',
    formatTable(columns, cells),
  ].join('\n');
}

/** Registers `difftry timeouts eval` on the CLI: its flags, parsed and checked, and the call. */
export function registerTimeoutsEvalCommand(program: Command, emit: Emit): void {
  program
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
}
