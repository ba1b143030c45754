import type { NetworkSpec } from '../config/schema.js';
import { toNetworkModel } from '../config/toNetworkModel.js';
import { fromExactJson, toExactJson } from '../experiments/shard/exactJson.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import type { TimeoutStrategyDescription } from '../policy/timeouts/createTimeoutStrategy.js';
import { replicateWithProgress } from '../sim/network/replicateWithProgress.js';
import type { NetworkStrategy } from '../sim/network/strategy.js';
import type { CommandOutput } from './CommandOutput.js';
import {
  type NetworkSimulationDocument,
  networkHeader,
  networkSimulationDocument,
  predict,
  simulationOptions,
} from './networkSimulation.js';
import { writeOutputFiles } from './outputPath.js';
import { progressOnStderr } from './progress.js';
import type { SimulateOptions } from './SimulateOptions.js';
import { type TimeoutSetting, timeoutSetting } from './simulationConfig.js';
import { applySweepToSpec, type Sweep } from './sweep.js';
import { fixed, formatTable, withCi } from './table.js';

/** One row of a simulated sweep: a point's figures for one class. */
interface SweepRow {
  readonly value: number;
  readonly class: string;
  readonly rejection: number;
  readonly rejectionCi95: number;
  /** The analysis's end-to-end rejection; NaN when the strategy has no prediction. */
  readonly analysisRejection: number;
  /** Whether the analysis converged; undefined without a prediction. */
  readonly analysisConverged: boolean | undefined;
  readonly completion: number;
  readonly completionCi95: number;
  readonly attemptsPerRequest: number;
  readonly attemptsPerRequestCi95: number;
  /** Network-wide, as the `load` of the point. */
  readonly internalPerRequest: number;
  readonly internalPerRequestCi95: number;
  readonly latencyP50Ms: number;
  readonly latencyP50MsCi95: number;
  readonly latencyP99Ms: number;
  readonly latencyP99MsCi95: number;
  /** Attempts of the class abandoned at their timeout per second, all services together. */
  readonly timeoutsPerSecond: number;
}

/** The columns of `simulate --sweep --csv`, in order. */
export const SIMULATE_SWEEP_CSV_COLUMNS = [
  'parameter',
  'value',
  'class',
  'rejection',
  'rejectionCi95',
  'analysisRejection',
  'analysisConverged',
  'completion',
  'completionCi95',
  'attemptsPerRequest',
  'attemptsPerRequestCi95',
  'internalPerRequest',
  'internalPerRequestCi95',
  'latencyP50Ms',
  'latencyP50MsCi95',
  'latencyP99Ms',
  'latencyP99MsCi95',
  'timeoutsPerSecond',
] as const;

/** One point of a sweep: its value, the simulation's document and the analysis's report. */
export interface SweepPoint {
  readonly value: number;
  readonly simulation: NetworkSimulationDocument;
  readonly analysis: NetworkReport | null;
}

/**
 * What a sweep (or a shard of one, or the shards merged) found: everything its table, JSON and
 * CSV are made of. Plain data: {@link toExactJson} writes it and reads it back unchanged.
 */
export interface SweepRun {
  readonly parameter: string;
  /** The points' values, in order (a shard's own, or the whole run's). */
  readonly values: readonly number[];
  readonly strategy: NetworkStrategy;
  readonly replications: number;
  /** `--duration` and `--warmup` as given (the points' documents hold what was run). */
  readonly duration: number;
  readonly warmup: number | undefined;
  readonly seed: number;
  readonly timeouts: TimeoutSetting;
  /** The analysis's notes at the first point. */
  readonly notes: readonly string[];
  readonly points: readonly SweepPoint[];
}

/**
 * `difftry simulate --sweep`: the network simulated (replicated) at every point of the sweep,
 * with the analysis's prediction beside it; one row per point and class. With `range`, only
 * the points [first, end): a shard's part (`--shard I/N`). Every point runs on the same seed,
 * so a point's figures do not depend on which others ran.
 */
