import { MIN_GAPS_FOR_VERDICT } from '../../testbed/load/poissonCheck.js';
import { FIGURE5_PAPER_MEDIAN_LATENCY_S } from './figure5Sweep.js';
import type { Fig5Point, Fig5Result, Fig5Run } from './testbedFigure5.js';

/** The paper's agreement between measured and predicted rejection: 0.03 (3 points). */
export const FIG5_TOLERANCE = 0.03;

/** One class at one point of the sweep, flattened for tables, CSV and plots. */
export interface Fig5Row {
  readonly gammaHigh: number;
  readonly gammaLow: number;
  /** The retry configuration's key, `5/1` or `5/5`. */
  readonly k: string;
  readonly className: string;
  /** The class's offered rate on the testbed (scaled), requests/s. */
  readonly rate: number;
  /** End-to-end rejection of the requests sent in the window, each followed to its end. */
  readonly measured: number;
  /** Its 95 % half-width by batch means (see `ClassMeasurement.rejectionCi95`). */
  readonly measuredCi95: number;
  /** The binomial half-width, as if requests were independent. */
  readonly measuredCi95Binomial: number;
  /** Requests of the class sent in the window (by intended send time). */
  readonly sent: number;
  /** Of those, ended (in the window or the drain), and still unfinished after the grace. */
  readonly finished: number;
  readonly unfinished: number;
  /** The count used before: rejection of the requests answered in the window, and their number. */
  readonly measuredAnswered: number;
  readonly answered: number;
  /** How long the point's drain lasted, seconds. */
  readonly drainS: number;
  /** Predicted, call-graph form, calibrated capacities. */
  readonly predictedCalls: number;
  /** Predicted, routing form, the same capacities (NaN without a routing form). */
  readonly predictedRouting: number;
  /** Predicted, call-graph form, nominal capacities. */
  readonly predictedNominal: number;
  /** measured − predictedCalls. */
  readonly gapCalls: number;
  /** measured − predictedRouting. */
  readonly gapRouting: number;
  /** measuredAnswered − predictedCalls: the gap the old count would show. */
  readonly gapAnswered: number;
  /** Latency of the successful requests, seconds. */
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** Internal calls (attempts between services) per external request: measured, predicted. */
  readonly internalPerRequest: number;
  readonly predictedInternalCalls: number;
  readonly predictedInternalRouting: number;
  /** The entry service: nominal and calibrated μ (requests/s), attempt rejection measured and predicted. */
  readonly entryNominalCapacity: number;
  readonly entryCalibratedCapacity: number;
  readonly entryAttemptRejection: number;
  readonly predictedEntryAttemptRejection: number;
  /** The services' event loop: p99 and largest delay in the window, ms. */
  readonly eventLoopP99Ms: number;
  readonly eventLoopMaxMs: number;
  /** Fraction of the class's sends that started more than 1 ms late. */
  readonly lateFraction: number;
  /** Coefficient of variation of the class's achieved send gaps, and whether it passed. */
  readonly gapCv: number;
  readonly poisson: boolean;
  /** The seed of the run reported, and whether it is a valid measurement (see `invalidRun`). */
  readonly seed: number;
  readonly valid: boolean;
  /** Runs of this point discarded as invalid before it. */
  readonly discarded: number;
}

/** The rows of every point and class, in run order. */
export function fig5Rows(result: Fig5Result): Fig5Row[] {
  return result.points.flatMap((point) =>
    point.measurement.classes.map((c) => rowOf(result, point, c.name)),
  );
}

