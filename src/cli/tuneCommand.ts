import { type Command, Option } from 'commander';
import type { NetworkSpec } from '../config/schema.js';
import { toNetworkModel } from '../config/toNetworkModel.js';
import type { ModelName } from '../model/phi/Phi.js';
import { assessNetwork } from '../model/tune/assessNetwork.js';
import { gridSize, type RetryRange, resolveGrid } from '../model/tune/RetryGrid.js';
import {
  describeConstraint,
  needsClass,
  TUNE_METRICS,
  type TuneConstraint,
  type TuneMetric,
  takesClass,
} from '../model/tune/TuneConstraint.js';
import { externalRates, type TuneObjective } from '../model/tune/TuneMetrics.js';
import type { TunePoint } from '../model/tune/TunePoint.js';
import { DEFAULT_MAX_POINTS, tuneRetryLimits } from '../model/tune/tuneRetryLimits.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { integerIn, loadNetwork, type NetworkSource, parseModel, positiveNumber } from './input.js';
import { progressOnStderr } from './progress.js';
import { type Column, fixed, formatTable } from './table.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry tune`, as commander hands them over. */
export interface TuneCommandOptions extends NetworkSource {
  readonly json?: boolean;
  readonly model?: ModelName;
  /** A per-try timeout for every class at every hop, ms (as `analyze --timeout`). */
  readonly timeout?: number;
  /** `high=0:8,low=0:3`: the retry limits to try per class (others 0:8). */
  readonly grid?: string;
  readonly objective?: TuneObjective;
  /** `high=10,low=1`: replaces the file's class weights (weighted goodput only). */
  readonly weights?: string;
  /** `[CLASS.]METRIC<=NUMBER` or `>=NUMBER`, each. */
  readonly constraint?: readonly string[];
  /** Frontier rows to print (the JSON document has them all). */
  readonly frontier?: number;
  /** Significant digits at which objectives and attempts are compared. */
  readonly digits?: number;
}

/** Defaults of `difftry tune`. */
export const TUNE_DEFAULTS = {
  objective: 'weighted-goodput',
  frontier: 10,
  digits: 4,
} as const;

/** The largest retry limit `--grid` accepts (as `--retries`). */
const MAX_CLI_RETRIES = 100;

const CONSTRAINT_FORM = `[CLASS.]METRIC<=NUMBER or >=NUMBER, METRIC one of ${TUNE_METRICS.join(', ')}; or monostable`;

/** Commander's accumulator for a repeatable option such as `--constraint`. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** Checks `--objective`. */
export function parseObjective(text: string): TuneObjective {
  if (text === 'goodput' || text === 'weighted-goodput') return text;
  throw new UsageError(`--objective: expected goodput or weighted-goodput, got "${text}"`);
}

/**
 * `difftry tune`: chooses per-class retry limits over a grid that maximise (weighted) goodput
 * under constraints, beside the file's own limits, with the frontier of objective against
 * attempts per request. Exit code 1 (with the least-violating point printed) when no point of
 * the grid meets the constraints.
 */
