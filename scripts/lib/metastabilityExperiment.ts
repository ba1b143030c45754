/**
 * The experiments of docs/metastability.md, as one function of a
 * configuration so that scripts/metastability.ts runs them at full length and
 * test/scripts/metastability.test.ts at a reduced one:
 *
 * (a) one service with per-try timeouts and uniform retries under a ten-second capacity drop, at
 *     a load where the analysis finds two equilibria and at one below its recovery point;
 * (b) the same with DiffTry's limits, where the analysis finds one;
 * (c) a ramp of the load up then down beside the analysis's healthy and storm branches;
 * (d) hotelReservation (call-graph form) with per-try timeouts under k = (5, 5) and (5, 1).
 *
 * Everything here calls the library (analysis, sweep of equilibria, tuner, simulator); the
 * helpers only read its results.
 */

import { toNetworkSimulationOptions } from '../../src/experiments/simulation/networkSimulationOptions.js';
import { analyzeNetwork } from '../../src/model/network/analyzeNetwork.js';
import type { CallEquilibrium } from '../../src/model/network/callEquilibria.js';
import type { LoadSchedule } from '../../src/model/network/LoadSchedule.js';
import type { NetworkModel } from '../../src/model/network/NetworkModel.js';
import type { NetworkReport } from '../../src/model/network/NetworkReport.js';
import { sweepEquilibria } from '../../src/model/network/sweepEquilibria.js';
import { tuneRetryLimits } from '../../src/model/tune/tuneRetryLimits.js';
import type { NetworkSpec } from '../../src/spec/schema.js';
import { toNetworkModel } from '../../src/spec/toNetworkModel.js';
import { type MeanWithCi95, meanWithCi95 } from '../../src/stats/confidence.js';
import { type CapacityStep, capacityStep, networkAtTime } from './scheduledNetwork.js';
import {
  type RampCrossing,
  rampCrossing,
  type StormSummary,
  stormSummary,
} from './stormWindows.js';
import { simulateWindowReplications, type WindowReplications } from './windowReplications.js';

/** Retry limits per class name, at every hop. */
export type RetryLimits = Readonly<Record<string, number>>;

/** Uniform retries, k = (5, 5), and DiffTry's k = (5, 1). */
export const LIMITS = {
  uniform: { label: 'uniform k = (5, 5)', retries: { high: 5, low: 5 } },
  difftry: { label: 'DiffTry k = (5, 1)', retries: { high: 5, low: 1 } },
} as const satisfies Record<string, { label: string; retries: RetryLimits }>;
export type LimitsKey = keyof typeof LIMITS;
export const LIMITS_KEYS = Object.keys(LIMITS) as LimitsKey[];

/** The classes of both networks. */
export const CLASSES = ['high', 'low'] as const;
export type ClassName = (typeof CLASSES)[number];

/** The length of one kind of simulated run. */
export interface RunLength {
  /** Virtual seconds (no warm-up: the schedules count from the start of the run). */
  readonly duration: number;
  readonly windowSeconds: number;
}

/** What the experiments run on, and for how long. */
export interface MetastabilityConfig {
  readonly seed: number;
  readonly replications: number;
  /** One service, two classes, per-try timeouts in the file (examples/metastable-classes.yaml). */
  readonly single: NetworkSpec;
  /** Its trigger at its own load (examples/capacity-drop.yaml). */
  readonly drop: LoadSchedule;
  /** The same trigger at a load below the recovery point (examples/capacity-drop-light.yaml). */
  readonly lightDrop: LoadSchedule;
  readonly dropRun: RunLength & {
    /** The stretch at the end of a run whose rejection the summary averages, seconds. */
    readonly tailSeconds: number;
  };
  /** The ramp up then down (examples/load-loop.yaml). */
  readonly loop: LoadSchedule;
  readonly loopRun: RunLength & {
    /** When the ramp turns from up to down, seconds. */
    readonly turn: number;
  };
  /** The analysis's sweep of the total offered rate for (c), requests/s, ascending. */
  readonly loopSweep: readonly number[];
  /** hotelReservation, call-graph form, at its file's rates (`builtinExample('hotel-calls')`). */
  readonly hotel: NetworkSpec;
  /** Its load and trigger (examples/hotel-frontend-drop.yaml). */
  readonly hotelSchedule: LoadSchedule;
  readonly hotelRun: RunLength & { readonly tailSeconds: number };
  /** Per-try timeouts (ms) at which the analysis looks at hotelReservation. */
  readonly hotelAnalysisTimeoutsMs: readonly number[];
  /** Per-try timeouts (ms) at which it is simulated, with and without the trigger. */
  readonly hotelSimulatedTimeoutsMs: readonly number[];
  /** The analysis's sweep of the frontend's low-class rate for (d), requests/s, ascending. */
  readonly hotelSweep: readonly number[];
  /** The per-try timeout (ms) of the tuner's look at hotelReservation. */
  readonly hotelTuneTimeoutMs: number;
  /** Retry limits the tuner tries per class, 0 to this. */
  readonly tuneMaxRetries: number;
  /** Progress, one line per step. */
  readonly onProgress?: (message: string) => void;
}