export function runSweep(
  network: NetworkSpec,
  sweep: Sweep,
  timeouts: TimeoutStrategyDescription | undefined,
  options: SimulateOptions,
  range: { readonly first: number; readonly end: number } = {
    first: 0,
    end: sweep.values.length,
  },
): SweepRun {
  const strategy = options.strategy ?? 'difftry';
  const setting = timeoutSetting(network, timeouts);
  const replications = options.replications;
  const values = sweep.values.slice(range.first, range.end);
  const count = values.length;
  // Analyse every point first: a network the analysis refuses fails before any simulation.
  const prepared = values.map((value) => {
    const spec = applySweepToSpec(network, sweep, value);
    const pointModel = toNetworkModel(spec, { retries: options.retries });
    return {
      value,
      spec,
      model: pointModel,
      analysis: predict(spec, { retries: options.retries }, strategy, setting),
    };
  });
  const progress = options.progress ?? progressOnStderr('simulate');
  const points: SweepPoint[] = [];
  try {
    prepared.forEach((point, i) => {
      const simulation = simulationOptions(point.spec, timeouts, options);
      const result = replicateWithProgress(point.model, simulation, replications, (fraction) =>
        progress.update((i + fraction) / count),
      );
      points.push({
        value: point.value,
        simulation: networkSimulationDocument(
          point.model,
          result,
          options.seed,
          simulation.classBackoffs,
          setting,
        ),
        analysis: point.analysis.report,
      });
    });
  } finally {
    progress.stop();
  }
  // Read back as a shard's file is, so that a run and its shards merged print alike to the bit.
  return fromExactJson(
    toExactJson({
      parameter: sweep.target,
      values,
      strategy,
      replications,
      duration: options.duration,
      warmup: options.warmup,
      seed: options.seed,
      timeouts: setting,
      notes: prepared[0]?.analysis.notes ?? [],
      points,
    }),
  ) as SweepRun;
}

/**
 * What `simulate --sweep` prints for a run (a whole one, or shards merged): the table, or with
 * `json` one JSON document; with `csv`, the rows also written to that file.
 */
export async function sweepOutput(
  run: SweepRun,
  options: { readonly json?: boolean; readonly csv?: string },
): Promise<CommandOutput> {
  const rows = run.points.flatMap((point) =>
    sweepRows(point.value, point.simulation, point.analysis),
  );
  let stderr: string | undefined;
  if (options.csv !== undefined) {
    const lines = rows.map((r) =>
      [
        run.parameter,
        r.value,
        r.class,
        r.rejection,
        r.rejectionCi95,
        Number.isNaN(r.analysisRejection) ? '' : r.analysisRejection,
        r.analysisConverged ?? '',
        r.completion,
        r.completionCi95,
        r.attemptsPerRequest,
        r.attemptsPerRequestCi95,
        r.internalPerRequest,
        r.internalPerRequestCi95,
        r.latencyP50Ms,
        r.latencyP50MsCi95,
        r.latencyP99Ms,
        r.latencyP99MsCi95,
        r.timeoutsPerSecond,
      ].join(','),
    );
    await writeOutputFiles(
      [
        {
          path: options.csv,
          text: `${[SIMULATE_SWEEP_CSV_COLUMNS.join(','), ...lines].join('\n')}\n`,
        },
      ],
      '--csv',
    );
    stderr = `wrote ${rows.length} rows to ${options.csv}`;
  }
  const first = run.points[0]?.simulation;
  if (options.json) {
    const document = {
      sweep: { parameter: run.parameter, values: run.values },
      strategy: run.strategy,
      classes: first?.classes ?? [],
      replications: run.replications,
      duration: first?.duration ?? run.duration,
      warmup: first?.warmup ?? run.warmup,
      seed: run.seed,
      backoffs: first?.backoffs ?? {},
      timeouts: run.timeouts,
      notes: run.notes,
      points: run.points,
    };
    return { stdout: JSON.stringify(document, null, 2), stderr };
  }
  return { stdout: formatSweep(run, rows, first), stderr };
}

