/**
 * Runs the per-try timeout validation's points: each analysed (`analyzeNetwork` with per-try
 * timeouts, and with the orbit law where it covers the network) and simulated run by run with the
 * same fixed timeouts (`simulateRuns`, a fresh substream per run in the cases' order), each run
 * matched to the nearer equilibrium over its whole measured window and its first and last
 * windows; then one row per point and class. CPU only: no file; it times the orbit law (on an
 * injectable clock).
 */
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { orbitLawRefusal } from '../../model/network/orbitLaw.js';
import { fixed } from '../../report/numberFormat.js';
import {
  meanRunGap,
  nearestEquilibrium,
  runRejection,
  type StateMatch,
  windowRejection,
} from '../simulation/equilibriumMatch.js';
import { type RunSet, simulateRuns } from '../simulation/simulateRuns.js';
import type { FigureRow } from '../simulation/validationFigures.js';
import { simulatorTimeouts, TIMEOUT_VALIDATION } from './timeoutCases.js';
import { type Case, TRIVIAL } from './timeoutValidationCases.js';

const { seed: SEED, backoff: BACKOFF, run: RUN } = TIMEOUT_VALIDATION;

/** One point analysed and simulated. */
export interface Outcome {
  readonly c: Case;
  readonly report: NetworkReport;
  readonly simulated: RunSet;
  readonly matches: readonly { whole: StateMatch; first: StateMatch; last: StateMatch }[];
  /** The orbit law's analysis (`--law orbit`) where it covers the network, and its time. */
  readonly orbit?: { readonly report: NetworkReport; readonly seconds: number };
}

/** The validation's outcomes, in the cases' order. */
export interface TimeoutValidationRun {
  readonly outcomes: readonly Outcome[];
  /** Events the simulator processed, all runs together. */
  readonly events: number;
}

/** What {@link runTimeoutValidation} reports after each point. */
export interface TimeoutValidationProgress {
  /** The point's place in the list, from 0. */
  readonly index: number;
  readonly count: number;
  readonly outcome: Outcome;
  /** The largest |analysis − simulation| over the point's classes. */
  readonly largestGap: number;
  /** Wall-clock seconds the point took. */
  readonly seconds: number;
}

/** Options of {@link runTimeoutValidation}. */
export interface TimeoutValidationOptions {
  readonly onCase?: (progress: TimeoutValidationProgress) => void;
  /**
   * Only the points [first, end) (a shard's part, `--shard I/N`); each on the substreams it has
   * in the whole run, so its figures are the whole run's. Default: every point.
   */
  readonly range?: { readonly first: number; readonly end: number };
  /** Milliseconds, for the orbit law's and the points' times only; default `performance.now`. */
  readonly now?: () => number;
}

/**
 * Analyses and simulates every point in order (point after point on substreams 0, 1, …, as
 * many as its replications), calling `onCase` after each.
 */
export function runTimeoutValidation(
  cases: readonly Case[],
  options: TimeoutValidationOptions = {},
): TimeoutValidationRun {
  const outcomes: Outcome[] = [];
  const now = options.now ?? (() => performance.now());
  const { first, end } = options.range ?? { first: 0, end: cases.length };
  // Every point runs RUN.replications runs: the points before the range took that many each.
  let stream = first * RUN.replications;
  let events = 0;
  const firstMeasured = Math.round(RUN.warmup / RUN.window);
  cases.slice(first, end).forEach((c, place) => {
    const index = first + place;
    const t0 = now();
    const report = analyzeNetwork(c.network);
    const simulated = simulateRuns(
      c.network,
      {
        duration: RUN.duration,
        warmup: RUN.warmup,
        seed: SEED,
        backoff: BACKOFF,
        timeouts: simulatorTimeouts(c.network),
        windowSeconds: RUN.window,
      },
      RUN.replications,
      stream,
    );
    stream += RUN.replications;
    events += simulated.events;
    const classes = c.network.classes;
    const matches = simulated.runs.map((run) => ({
      whole: nearestEquilibrium(runRejection(run, classes), report.equilibria),
      first: nearestEquilibrium(windowRejection(run, firstMeasured, classes), report.equilibria),
      last: nearestEquilibrium(
        windowRejection(run, (run.windows?.length ?? 1) - 1, classes),
        report.equilibria,
      ),
    }));
    const orbitStarted = now();
    const orbitReport =
      orbitLawRefusal(c.network) === undefined
        ? analyzeNetwork(c.network, { law: 'orbit' })
        : undefined;
    const orbit =
      orbitReport === undefined
        ? undefined
        : { report: orbitReport, seconds: (now() - orbitStarted) / 1000 };
    const outcome: Outcome = {
      c,
      report,
      simulated,
      matches,
      ...(orbit === undefined ? {} : { orbit }),
    };
    outcomes.push(outcome);
    const gaps = classes.map((cls) =>
      Math.abs(
        (report.endToEnd[cls.name]?.rejection ?? Number.NaN) -
          (simulated.rejection[cls.name]?.mean ?? Number.NaN),
      ),
    );
    options.onCase?.({
      index,
      count: cases.length,
      outcome,
      largestGap: Math.max(...gaps),
      seconds: (now() - t0) / 1000,
    });
  });
  return { outcomes, events };
}