/** One equilibrium as the doc reports it. */
export interface EquilibriumFigures {
  readonly kind: 'healthy' | 'storm';
  readonly stable: boolean;
  readonly rejection: Readonly<Record<ClassName, number>>;
  readonly attemptsPerRequest: number;
  /** ρ of the service with external arrivals that carries the most load (api, frontend). */
  readonly entryRho: number;
}

/** The analysis at one load. */
export interface PointAnalysis {
  /** External requests per second, all classes. */
  readonly offeredRate: number;
  readonly equilibria: readonly EquilibriumFigures[];
  /** Two equilibria: a healthy state and a storm. */
  readonly bistable: boolean;
  /** Share of the load at which the load raised from zero tipped (the report's `tippedAt`). */
  readonly tippedAt?: number;
}

/** A simulated run, with or without a trigger, beside the analysis at its load. */
export interface TriggeredRun {
  readonly limits: LimitsKey;
  /** Per-try timeout at every hop, ms. */
  readonly timeoutMs: number;
  readonly analysis: PointAnalysis;
  readonly trigger?: CapacityStep;
  readonly simulated: WindowReplications;
  /** Per averaged window, the external rate the schedule offers (Σ γ × multiplier), requests/s. */
  readonly offeredRates: readonly number[];
  readonly summary: Readonly<Record<ClassName, StormSummary>>;
}

/** One point of a branch sweep: each branch's end-to-end rejection per class where it exists. */
export interface BranchPoint {
  readonly value: number;
  readonly healthy?: Readonly<Record<ClassName, number>>;
  readonly storm?: Readonly<Record<ClassName, number>>;
}

/** The analysis's two branches along a sweep and where each ends. */
export interface Branches {
  readonly points: readonly BranchPoint[];
  /** Past this value the healthy state is gone. */
  readonly tipping?: number;
  /** Below this value (for a load that rises with it) the storm is gone. */
  readonly recovery?: number;
}

/** (c): the ramp beside the branches, for one choice of limits. */
export interface LoopRun {
  readonly limits: LimitsKey;
  readonly branches: Branches;
  readonly simulated: WindowReplications;
  /** The total offered rate of a window, requests/s. */
  readonly offeredRates: readonly number[];
  /** Per replication, where the high class tipped and came out. */
  readonly crossings: readonly RampCrossing[];
  readonly tippedAt: MeanWithCi95;
  readonly recoveredAt: MeanWithCi95;
}

/** (d): the analysis of hotelReservation at one timeout and one choice of limits. */
export interface HotelAnalysis {
  readonly timeoutMs: number;
  readonly limits: LimitsKey;
  /** At the simulated load. */
  readonly atLoad: PointAnalysis;
  /** Along the sweep of the frontend's low-class rate. */
  readonly branches: Branches;
}

/** The tuner's view: which limits leave no storm at the load. */
export interface MonostableGrid {
  readonly label: string;
  /** Per k_high (rows) and k_low (columns), 0 to `tuneMaxRetries`: the storms found (0: monostable). */
  readonly storms: readonly (readonly number[])[];
}