function rowOf(
  result: Fig5Result,
  point: Fig5Point,
  className: string,
  run: Fig5Run = point,
): Fig5Row {
  const { measurement: m, prediction: p } = run;
  const measured = m.classes.find((c) => c.name === className);
  const entry = m.services.find((s) => s.name === result.setup.entry);
  const streams = m.streams.filter((s) => s.className === className);
  const sent = streams.reduce((sum, s) => sum + s.sent, 0);
  const late = streams.reduce((sum, s) => sum + s.late, 0);
  const rejection = measured?.rejection ?? Number.NaN;
  const calls = p.calls.endToEnd[className]?.rejection ?? Number.NaN;
  const routing = p.routing?.endToEnd[className]?.rejection ?? Number.NaN;
  const stream = streams[0];
  return {
    gammaHigh: result.setup.gammaHigh,
    gammaLow: point.gammaLow,
    k: point.limit.key,
    className,
    rate: measured?.rate ?? Number.NaN,
    measured: rejection,
    measuredCi95: measured?.rejectionCi95 ?? Number.NaN,
    measuredCi95Binomial: measured?.rejectionCi95Binomial ?? Number.NaN,
    sent: measured?.sent ?? 0,
    finished: measured?.finished ?? 0,
    unfinished: measured?.unfinished ?? 0,
    measuredAnswered: measured?.answeredInWindow.rejection ?? Number.NaN,
    answered: measured?.answeredInWindow.finished ?? 0,
    drainS: m.drainS,
    predictedCalls: calls,
    predictedRouting: routing,
    predictedNominal: p.nominal.endToEnd[className]?.rejection ?? Number.NaN,
    gapCalls: rejection - calls,
    gapRouting: rejection - routing,
    gapAnswered: (measured?.answeredInWindow.rejection ?? Number.NaN) - calls,
    latencyP50: measured?.latency.p50 ?? Number.NaN,
    latencyP99: measured?.latency.p99 ?? Number.NaN,
    internalPerRequest: m.internalPerRequest,
    predictedInternalCalls: p.calls.load.internalPerRequest,
    predictedInternalRouting: p.routing?.load.internalPerRequest ?? Number.NaN,
    entryNominalCapacity: entry?.nominalCapacity ?? Number.NaN,
    entryCalibratedCapacity: entry?.calibratedCapacity ?? Number.NaN,
    entryAttemptRejection: entry?.attemptRejection ?? Number.NaN,
    predictedEntryAttemptRejection: p.calls.services[result.setup.entry]?.s ?? Number.NaN,
    eventLoopP99Ms: m.eventLoopDelay.p99Ms,
    eventLoopMaxMs: m.eventLoopDelay.maxMs,
    lateFraction: sent > 0 ? late / sent : Number.NaN,
    gapCv: stream?.poisson.cv ?? Number.NaN,
    poisson: streams.length > 0 && streams.every((s) => s.poisson.poisson),
    seed: run.seed,
    valid: run.invalid === undefined,
    discarded: point.discarded.length,
  };
}

/** The rows of the discarded runs, with the reason each was discarded, in run order. */
export function fig5DiscardedRows(
  result: Fig5Result,
): { readonly row: Fig5Row; readonly reason: string }[] {
  return result.points.flatMap((point) =>
    point.discarded.flatMap((run) =>
      run.measurement.classes.map((c) => ({
        row: rowOf(result, point, c.name, run),
        reason: run.invalid ?? '',
      })),
    ),
  );
}

/** The factor by which the last retry configuration's high-class rejection exceeds the first's. */
export interface CutFactor {
  /** γ_low of the point compared (the heaviest). */
  readonly gammaLow: number;
  /** High-class rejection under the first configuration (DiffTry) and the last (uniform). */
  readonly measuredDiffTry: number;
  readonly measuredUniform: number;
  /**
   * measuredUniform / measuredDiffTry, with an approximate 95 % range (delta method on the log,
   * from the two rejections' batch-means half-widths).
   */
  readonly measured: number;
  readonly measuredLow95: number;
  readonly measuredHigh95: number;
  readonly predictedCalls: number;
  readonly predictedRouting: number;
}

/** One class's latency at the heaviest point under one retry configuration. */
export interface StormLatency {
  readonly gammaLow: number;
  /** The configuration's key (`4/1`) and whether it is DiffTry (first) or uniform (last). */
  readonly k: string;
  readonly role: 'diffTry' | 'uniform';
  readonly className: string;
  /** Median and 99th percentile of the successful requests, seconds (NaN when none). */
  readonly p50: number;
  readonly p99: number;
  /** The paper's median for this configuration and class (Fig. 5(c)), seconds; NaN if it has none. */
  readonly paperMedian: number;
}

