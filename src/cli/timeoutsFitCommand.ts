import { type Command, Option } from 'commander';
import { parseLatencySamples } from '../config/parseLatencySamples.js';
import { readInputFile } from '../config/readInputFile.js';
import { empiricalLatency } from '../model/timeouts/empiricalLatency.js';
import { linearCost } from '../model/timeouts/linearCost.js';
import { optimizeTimeouts } from '../model/timeouts/optimizeTimeouts.js';
import { significant } from '../report/numberFormat.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { integerIn, nonNegativeNumber, positiveNumber } from './input.js';
import { formatTable } from './table.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry timeouts fit`, as commander hands them over. */
export interface TimeoutsFitOptions {
  /** A file of latencies in seconds, one a line, with an optional header line. */
  readonly file: string;
  /** Timeouts in the sequence, t_z included (default 4). */
  readonly depth?: number;
  /** The ceiling t_z (s); default the model's rule (`ceilingTimeout`). */
  readonly tz?: number;
  /** c1 of the attempt cost g(t) = c1·t (default 0). */
  readonly cost?: number;
  readonly json?: boolean;
}

/** Defaults of `difftry timeouts fit`. */
export const TIMEOUTS_FIT_DEFAULTS = { depth: 4, cost: 0 } as const;

/**
 * `difftry timeouts fit FILE`: estimates the latency law of the file's samples
 * (`empiricalLatency`) and prints the Optimizer's sequence of `depth` timeouts ending at t_z, its
 * expected latency E_0, and the best single repeated timeout with its E, all in seconds.
 * @throws {UsageError} when the file cannot be read; `SpecError` when a line is not a
 *   positive number (`parseLatencySamples`).
 */
export async function timeoutsFitCommand(options: TimeoutsFitOptions): Promise<CommandOutput> {
  let text: string;
  try {
    text = await readInputFile(options.file);
  } catch (error) {
    throw new UsageError(`${options.file}: cannot read the file: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const samples = parseLatencySamples(text, options.file);
  const c1 = options.cost ?? TIMEOUTS_FIT_DEFAULTS.cost;
  const depth = options.depth ?? TIMEOUTS_FIT_DEFAULTS.depth;
  const law = empiricalLatency(samples);
  const result = optimizeTimeouts(law, { depth, tz: options.tz, cost: linearCost({ c1 }) });
  const advice = recommendation(result.E0, result.single.E);
  if (options.json) {
    const document = {
      sequence: result.sequence,
      E0: result.E0,
      single: { timeout: result.single.timeout, E: result.single.E },
      tz: result.tz,
      recommended: advice.choice,
    };
    return { stdout: JSON.stringify(document, null, 2) };
  }
  const rows = result.sequence.map((t, n) => [
    String(n + 1),
    significant(t),
    significant(result.E[n] as number),
  ]);
  const shorter =
    result.sequence.length < depth
      ? `\n(${result.sequence.length} of ${depth} timeouts: no earlier timeout lowers E_0)`
      : '';
  const lines = [
    `${options.file}: ${samples.length} latencies from ${significant(law.minObserved)} s to ${significant(law.maxObserved)} s; g(t) = ${c1}·t`,
    '',
    `Optimal sequence (depth ${depth}, t_z = ${significant(result.tz)} s${options.tz === undefined ? ', the default ceiling' : ''}):`,
    formatTable(
      [{ heading: 'attempt' }, { heading: 'timeout (s)' }, { heading: 'E_n (s)' }],
      rows,
    ) + shorter,
    '',
    `E_0 = ${significant(result.E0)} s`,
    `Best single repeated timeout: ${significant(result.single.timeout)} s, E = ${significant(result.single.E)} s`,
    '',
    ...adviceLines(advice, result.tz, result.single.timeout),
  ];
  return { stdout: lines.join('\n') };
}

/**
 * The sequence costs more than the single timeout on the sample by at most this share and is
 * still recommended: its ceiling t_z is worth that much (a request slower than every sample
 * still completes on its last attempt).
 */
export const CEILING_PRICE = 0.05;

/** Which of the two `timeouts fit` recommends, and by how much E differs. */
export interface FitRecommendation {
  readonly choice: 'sequence' | 'single';
  /** (E_0 − E_single) / E_single: what the sequence costs more on the sample (≤ 0: nothing). */
  readonly extra: number;
}

/**
 * The sequence when it costs at most {@link CEILING_PRICE} more than the best single timeout on
 * the sample (or less), else the single timeout.
 * @example
 * ```ts
 * recommendation(0.1818, 0.1801); // { choice: 'sequence', extra: 0.0094… }
 * ```
 */
export function recommendation(e0: number, single: number): FitRecommendation {
  const extra = (e0 - single) / single;
  return { choice: extra <= CEILING_PRICE ? 'sequence' : 'single', extra };
}

function adviceLines(advice: FitRecommendation, tz: number, single: number): string[] {
  const percent = `${Number((100 * advice.extra).toPrecision(2))} %`;
  if (advice.extra <= 0) {
    return [
      'Recommended: the sequence, as good as the single timeout here or better, and with a ceiling.',
    ];
  }
  // A sample whose best single timeout expects no time at all (subnormal latencies) has no ratio.
  const costs = Number.isFinite(advice.extra)
    ? `costs ${percent} more than the single timeout`
    : `costs more than the single timeout (which expects ${significant(single)} s: no ratio)`;
  const why = [
    `The sequence ${costs} on this sample: the price of its ceiling`,
    `t_z = ${significant(tz)} s. A sample that is stationary rewards repeating ${significant(single)} s without end; the`,
    'ceiling buys robustness to what the sample does not hold: a request slower than every sample (a',
    'spike) still completes on the last attempt, where the repeated timeout would cut it again and again.',
  ];
  return advice.choice === 'sequence'
    ? [
        ...why,
        `Recommended: the sequence (it costs under ${100 * CEILING_PRICE} % more here, and it holds when latency jumps).`,
      ]
    : [
        ...why,
        `Recommended: the single timeout ${significant(single)} s (the ceiling costs over ${100 * CEILING_PRICE} % here); to keep a ceiling,`,
        'try a larger --depth or a lower --tz.',
      ];
}

/** Registers `difftry timeouts fit` on the CLI: its flags, parsed and checked, and the call. */
export function registerTimeoutsFitCommand(program: Command, emit: Emit): void {
  program
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
}