export async function tuneCommand(options: TuneCommandOptions): Promise<CommandOutput> {
  const network = await loadNetwork(options);
  const classNames = network.classes.map((c) => c.name);
  const current = toNetworkModel(network, { model: options.model, timeoutMs: options.timeout });
  const external = externalRates(current);
  const grid = resolveGrid(parseGrid(options.grid, classNames), classNames);
  const size = gridSize(grid);
  if (size > DEFAULT_MAX_POINTS) {
    throw new UsageError(
      `--grid: the grid has ${size} points (${grid.map((r) => r.max - r.min + 1).join(' × ')}), at most ${DEFAULT_MAX_POINTS}; narrow some classes' ranges, e.g. --grid ${classNames[0]}=0:8,${classNames[1] ?? classNames[0]}=0:3`,
    );
  }
  const objective = options.objective ?? TUNE_DEFAULTS.objective;
  if (objective === 'goodput' && options.weights !== undefined) {
    throw new UsageError('--weights: only used with --objective weighted-goodput');
  }
  const weights = parseWeights(options.weights, network);
  const constraints = (options.constraint ?? []).map((text) =>
    parseConstraint(text, classNames, external),
  );
  if (!external.some((rate) => rate > 0)) {
    throw new UsageError('tune: the network has no external arrivals, so there is nothing to tune');
  }
  // α lists of the residual-time correction are computed for the grid's largest limits; the
  // tuner cuts them down for smaller ones.
  const base = toNetworkModel(network, {
    model: options.model,
    timeoutMs: options.timeout,
    retries: Object.fromEntries(classNames.map((name, p) => [name, (grid[p] as RetryRange).max])),
  });
  const digits = options.digits ?? TUNE_DEFAULTS.digits;
  const progress = progressOnStderr('tune');
  let result: ReturnType<typeof tuneRetryLimits>;
  try {
    result = tuneRetryLimits(base, {
      grid,
      objective,
      weights,
      constraints,
      significantDigits: digits,
      onProgress: (fraction) => progress.update(fraction),
    });
  } finally {
    progress.stop();
  }
  const now = assessNetwork(current, { objective, weights, constraints });
  const overridden = current.services.some((s) =>
    s.retryLimits.some((k, p) => k !== current.classes[p]?.retryLimit),
  );
  const view: TuneView = {
    source: options.file ?? `--example ${options.example}`,
    network,
    classNames,
    external,
    objective,
    weights,
    constraints,
    grid,
    digits,
    result,
    current: now,
    overridden,
  };
  const stdout = options.json
    ? JSON.stringify(tuneDocument(view), null, 2)
    : formatTune(view, options.frontier ?? TUNE_DEFAULTS.frontier);
  if (result.best !== undefined) return { stdout };
  return {
    stdout,
    stderr: `tune: no retry limits in the grid meet every constraint; the least-violating point breaks ${blockingText(view, result.leastViolating)}`,
    exitCode: 1,
  };
}

/**
 * Parses `--grid high=0:8,low=3` (a range or one value per class) into one range per class;
 * classes not named keep the default 0..8.
 * @throws UsageError naming the bad part.
 */
export function parseGrid(
  text: string | undefined,
  classNames: readonly string[],
): (RetryRange | undefined)[] {
  const grid: (RetryRange | undefined)[] = classNames.map(() => undefined);
  if (text === undefined) return grid;
  for (const part of text.split(',')) {
    const match = /^\s*([^=\s]+)\s*=\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(part);
    if (!match) {
      throw new UsageError(
        `--grid: expected CLASS=MIN:MAX or CLASS=K separated by commas, got "${part}"`,
      );
    }
    const [, name, minText, maxText] = match as unknown as [string, string, string, string?];
    const p = classNames.indexOf(name);
    if (p < 0) {
      throw new UsageError(
        `--grid: expected a class of the network (${classNames.join(', ')}), got "${name}"`,
      );
    }
    const min = Number(minText);
    const max = Number(maxText ?? minText);
    if (!(min <= max && max <= MAX_CLI_RETRIES)) {
      throw new UsageError(
        `--grid: expected 0 ≤ MIN ≤ MAX ≤ ${MAX_CLI_RETRIES} for ${name}, got "${part.trim()}"`,
      );
    }
    grid[p] = { min, max };
  }
  return grid;
}

/**
 * The class weights: the file's `weight` of each class, replaced by `--weights high=10,low=1`.
 * @throws UsageError naming the bad part.
 */