/** The rows of one sweep point, one per class. */
function sweepRows(
  value: number,
  doc: NetworkSimulationDocument,
  analysis: NetworkReport | null,
): SweepRow[] {
  return doc.classes.map((c) => {
    const e = doc.endToEnd[c.name] ?? {};
    let timeouts = 0;
    for (const service of Object.values(doc.services)) {
      timeouts += service.classes[c.name]?.timeouts ?? 0;
    }
    const ms = (seconds: number | undefined) => (seconds ?? Number.NaN) * 1000;
    return {
      value,
      class: c.name,
      rejection: e.rejection ?? Number.NaN,
      rejectionCi95: e.rejectionCi95 ?? Number.NaN,
      analysisRejection: analysis?.endToEnd[c.name]?.rejection ?? Number.NaN,
      analysisConverged: analysis?.converged,
      completion: e.completion ?? Number.NaN,
      completionCi95: e.completionCi95 ?? Number.NaN,
      attemptsPerRequest: e.attemptsPerRequest ?? Number.NaN,
      attemptsPerRequestCi95: e.attemptsPerRequestCi95 ?? Number.NaN,
      internalPerRequest: doc.load.internalPerRequest,
      internalPerRequestCi95: doc.load.internalPerRequestCi95,
      latencyP50Ms: ms(e.latencyP50),
      latencyP50MsCi95: ms(e.latencyP50Ci95),
      latencyP99Ms: ms(e.latencyP99),
      latencyP99MsCi95: ms(e.latencyP99Ci95),
      timeoutsPerSecond: timeouts,
    };
  });
}

function formatSweep(
  run: SweepRun,
  rows: readonly SweepRow[],
  first: NetworkSimulationDocument | undefined,
): string {
  const { notes, timeouts: setting } = run;
  const hasAnalysis = rows.some((r) => r.analysisConverged !== undefined);
  const withTimeouts = setting !== null;
  const classCount = first?.classes.length ?? 1;
  const table = formatTable(
    [
      { heading: run.parameter },
      { heading: 'class', alignRight: false },
      { heading: 'rejection' },
      ...(hasAnalysis ? [{ heading: 'analysis' }] : []),
      { heading: 'attempts/request' },
      { heading: 'internal/request' },
      { heading: 'p50 ms' },
      { heading: 'p99 ms' },
      ...(withTimeouts ? [{ heading: 'timeouts/s' }] : []),
    ],
    rows.map((r, i) => [
      i % classCount === 0 ? String(r.value) : '',
      r.class,
      withCi(r.rejection, r.rejectionCi95),
      ...(hasAnalysis
        ? [`${fixed(r.analysisRejection)}${r.analysisConverged === false ? '*' : ''}`]
        : []),
      withCi(r.attemptsPerRequest, r.attemptsPerRequestCi95, 3),
      withCi(r.internalPerRequest, r.internalPerRequestCi95, 3),
      fixed(r.latencyP50Ms, 1),
      fixed(r.latencyP99Ms, 1),
      ...(withTimeouts ? [fixed(r.timeoutsPerSecond, 2)] : []),
    ]),
  );
  const header =
    first === undefined
      ? ''
      : `${networkHeader({ ...first, events: undefined })}\nSwept ${run.parameter} over ${run.values.length} point${run.values.length === 1 ? '' : 's'}${hasAnalysis ? '; analysis: the end-to-end rejection the model predicts' : ''}\n\n`;
  const unconverged = rows.some((r) => r.analysisConverged === false)
    ? '\n* the analysis did not converge at that point'
    : '';
  return `${header}${table}${notes.map((note) => `\nNote: ${note}`).join('')}${unconverged}`;
}
