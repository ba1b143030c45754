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
 * helpers only read its results. What it runs on is a {@link MetastabilityConfig}, what it finds
 * a {@link MetastabilityResult}; metastabilityReport.ts writes the page from them.
 */

import type { NetworkSpec } from '../../config/schema.js';
import { toNetworkModel } from '../../config/toNetworkModel.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { LoadSchedule } from '../../model/network/LoadSchedule.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { tuneRetryLimits } from '../../model/tune/tuneRetryLimits.js';
import { meanWithCi95 } from '../../stats/confidence.js';
import { toNetworkSimulationOptions } from '../simulation/networkSimulationOptions.js';
import {
  simulateWindowReplications,
  type WindowReplications,
} from '../simulation/windowReplications.js';
import type { MetastabilityConfig } from './MetastabilityConfig.js';
import type {
  HotelAnalysis,
  LoopRun,
  MetastabilityResult,
  MonostableGrid,
  TriggeredRun,
} from './MetastabilityResult.js';
import { pointAnalysis, sweepBranches, totalRate } from './metastabilityAnalysis.js';
import {
  CLASSES,
  type ClassName,
  LIMITS,
  LIMITS_KEYS,
  type LimitsKey,
} from './metastabilityLimits.js';
import { type CapacityStep, capacityStep, networkAtTime } from './scheduledNetwork.js';
import { rampCrossing, type StormSummary, stormSummary } from './stormWindows.js';

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
    throw new InvalidArgumentError(
      'expected one timeoutMs shared by every class of the network file',
    );
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