/** What a sweep shows, in a few numbers. */
export interface Fig5Summary {
  readonly tolerance: number;
  /** Largest |measured − predicted| over every point and class, per form. */
  readonly maxGapCalls: number;
  readonly maxGapRouting: number;
  /** Rows where either form's gap exceeds the tolerance. */
  readonly outside: readonly Fig5Row[];
  /** Every row within the tolerance of the call-graph prediction. */
  readonly agreesCalls: boolean;
  readonly agreesRouting: boolean;
  /** Largest |answered in window − predicted (call graph)|: what the old count would show. */
  readonly maxGapAnswered: number;
  /**
   * Per class, the send-time count against the answered-in-window one (measured −
   * measuredAnswered, points as fractions): mean and largest |·| over the points where the
   * prediction is at least 1 %, and over how many points.
   */
  readonly countShift: readonly {
    readonly className: string;
    readonly points: number;
    readonly mean: number;
    readonly maxAbs: number;
  }[];
  /** Requests sent in a window and unfinished after the grace, every point; longest drain, s. */
  readonly unfinished: number;
  readonly drainMaxS: number;
  readonly cut: CutFactor | undefined;
  /**
   * Latency of the successful requests at the heaviest point, per configuration and class, with
   * the paper's median for it (Fig. 5(c)); empty when the sweep has no such point.
   */
  readonly latency: readonly StormLatency[];
  /** Per service: nominal μ and the range of calibrated μ over the points. */
  readonly capacities: readonly {
    readonly name: string;
    readonly nominal: number;
    readonly calibratedMin: number;
    readonly calibratedMax: number;
    readonly calibratedMean: number;
    readonly stretchMean: number;
  }[];
  /** Largest p99 and max event-loop delay over the points, ms. */
  readonly eventLoopP99MaxMs: number;
  readonly eventLoopMaxMs: number;
  /** Range of the achieved gaps' CV over every stream, and whether every stream judged passed. */
  readonly cvMin: number;
  readonly cvMax: number;
  readonly allPoisson: boolean;
  /** Fraction of all sends that started more than 1 ms late; mean lateness, ms. */
  readonly lateFraction: number;
  readonly meanLatenessMs: number;
  /** Runs discarded as invalid and run again; points whose reported run is still invalid. */
  readonly discardedRuns: number;
  readonly invalidPoints: number;
}

/** Sums up a sweep: the agreement, the cut factor, the calibration, the load's quality. */
export function fig5Summary(result: Fig5Result): Fig5Summary {
  const rows = fig5Rows(result);
  const maxAbs = (values: number[]) =>
    values.filter(Number.isFinite).reduce((a, b) => Math.max(a, Math.abs(b)), 0);
  const maxGapCalls = maxAbs(rows.map((r) => r.gapCalls));
  const maxGapRouting = maxAbs(rows.map((r) => r.gapRouting));
  const outside = rows.filter(
    (r) => Math.abs(r.gapCalls) > FIG5_TOLERANCE || Math.abs(r.gapRouting) > FIG5_TOLERANCE,
  );
  const names = result.points[0]?.measurement.services.map((s) => s.name) ?? [];
  const capacities = names.map((name) => {
    const all = result.points
      .map((p) => p.measurement.services.find((s) => s.name === name))
      .filter((s) => s !== undefined);
    const calibrated = all.map((s) => s.calibratedCapacity);
    const stretches = all.map((s) => s.stretch).filter(Number.isFinite);
    return {
      name,
      nominal: all[0]?.nominalCapacity ?? Number.NaN,
      calibratedMin: Math.min(...calibrated),
      calibratedMax: Math.max(...calibrated),
      calibratedMean: calibrated.reduce((a, b) => a + b, 0) / calibrated.length,
      stretchMean: stretches.reduce((a, b) => a + b, 0) / stretches.length,
    };
  });
  const streams = result.points.flatMap((p) => p.measurement.streams);
  const cvs = streams.map((s) => s.poisson.cv).filter(Number.isFinite);
  const sent = streams.reduce((sum, s) => sum + s.sent, 0);
  return {
    tolerance: FIG5_TOLERANCE,
    maxGapCalls,
    maxGapRouting,
    outside,
    agreesCalls: rows.every((r) => Math.abs(r.gapCalls) <= FIG5_TOLERANCE),
    agreesRouting: rows.every((r) => !(Math.abs(r.gapRouting) > FIG5_TOLERANCE)),
    maxGapAnswered: maxAbs(rows.map((r) => r.gapAnswered)),
    countShift: [...new Set(rows.map((r) => r.className))].map((className) => {
      const shifts = rows
        .filter((r) => r.className === className && r.predictedCalls >= 0.01)
        .map((r) => r.measured - r.measuredAnswered)
        .filter(Number.isFinite);
      return {
        className,
        points: shifts.length,
        mean: shifts.length > 0 ? shifts.reduce((a, b) => a + b, 0) / shifts.length : Number.NaN,
        maxAbs: maxAbs(shifts),
      };
    }),
    unfinished: result.points.reduce((sum, p) => sum + p.measurement.unfinished, 0),
    drainMaxS: Math.max(0, ...result.points.map((p) => p.measurement.drainS)),
    cut: cutFactor(result, rows),
    latency: stormLatency(result, rows),
    capacities,
    eventLoopP99MaxMs: Math.max(...result.points.map((p) => p.measurement.eventLoopDelay.p99Ms)),
    eventLoopMaxMs: Math.max(...result.points.map((p) => p.measurement.eventLoopDelay.maxMs)),
    cvMin: Math.min(...cvs),
    cvMax: Math.max(...cvs),
    allPoisson: streams.every((s) => s.poisson.poisson || s.poisson.gaps < MIN_GAPS_FOR_VERDICT),
    lateFraction: sent > 0 ? streams.reduce((sum, s) => sum + s.late, 0) / sent : Number.NaN,
    meanLatenessMs:
      sent > 0 ? streams.reduce((sum, s) => sum + s.meanLatenessMs * s.sent, 0) / sent : Number.NaN,
    discardedRuns: result.points.reduce((sum, p) => sum + p.discarded.length, 0),
    invalidPoints: result.points.filter((p) => p.invalid !== undefined).length,
  };
}