/** Everything the doc shows. */
export interface MetastabilityResult {
  /** The one service's total external rate, requests/s. */
  readonly singleRate: number;
  /** Its external rate per class, requests/s. */
  readonly singleClassRates: Readonly<Record<ClassName, number>>;
  /** Its capacity μ, requests/s. */
  readonly singleCapacity: number;
  /** (a) and (b): keyed `uniform`, `uniform-light`, `difftry`. */
  readonly drops: Readonly<Record<'uniform' | 'uniform-light' | 'difftry', TriggeredRun>>;
  readonly loops: readonly LoopRun[];
  readonly hotelAnalyses: readonly HotelAnalysis[];
  /** Per simulated timeout and limits: with the trigger, and the control without it. */
  readonly hotelRuns: readonly { readonly trigger: TriggeredRun; readonly control: TriggeredRun }[];
  /** The simulated hotel load: γ per class at the frontend, requests/s. */
  readonly hotelRates: Readonly<Record<ClassName, number>>;
  readonly monostable: readonly MonostableGrid[];
  /** Simulated events, all runs together. */
  readonly events: number;
}

/** Runs every experiment of docs/metastability.md. */
export function runMetastability(config: MetastabilityConfig): MetastabilityResult {
  const progress = config.onProgress ?? (() => {});
  let events = 0;
  const count = (run: WindowReplications) => {
    events += run.events;
    return run;
  };

  // (a), (b): the capacity drop.
  const singleModel = (limits: LimitsKey) =>
    toNetworkModel(config.single, { retries: LIMITS[limits].retries });
  const singleRate = totalRate(singleModel('uniform'));
  const dropRun = (limits: LimitsKey, schedule: LoadSchedule): TriggeredRun => {
    const model = singleModel(limits);
    const trigger = capacityStep(schedule);
    const simulated = count(
      simulateWindowReplications(
        model,
        {
          ...toNetworkSimulationOptions(config.single, {
            duration: config.dropRun.duration,
            warmup: 0,
            seed: config.seed,
          }),
          schedule,
          windowSeconds: config.dropRun.windowSeconds,
        },
        config.replications,
      ),
    );
    progress(`drop: ${LIMITS[limits].label} at ${totalRate(networkAtTime(model, schedule, 0))}/s`);
    return {
      limits,
      timeoutMs: classTimeoutMs(config.single),
      analysis: pointAnalysis(networkAtTime(model, schedule, 0)),
      ...(trigger === undefined ? {} : { trigger }),
      simulated,
      offeredRates: offeredRates(model, simulated),
      summary: summaries(simulated, trigger, config.dropRun.tailSeconds),
    };
  };
  const drops = {
    uniform: dropRun('uniform', config.drop),
    'uniform-light': dropRun('uniform', config.lightDrop),
    difftry: dropRun('difftry', config.drop),
  };

  // (c): the ramp up then down, beside the branches along the total offered rate.
  const loops = LIMITS_KEYS.map((limits): LoopRun => {
    const model = singleModel(limits);
    const branches = sweepBranches((rate) => scaled(model, rate / singleRate), config.loopSweep);
    const simulated = count(
      simulateWindowReplications(
        model,
        {
          ...toNetworkSimulationOptions(config.single, {
            duration: config.loopRun.duration,
            warmup: 0,
            seed: config.seed,
          }),
          schedule: config.loop,
          windowSeconds: config.loopRun.windowSeconds,
        },
        config.replications,
      ),
    );
    // Every class's arrivals follow one multiplier, so the high class's is the load's.
    const offered = (w: { readonly classes: Readonly<Record<string, { multiplier: number }>> }) =>
      singleRate * (w.classes.high?.multiplier ?? Number.NaN);
    const crossings = simulated.runs.map((windows) =>
      rampCrossing(windows, 'high', config.loopRun.turn, offered),
    );
    progress(`loop: ${LIMITS[limits].label}`);
    return {
      limits,
      branches,
      simulated,
      offeredRates: simulated.windows.map(offered),
      crossings,
      tippedAt: meanWithCi95(crossings.map((c) => c.tippedAt).filter(Number.isFinite)),
      recoveredAt: meanWithCi95(crossings.map((c) => c.recoveredAt).filter(Number.isFinite)),
    };
  });

  // (d): hotelReservation with per-try timeouts.
  const hotelModel = (limits: LimitsKey, timeoutMs: number) =>
    toNetworkModel(config.hotel, { retries: LIMITS[limits].retries, timeoutMs });
  const frontend = config.hotel.services.findIndex((s) => s.name === 'frontend');
  const lowIndex = config.hotel.classes.findIndex((c) => c.name === 'low');
  const withLowRate = (model: NetworkModel, rate: number): NetworkModel => ({
    ...model,
    services: model.services.map((s, i) =>
      i === frontend
        ? { ...s, arrivals: s.arrivals.map((g, p) => (p === lowIndex ? rate : g)) }
        : s,
    ),
  });
  const hotelAt = (model: NetworkModel) => networkAtTime(model, config.hotelSchedule, 0);
  const hotelAnalyses = config.hotelAnalysisTimeoutsMs.flatMap((timeoutMs) =>
    LIMITS_KEYS.map((limits): HotelAnalysis => {
      const model = hotelModel(limits, timeoutMs);
      const branches = sweepBranches((rate) => withLowRate(model, rate), config.hotelSweep);
      progress(`hotel analysis: T = ${timeoutMs} ms, ${LIMITS[limits].label}`);
      return { timeoutMs, limits, atLoad: pointAnalysis(hotelAt(model)), branches };
    }),
  );
  const hotelRun = (limits: LimitsKey, timeoutMs: number, schedule: LoadSchedule) => {
    const model = hotelModel(limits, timeoutMs);
    const trigger = capacityStep(schedule);
    const simulated = count(
      simulateWindowReplications(
        model,
        {
          ...toNetworkSimulationOptions(
            config.hotel,
            { duration: config.hotelRun.duration, warmup: 0, seed: config.seed },
            { kind: 'fixed', timeoutMs },
          ),
          schedule,
          windowSeconds: config.hotelRun.windowSeconds,
        },
        config.replications,
      ),
    );
    return {
      limits,
      timeoutMs,
      analysis: pointAnalysis(hotelAt(model)),
      ...(trigger === undefined ? {} : { trigger }),
      simulated,
      offeredRates: offeredRates(model, simulated),
      summary: summaries(simulated, trigger, config.hotelRun.tailSeconds),
    } satisfies TriggeredRun;
  };
  const control: LoadSchedule = {
    changes: config.hotelSchedule.changes.filter((c) => c.capacity === undefined),
  };
  const hotelRuns = config.hotelSimulatedTimeoutsMs.flatMap((timeoutMs) =>
    LIMITS_KEYS.map((limits) => {
      const run = {
        trigger: hotelRun(limits, timeoutMs, config.hotelSchedule),
        control: hotelRun(limits, timeoutMs, control),
      };
      progress(`hotel simulation: T = ${timeoutMs} ms, ${LIMITS[limits].label}`);
      return run;
    }),
  );
  const hotelLoad = hotelAt(hotelModel('uniform', config.hotelTuneTimeoutMs));
  const hotelRates = {
    high: classRate(hotelLoad, 'high'),
    low: classRate(hotelLoad, 'low'),
  };

  // Which limits leave no storm at each load, by the tuner.
  const monostable = [
    {
      label: `one service at ${singleRate} requests/s, T = ${classTimeoutMs(config.single)} ms`,
      model: singleModel('uniform'),
    },
    {
      label: `hotelReservation at γ = (${hotelRates.high}, ${hotelRates.low}), T = ${config.hotelTuneTimeoutMs} ms`,
      model: hotelLoad,
    },
  ].map(({ label, model }): MonostableGrid => {
    const size = config.tuneMaxRetries + 1;
    const tuned = tuneRetryLimits(model, {
      grid: CLASSES.map(() => ({ min: 0, max: config.tuneMaxRetries })),
      constraints: [{ metric: 'storms', op: '<=', bound: 0 }],
    });
    const storms = Array.from({ length: size }, () => new Array<number>(size).fill(Number.NaN));
    for (const point of tuned.points) {
      const [high = 0, low = 0] = point.limits;
      (storms[high] as number[])[low] = point.metrics.storms;
    }
    progress(`tune: ${label}`);
    return { label, storms };
  });

  const uniformSingle = singleModel('uniform');
  return {
    singleRate,
    singleClassRates: {
      high: classRate(uniformSingle, 'high'),
      low: classRate(uniformSingle, 'low'),
    },
    singleCapacity: uniformSingle.services[0]?.capacity ?? Number.NaN,
    drops,
    loops,
    hotelAnalyses,
    hotelRuns,
    hotelRates,
    monostable,
    events,
  };
}