export function parseWeights(text: string | undefined, network: NetworkSpec): number[] {
  const classNames = network.classes.map((c) => c.name);
  const weights = network.classes.map((c) => c.weight);
  if (text === undefined) return weights;
  for (const part of text.split(',')) {
    const match = /^\s*([^=\s]+)\s*=\s*(\S+)\s*$/.exec(part);
    const value = match ? Number(match[2]) : Number.NaN;
    if (!match || !(Number.isFinite(value) && value >= 0)) {
      throw new UsageError(
        `--weights: expected CLASS=NUMBER pairs (NUMBER ≥ 0) separated by commas, got "${part}"`,
      );
    }
    const p = classNames.indexOf(match[1] as string);
    if (p < 0) {
      throw new UsageError(
        `--weights: expected a class of the network (${classNames.join(', ')}), got "${match[1]}"`,
      );
    }
    weights[p] = value;
  }
  return weights;
}

/**
 * Parses one `--constraint`: `[CLASS.]METRIC<=NUMBER` or `>=NUMBER` (`≤`, `≥` too; the metric's
 * case is ignored), or `monostable` (no retry-storm equilibrium at the load: `storms<=0`).
 * @param external - external requests per second per class (a class without traffic has no
 *   rejection to bound).
 * @throws UsageError naming the text and what was expected.
 */
export function parseConstraint(
  text: string,
  classNames: readonly string[],
  external: readonly number[],
): TuneConstraint {
  if (text.trim().toLowerCase() === 'monostable') return { metric: 'storms', op: '<=', bound: 0 };
  const match = /^\s*(?:(.+)\.)?([A-Za-z]+)\s*(<=|>=|≤|≥)\s*(\S+)\s*$/.exec(text);
  if (!match) {
    throw new UsageError(`--constraint: expected ${CONSTRAINT_FORM}, got "${text}"`);
  }
  const [, className, metricText, opText, boundText] = match as unknown as [
    string,
    string | undefined,
    string,
    string,
    string,
  ];
  const metric = TUNE_METRICS.find((m) => m.toLowerCase() === metricText.toLowerCase());
  if (metric === undefined) {
    throw new UsageError(
      `--constraint "${text}": expected a metric (${TUNE_METRICS.join(', ')}), got "${metricText}"`,
    );
  }
  const bound = Number(boundText);
  if (!Number.isFinite(bound)) {
    throw new UsageError(
      `--constraint "${text}": expected a number after ${opText}, got "${boundText}"`,
    );
  }
  const op = opText === '<=' || opText === '≤' ? '<=' : '>=';
  if (className === undefined) {
    if (needsClass(metric)) {
      throw new UsageError(
        `--constraint "${text}": ${metric} belongs to one class, expected CLASS.${metric} with CLASS one of ${classNames.join(', ')}`,
      );
    }
    return { metric, op, bound };
  }
  if (!takesClass(metric)) {
    throw new UsageError(
      `--constraint "${text}": ${metric} is a figure of the whole network, expected no class (${metric}${op}${boundText})`,
    );
  }
  const p = classNames.indexOf(className);
  if (p < 0) {
    throw new UsageError(
      `--constraint "${text}": expected a class of the network (${classNames.join(', ')}), got "${className}"`,
    );
  }
  if (!((external[p] ?? 0) > 0)) {
    throw new UsageError(
      `--constraint "${text}": class ${className} has no external arrivals, so its ${metric} is undefined`,
    );
  }
  return { metric, class: className, op, bound };
}

/** Everything the two output forms need. */
interface TuneView {
  readonly source: string;
  readonly network: NetworkSpec;
  readonly classNames: readonly string[];
  readonly external: readonly number[];
  readonly objective: TuneObjective;
  readonly weights: readonly number[];
  readonly constraints: readonly TuneConstraint[];
  readonly grid: readonly RetryRange[];
  readonly digits: number;
  readonly result: ReturnType<typeof tuneRetryLimits>;
  readonly current: TunePoint;
  /** Whether the file overrides some class's limit at some service. */
  readonly overridden: boolean;
}