type Fig5LimitOfSetup = Fig5Result['setup']['limits'][number];

/** The heaviest point's γ_low and the two configurations the headline figures compare. */
interface HeadlinePair {
  readonly heaviest: number;
  readonly first: Fig5LimitOfSetup;
  readonly last: Fig5LimitOfSetup;
}

/**
 * What the headline figures compare: the heaviest point's γ_low, and the sweep's first retry
 * configuration (DiffTry) and last (uniform); undefined when there are not two of them.
 */
function headlinePair(result: Fig5Result): HeadlinePair | undefined {
  const { limits } = result.setup;
  const first = limits[0];
  const last = limits[limits.length - 1];
  if (first === undefined || last === undefined || first === last || result.points.length === 0) {
    return undefined;
  }
  return { heaviest: Math.max(...result.points.map((p) => p.gammaLow)), first, last };
}

function cutFactor(result: Fig5Result, rows: readonly Fig5Row[]): CutFactor | undefined {
  const pair = headlinePair(result);
  if (pair === undefined) return undefined;
  const { heaviest, first, last } = pair;
  const { high } = result.setup;
  const find = (k: string) =>
    rows.find((r) => r.gammaLow === heaviest && r.k === k && r.className === high);
  const diffTry = find(first.key);
  const uniform = find(last.key);
  if (diffTry === undefined || uniform === undefined) return undefined;
  const ratio = uniform.measured / diffTry.measured;
  // Delta method on the log of the ratio: the 95 % half-width of ln p̂ is about h / p̂, and the
  // two points are independent runs.
  const spread = Math.hypot(
    uniform.measuredCi95 / uniform.measured,
    diffTry.measuredCi95 / diffTry.measured,
  );
  return {
    gammaLow: heaviest,
    measuredDiffTry: diffTry.measured,
    measuredUniform: uniform.measured,
    measured: ratio,
    measuredLow95: ratio * Math.exp(-spread),
    measuredHigh95: ratio * Math.exp(spread),
    predictedCalls: uniform.predictedCalls / diffTry.predictedCalls,
    predictedRouting: uniform.predictedRouting / diffTry.predictedRouting,
  };
}

/**
 * The latency rows of the heaviest point: the first configuration (DiffTry) and the last
 * (uniform), every class, beside {@link FIGURE5_PAPER_MEDIAN_LATENCY_S}. The paper names a high
 * and a low class only; a class in between gets no paper figure.
 */
function stormLatency(result: Fig5Result, rows: readonly Fig5Row[]): StormLatency[] {
  const pair = headlinePair(result);
  if (pair === undefined) return [];
  const { heaviest, first, last } = pair;
  const { high, low } = result.setup;
  const paper = FIGURE5_PAPER_MEDIAN_LATENCY_S;
  const paperMedian = (role: StormLatency['role'], className: string) => {
    if (role === 'uniform') return paper.uniform;
    if (className === high) return paper.diffTry.high;
    if (className === low) return paper.diffTry.low;
    return Number.NaN;
  };
  return [
    { limit: first, role: 'diffTry' as const },
    { limit: last, role: 'uniform' as const },
  ].flatMap(({ limit, role }) =>
    rows
      .filter((r) => r.gammaLow === heaviest && r.k === limit.key)
      .map((r) => ({
        gammaLow: heaviest,
        k: r.k,
        role,
        className: r.className,
        p50: r.latencyP50,
        p99: r.latencyP99,
        paperMedian: paperMedian(role, r.className),
      })),
  );
}