/** Per averaged window, Σ over classes of the network's rate × the window's mean multiplier. */
function offeredRates(network: NetworkModel, simulated: WindowReplications): number[] {
  return simulated.windows.map((w) =>
    network.classes.reduce(
      (sum, c) => sum + classRate(network, c.name) * (w.classes[c.name]?.multiplier ?? Number.NaN),
      0,
    ),
  );
}

/** Σ γ over services and classes, requests/s. */
export function totalRate(network: NetworkModel): number {
  return network.services.reduce((sum, s) => sum + s.arrivals.reduce((a, b) => a + b, 0), 0);
}

function classRate(network: NetworkModel, className: string): number {
  const p = network.classes.findIndex((c) => c.name === className);
  return network.services.reduce((sum, s) => sum + (s.arrivals[p] ?? 0), 0);
}

/** Every external rate × `factor`. */
function scaled(network: NetworkModel, factor: number): NetworkModel {
  return {
    ...network,
    services: network.services.map((s) => ({ ...s, arrivals: s.arrivals.map((g) => g * factor) })),
  };
}

/** The per-try timeout of the file's classes, ms (they share one in the examples here). */
function classTimeoutMs(network: NetworkSpec): number {
  const [first] = network.classes;
  const ms = first?.timeoutMs;
  if (ms === undefined || network.classes.some((c) => c.timeoutMs !== ms)) {
    throw new RangeError('expected one timeoutMs shared by every class of the network file');
  }
  return ms;
}