/** The `tune --json` document. */
function tuneDocument(view: TuneView) {
  const { result, classNames } = view;
  const byClass = <T>(values: readonly T[]) =>
    Object.fromEntries(classNames.map((name, p) => [name, values[p]]));
  const point = (p: TunePoint) => ({
    limits: byClass(p.limits),
    objective: p.objective,
    rejection: byClass(p.metrics.rejection),
    goodput: byClass(p.metrics.goodput),
    totalGoodput: p.metrics.totalGoodput,
    attemptsPerRequest: p.metrics.attemptsPerRequest,
    attemptsPerSuccess: p.metrics.attemptsPerSuccess,
    internalPerRequest: p.metrics.internalPerRequest,
    maxRho: p.metrics.maxRho,
    converged: p.metrics.converged,
    feasible: p.feasible,
    violations: view.constraints.flatMap((c, i) => {
      const excess = p.excess[i] ?? 0;
      return excess > 0 ? [{ constraint: describeConstraint(c), excess }] : [];
    }),
  });
  return {
    network: view.source,
    classes: classNames.map((name, p) => ({
      name,
      weight: view.weights[p],
      external: view.external[p],
    })),
    objective: view.objective,
    constraints: view.constraints.map(describeConstraint),
    grid: byClass(view.grid),
    significantDigits: view.digits,
    evaluated: result.evaluated,
    analyses: result.analyses,
    feasibleCount: result.feasibleCount,
    unconverged: result.unconverged,
    feasible: result.best !== undefined,
    chosen: result.best === undefined ? null : point(result.best),
    current: { ...point(view.current), perServiceOverrides: view.overridden },
    leastViolating: result.leastViolating === undefined ? null : point(result.leastViolating),
    frontier: result.frontier.map(point),
  };
}

/** The human form: header, chosen beside current, the frontier, or what blocks. */
function formatTune(view: TuneView, frontierRows: number): string {
  const { result, classNames } = view;
  const services = view.network.services.length;
  const objectiveText =
    view.objective === 'goodput'
      ? 'goodput, completed requests/s of every class'
      : `weighted goodput Σ w·goodput (weights ${classNames.map((n, p) => `${n} ${view.weights[p]}`).join(', ')})`;
  const header = [
    `tune ${view.source}: ${services} service${services === 1 ? '' : 's'}, classes ${classNames.join(', ')}`,
    `objective    ${objectiveText}`,
    `constraints  ${view.constraints.length === 0 ? 'none' : view.constraints.map(describeConstraint).join(', ')}`,
    `grid         ${classNames.map((n, p) => `${n} ${rangeText(view.grid[p] as RetryRange)}`).join(', ')}: ` +
      `${result.evaluated} points, ${result.feasibleCount} feasible (${result.analyses} analyses; compared at ${view.digits} significant digits)`,
  ];
  if (result.unconverged > 0) {
    header.push(
      `note         ${result.unconverged} point(s) did not converge and count as infeasible`,
    );
  }
  const columns = pointColumns(view);
  const sections = [header.join('\n')];
  const currentLabel = view.overridden ? 'current*' : 'current';
  const currentNote = view.overridden
    ? '\n* the file overrides some services’ limits; its classes’ defaults are shown, the analysis uses the overrides'
    : '';
  if (result.best !== undefined) {
    const best = result.best;
    sections.push(
      `Chosen: ${limitsText(classNames, best.limits)} (the file has ${limitsText(classNames, view.current.limits)})\n` +
        formatTable(
          [
            { heading: '', alignRight: false },
            ...columns,
            { heading: 'violates', alignRight: false },
          ],
          [
            [currentLabel, ...pointCells(view, view.current), violatesText(view, view.current)],
            ['chosen', ...pointCells(view, best), violatesText(view, best)],
          ],
        ) +
        currentNote,
    );
    const shown = result.frontier.slice(0, frontierRows);
    sections.push(
      `Frontier: the best objective for each level of attempts per request (${result.frontier.length} point${result.frontier.length === 1 ? '' : 's'}${shown.length < result.frontier.length ? `, top ${shown.length} shown` : ''}).\n` +
        'Each row is the most the objective reaches with no more attempts per request; going down trades objective for less load.\n' +
        formatTable(
          [{ heading: '', alignRight: false }, ...columns],
          shown.map((p) => [p === best ? '*' : '', ...pointCells(view, p)]),
        ),
    );
  } else {
    const least = result.leastViolating as TunePoint;
    sections.push(
      `No retry limits in the grid meet every constraint. Least violating: ${limitsText(classNames, least.limits)}\n` +
        formatTable(
          [
            { heading: '', alignRight: false },
            ...columns,
            { heading: 'violates', alignRight: false },
          ],
          [
            [currentLabel, ...pointCells(view, view.current), violatesText(view, view.current)],
            ['least', ...pointCells(view, least), violatesText(view, least)],
          ],
        ) +
        currentNote,
      `Blocked by: ${blockingText(view, least)}.\n` +
        `Relax ${least.excess.filter((e) => e > 0).length > 1 ? 'those bounds' : 'that bound'}, or widen the grid (--grid).`,
    );
  }
  return sections.join('\n\n');
}