/** One class at one point: the analysis beside the simulation. */
export interface Row extends FigureRow {
  readonly o: Outcome;
  readonly unique: boolean;
  /** The state the analysis reached raising the load from zero (healthy, or where it tipped). */
  readonly predRising: number;
  /** Both analysis and simulation within 0.01 of 0 or of 1. */
  readonly trivial: boolean;
  /**
   * The mean over the runs of |a run's rejection − the nearer equilibrium's| for the mean-field
   * analysis, and for the orbit law's (NaN where it does not cover the network).
   */
  readonly meanFieldRunGap: number;
  readonly orbitRunGap: number;
  /** The orbit law's rejection in each of its states, `/`-separated ('' where not covered). */
  readonly orbitStates: string;
}

/**
 * Which equilibrium the load raised from zero reached: the first (the analysis lists it first,
 * healthy or the storm it tipped into; the state from saturation second).
 */
export function risingIndex(_o: Outcome): number {
  return 0;
}

/** The equilibrium of a bistable point that the rising load did not reach. */
export function otherIndex(o: Outcome): number {
  return risingIndex(o) === 0 ? 1 : 0;
}

/** An equilibrium's kind, with where it was reached from when two share a kind. */
export function stateLabel(o: Outcome, index: number): string {
  const kind = o.report.equilibria[index]?.kind ?? '?';
  const twins = o.report.equilibria.filter((e) => e.kind === kind).length > 1;
  if (!twins) return kind;
  return `${kind} (${index === risingIndex(o) ? 'from idle' : 'from saturation'})`;
}

/** Per class of the point: the analysis beside the simulation. */
export function rowsOf(o: Outcome): Row[] {
  const healthy = o.report.equilibria.find((e) => e.kind === 'healthy');
  const storm = o.report.equilibria.find((e) => e.kind === 'storm');
  return o.c.network.classes.map((cls, p) => {
    const pred = o.report.endToEnd[cls.name]?.rejection ?? Number.NaN;
    const sim = o.simulated.rejection[cls.name]?.mean ?? Number.NaN;
    const edge = (x: number) => x <= TRIVIAL || x >= 1 - TRIVIAL;
    return {
      o,
      cls: cls.name,
      k: o.c.network.services[0]?.retryLimits[p] ?? cls.retryLimit,
      unique: o.report.equilibria.length === 1,
      pred,
      predHealthy: healthy?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predStorm: storm?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predRising: o.report.equilibria[risingIndex(o)]?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      sim,
      simCi95: o.simulated.rejection[cls.name]?.ci95 ?? Number.NaN,
      gap: Math.abs(pred - sim),
      trivial: edge(pred) && edge(sim) && Math.abs(pred - sim) <= TRIVIAL,
      meanFieldRunGap: meanRunGap(o.simulated.runs, o.report.equilibria, cls.name),
      orbitRunGap:
        o.orbit === undefined
          ? Number.NaN
          : meanRunGap(o.simulated.runs, o.orbit.report.equilibria, cls.name),
      orbitStates:
        o.orbit === undefined
          ? ''
          : o.orbit.report.equilibria
              .map((e) => fixed(e.endToEnd[cls.name]?.rejection ?? Number.NaN, 4))
              .join('/'),
    };
  });
}