function summaries(
  simulated: WindowReplications,
  trigger: CapacityStep | undefined,
  tailSeconds: number,
): Record<ClassName, StormSummary> {
  const of = (c: ClassName) => stormSummary(simulated.runs, c, trigger, tailSeconds);
  return { high: of('high'), low: of('low') };
}

function figures(report: NetworkReport): EquilibriumFigures[] {
  return report.equilibria.map((e) => ({
    kind: e.kind,
    stable: e.stable,
    rejection: {
      high: e.endToEnd.high?.rejection ?? Number.NaN,
      low: e.endToEnd.low?.rejection ?? Number.NaN,
    },
    attemptsPerRequest: e.attemptsPerRequest,
    entryRho: Math.max(
      ...Object.entries(e.services)
        .filter(([name]) => name === 'api' || name === 'frontend')
        .map(([, s]) => s.rho),
    ),
  }));
}

/** The analysis's equilibria at one load. */
export function pointAnalysis(network: NetworkModel): PointAnalysis {
  const report = analyzeNetwork(network);
  const equilibria = figures(report);
  return {
    offeredRate: totalRate(network),
    equilibria,
    bistable:
      equilibria.some((e) => e.kind === 'healthy') && equilibria.some((e) => e.kind === 'storm'),
    ...(report.tippedAt === undefined ? {} : { tippedAt: report.tippedAt }),
  };
}

/**
 * The healthy and storm branches along a sweep of a load that rises with the value, each point's
 * end-to-end rejections read from the analysis of the states the sweep followed (as
 * `difftry analyze --sweep` does).
 */
export function sweepBranches(
  networkAt: (value: number) => NetworkModel,
  values: readonly number[],
): Branches {
  const swept = sweepEquilibria(networkAt, values, { loadRises: true });
  const points = swept.points.map((point): BranchPoint => {
    const found: CallEquilibrium[] = [];
    if (point.healthy !== undefined) found.push({ kind: 'healthy', solution: point.healthy });
    if (point.storm !== undefined) found.push({ kind: 'storm', solution: point.storm });
    if (found.length === 0) return { value: point.value };
    const report = analyzeNetwork(networkAt(point.value), {
      equilibria: { equilibria: found, tips: [] },
    });
    const branch = (kind: 'healthy' | 'storm') => {
      const e = report.equilibria.find((x) => x.kind === kind);
      return e === undefined
        ? undefined
        : {
            high: e.endToEnd.high?.rejection ?? Number.NaN,
            low: e.endToEnd.low?.rejection ?? Number.NaN,
          };
    };
    const healthy = point.healthy === undefined ? undefined : branch('healthy');
    const storm = point.storm === undefined ? undefined : branch('storm');
    return {
      value: point.value,
      ...(healthy === undefined ? {} : { healthy }),
      ...(storm === undefined ? {} : { storm }),
    };
  });
  return {
    points,
    ...(swept.tipping === undefined ? {} : { tipping: swept.tipping }),
    ...(swept.recovery === undefined ? {} : { recovery: swept.recovery }),
  };
}