/** Network-wide columns shown only when a constraint asks for them. */
const OPTIONAL_COLUMNS: readonly { metric: TuneMetric; heading: string }[] = [
  { metric: 'attemptsPerSuccess', heading: 'attempts/success' },
  { metric: 'internalPerRequest', heading: 'internal/request' },
];

function pointColumns(view: TuneView): Column[] {
  const { classNames } = view;
  return [
    ...classNames.map((n) => ({ heading: `${n} k` })),
    { heading: 'objective' },
    ...classNames.map((n) => ({ heading: `${n} rejection` })),
    ...classNames.map((n) => ({ heading: `${n} goodput/s` })),
    { heading: 'attempts/request' },
    ...OPTIONAL_COLUMNS.filter((c) => view.constraints.some((k) => k.metric === c.metric)),
    { heading: 'max ρ' },
  ];
}

function pointCells(view: TuneView, point: TunePoint): string[] {
  const m = point.metrics;
  const optional = OPTIONAL_COLUMNS.filter((c) =>
    view.constraints.some((k) => k.metric === c.metric),
  ).map((c) =>
    fixed(c.metric === 'attemptsPerSuccess' ? m.attemptsPerSuccess : m.internalPerRequest, 3),
  );
  return [
    ...point.limits.map(String),
    fixed(point.objective, 2),
    ...m.rejection.map((r) => fixed(r)),
    ...m.goodput.map((g) => fixed(g, 2)),
    fixed(m.attemptsPerRequest, 3),
    ...optional,
    fixed(m.maxRho, 3),
  ];
}

function violatesText(view: TuneView, point: TunePoint): string {
  const broken = view.constraints.filter((_, i) => (point.excess[i] ?? 0) > 0);
  return broken.length === 0 ? '—' : broken.map(describeConstraint).join(', ');
}

/** `high.rejection<=0.01 (by 0.0312)` for each broken constraint. */
function blockingText(view: TuneView, point: TunePoint | undefined): string {
  if (point === undefined) return 'nothing';
  const parts = view.constraints.flatMap((c, i) => {
    const excess = point.excess[i] ?? 0;
    return excess > 0 ? [`${describeConstraint(c)} (by ${significant(excess)})`] : [];
  });
  return parts.length > 0 ? parts.join(', ') : 'no constraint (its analysis did not converge)';
}

function limitsText(classNames: readonly string[], limits: readonly number[]): string {
  return classNames.map((n, p) => `${n} ${limits[p]}`).join(', ');
}

function rangeText(range: RetryRange): string {
  return range.min === range.max ? String(range.min) : `${range.min}..${range.max}`;
}

function significant(value: number): string {
  return Number.isFinite(value) ? String(Number(value.toPrecision(3))) : String(value);
}

/** Registers `difftry tune` on the CLI: its flags, parsed and checked, and the call. */
export function registerTuneCommand(program: Command, emit: Emit): void {
  program
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
}
