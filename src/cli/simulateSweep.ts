import type { NetworkSpec } from '../config/schema.js';
import { toNetworkModel } from '../config/toNetworkModel.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import type { TimeoutStrategyDescription } from '../policy/timeouts/createTimeoutStrategy.js';
import { replicateWithProgress } from '../sim/network/replicateWithProgress.js';
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

/**
 * `difftry simulate --sweep`: the network simulated (replicated) at every point of the sweep,
 * with the analysis's prediction beside it; one row per point and class.
 */
export async function simulateSweep(
  network: NetworkSpec,
  sweep: Sweep,
  timeouts: TimeoutStrategyDescription | undefined,
  options: SimulateOptions,
): Promise<CommandOutput> {
  const strategy = options.strategy ?? 'difftry';
  const setting = timeoutSetting(network, timeouts);
  const replications = options.replications;
  const count = sweep.values.length;
  // Analyse every point first: a network the analysis refuses fails before any simulation.
  const prepared = sweep.values.map((value) => {
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
  const points: {
    value: number;
    simulation: NetworkSimulationDocument;
    analysis: NetworkReport | null;
  }[] = [];
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
  const rows = points.flatMap((point) => sweepRows(point.value, point.simulation, point.analysis));
  let stderr: string | undefined;
  if (options.csv !== undefined) {
    const lines = rows.map((r) =>
      [
        sweep.target,
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
  const first = points[0]?.simulation;
  const notes = prepared[0]?.analysis.notes ?? [];
  if (options.json) {
    const document = {
      sweep: { parameter: sweep.target, values: sweep.values },
      strategy,
      classes: first?.classes ?? [],
      replications,
      duration: first?.duration ?? options.duration,
      warmup: first?.warmup ?? options.warmup,
      seed: options.seed,
      backoffs: first?.backoffs ?? {},
      timeouts: setting,
      notes,
      points,
    };
    return { stdout: JSON.stringify(document, null, 2), stderr };
  }
  return { stdout: formatSweep(sweep, rows, first, notes, setting), stderr };
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
  sweep: Sweep,
  rows: readonly SweepRow[],
  first: NetworkSimulationDocument | undefined,
  notes: readonly string[],
  setting: TimeoutSetting,
): string {
  const hasAnalysis = rows.some((r) => r.analysisConverged !== undefined);
  const withTimeouts = setting !== null;
  const classCount = first?.classes.length ?? 1;
  const table = formatTable(
    [
      { heading: sweep.target },
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
      : `${networkHeader({ ...first, events: undefined })}\nSwept ${sweep.target} over ${sweep.values.length} point${sweep.values.length === 1 ? '' : 's'}${hasAnalysis ? '; analysis: the end-to-end rejection the model predicts' : ''}\n\n`;
  const unconverged = rows.some((r) => r.analysisConverged === false)
    ? '\n* the analysis did not converge at that point'
    : '';
  return `${header}${table}${notes.map((note) => `\nNote: ${note}`).join('')}${unconverged}`;
}
