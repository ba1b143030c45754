/**
 * The DiffTry paper's Figure 5 on the live testbed (`difftry testbed fig5`, docs/testbed-fig5.*):
 * the sweep of figure5Sweep.ts run point by point on fresh loopback testbeds and predicted for
 * each from its own calibrated capacities.
 */

import type { NetworkSpec } from '../../config/schema.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import {
  DEFAULT_GRACE_S,
  type MeasureOptions,
  measureTestbed,
  type TestbedMeasurement,
} from '../../testbed/experiment/measureTestbed.js';
import { predictTestbed, type TestbedPrediction } from '../../testbed/experiment/predictTestbed.js';
import { invalidRun, TESTBED_BACKOFF } from '../../testbed/experiment/runValidity.js';
import type { TestbedTransport } from '../../testbed/network/testbedNetwork.js';
import {
  FIGURE5_GAMMA_HIGH,
  FIGURE5_GAMMA_LOWS,
  type Figure5Limit,
  figure5Limits,
  specAtFigure5Point,
} from './figure5Sweep.js';

export { invalidRun, TESTBED_BACKOFF };

/** One retry configuration of the sweep: a key such as `5/1` and the limit of every class. */
export type Fig5Limit = Figure5Limit;

/** Options of {@link runFig5}. */
export interface Fig5Options {
  /** The call-graph network that runs (hotelReservation: `hotel-calls`). */
  readonly network: NetworkSpec;
  /** Its routing form (`hotel`), predicted beside it. */
  readonly routing?: NetworkSpec;
  /** The entry service whose arrivals are swept; default the first with external arrivals. */
  readonly entry?: string;
  /** γ of the highest class at the entry, in the file's units (requests/s before scaling); 50. */
  readonly gammaHigh?: number;
  /** γ of the lowest class, in the file's units; default 50, 75, …, 250. */
  readonly gammaLows?: readonly number[];
  /** The retry configurations compared; default DiffTry (5, 1) and uniform (5, 5). */
  readonly limits?: readonly Fig5Limit[];
  /** Rates × scale on the testbed (capacities and arrivals); default 0.5. */
  readonly scale?: number;
  /** Seconds of load before each window; default 6. */
  readonly warmupS?: number;
  /** Seconds of each window; default 40. */
  readonly durationS?: number;
  /** Longest drain after each window, seconds (see `MeasureOptions.graceS`); default 20. */
  readonly graceS?: number;
  /** Retry delay of every class; default random (exponential) with mean 500 ms. */
  readonly backoff?: BackoffDescription;
  /** Seed of the first point (point i uses seed + i); default 5. */
  readonly seed?: number;
  /** Sidecars (default) or in-process retries (HTTP only). */
  readonly sidecars?: boolean;
  /**
   * How services talk: `http` (default) or `grpc-xds` (gRPC services, every retry made by gRPC
   * from the routes of the testbed's xDS control plane; at most 5 attempts a call).
   */
  readonly transport?: TestbedTransport;
  /** The load generator in its own thread (default) or beside the services. */
  readonly edgeThread?: boolean;
  /**
   * Runs a point may take (default 2): a run that is not a valid measurement ({@link invalidRun})
   * is discarded, kept in the report, and the point is run again with a new seed.
   */
  readonly runsPerPoint?: number;
  /** The services' event loop may stall at most this long (ms) in a valid run; default 250. */
  readonly maxStallMs?: number;
  readonly signal?: AbortSignal;
  /** Overall fraction done (0..1), and which point is running. */
  readonly onProgress?: (fraction: number, point: string) => void;
  /** Each point as soon as it is measured and predicted (a page draws it as it arrives). */
  readonly onPoint?: (point: Fig5Point) => void;
}

/** One run of a point: its seed, what it measured, what the analysis predicted for it. */
export interface Fig5Run {
  readonly seed: number;
  readonly measurement: TestbedMeasurement;
  readonly prediction: TestbedPrediction;
  /** Why the run is not a valid measurement ({@link invalidRun}); undefined when it is. */
  readonly invalid: string | undefined;
}

/** One point of the sweep: the run reported, and the runs discarded before it. */
export interface Fig5Point extends Fig5Run {
  /** γ of the lowest class in the file's units. */
  readonly gammaLow: number;
  readonly limit: Fig5Limit;
  /** Invalid runs of this point, discarded and run again (in order). */
  readonly discarded: readonly Fig5Run[];
}

/** The setup of a sweep, as run (every default resolved). */
export interface Fig5Setup {
  readonly networkName: string;
  readonly routingName?: string;
  readonly entry: string;
  readonly high: string;
  readonly low: string;
  readonly gammaHigh: number;
  readonly gammaLows: readonly number[];
  readonly limits: readonly Fig5Limit[];
  readonly scale: number;
  readonly warmupS: number;
  readonly durationS: number;
  readonly graceS: number;
  readonly backoff: BackoffDescription;
  readonly seed: number;
  readonly sidecars: boolean;
  readonly transport: TestbedTransport;
  readonly runsPerPoint: number;
  readonly maxStallMs: number;
}

/** A whole sweep. */
export interface Fig5Result {
  readonly setup: Fig5Setup;
  readonly points: readonly Fig5Point[];
  /** Wall-clock seconds of the sweep. */
  readonly seconds: number;
  /** Stopped by the signal before every point ran. */
  readonly aborted: boolean;
}

/** The paper's sweep: γ_low from 50 to 250 in steps of 25 ({@link FIGURE5_GAMMA_LOWS}). */
export const FIG5_GAMMA_LOWS: readonly number[] = FIGURE5_GAMMA_LOWS;

/** DiffTry k = (5, 1) against uniform k = (5, 5), for a network with classes high and low. */
export function fig5Limits(high: string, low: string): Fig5Limit[] {
  return figure5Limits(high, low);
}

/** The full run's settings and `--quick`'s (3 points, short windows: about 2 minutes). */
export const FIG5_PRESETS = Object.freeze({
  full: Object.freeze({ gammaLows: FIG5_GAMMA_LOWS, warmupS: 6, durationS: 40 }),
  quick: Object.freeze({
    gammaLows: [50, 150, 250] as readonly number[],
    warmupS: 5,
    durationS: 12,
  }),
});

/**
 * The DiffTry paper's Figure 5 on the live testbed: hotelReservation with the frontend as the
 * bottleneck, γ_high fixed and γ_low swept, DiffTry's k = (5, 1) against uniform k = (5, 5). Each
 * point starts a fresh testbed ({@link measureTestbed}), loads it, and is predicted for the same
 * network with the capacities calibrated during its own window, in call-graph and (when given)
 * routing form ({@link predictTestbed}). Points run one after another, γ_low ascending, both
 * retry configurations at each γ_low.
 * @example
 * ```ts
 * const result = await runFig5({ network: hotelCalls, routing: hotel, ...FIG5_PRESETS.quick });
 * ```
 */
export async function runFig5(options: Readonly<Fig5Options>): Promise<Fig5Result> {
  const started = performance.now();
  const { network, routing, signal, onProgress } = options;
  const high = network.classes[0]?.name as string;
  const low = network.classes[network.classes.length - 1]?.name as string;
  if (network.classes.length < 2) {
    throw new InvalidArgumentError('the Figure 5 sweep needs a network with at least two classes');
  }
  const entry =
    options.entry ??
    network.services.find((s) => Object.values(s.arrivals).some((rate) => rate > 0))?.name;
  if (entry === undefined || !network.services.some((s) => s.name === entry)) {
    throw new InvalidArgumentError(
      `the Figure 5 sweep needs an entry service; ${entry === undefined ? 'the network has none with arrivals' : `no service is named "${entry}"`}`,
    );
  }
  const setup: Fig5Setup = {
    networkName: network.name ?? 'network',
    ...(routing !== undefined && { routingName: routing.name ?? 'routing form' }),
    entry,
    high,
    low,
    gammaHigh: options.gammaHigh ?? FIGURE5_GAMMA_HIGH,
    gammaLows: options.gammaLows ?? FIG5_PRESETS.full.gammaLows,
    limits: options.limits ?? fig5Limits(high, low),
    scale: options.scale ?? 0.5,
    warmupS: options.warmupS ?? FIG5_PRESETS.full.warmupS,
    durationS: options.durationS ?? FIG5_PRESETS.full.durationS,
    graceS: options.graceS ?? DEFAULT_GRACE_S,
    backoff: options.backoff ?? TESTBED_BACKOFF,
    seed: options.seed ?? 5,
    sidecars: (options.transport ?? 'http') === 'http' && (options.sidecars ?? true),
    transport: options.transport ?? 'http',
    runsPerPoint: options.runsPerPoint ?? 2,
    maxStallMs: options.maxStallMs ?? 250,
  };
  if (!(Number.isInteger(setup.runsPerPoint) && setup.runsPerPoint >= 1)) {
    throw new InvalidArgumentError(
      `runsPerPoint should be an integer ≥ 1, got ${setup.runsPerPoint}`,
    );
  }
  const plan = setup.gammaLows.flatMap((gammaLow) =>
    setup.limits.map((limit) => ({ gammaLow, limit })),
  );
  const points: Fig5Point[] = [];
  for (const [i, { gammaLow, limit }] of plan.entries()) {
    if (signal?.aborted) break;
    const label = `γ_low = ${gammaLow}, ${limit.label}`;
    onProgress?.(i / plan.length, label);
    const swept = specAtFigure5Point(network, gammaLow, {
      bottleneck: entry,
      gammaHigh: setup.gammaHigh,
      high,
      low,
    });
    const runs: Fig5Run[] = [];
    for (let attempt = 0; attempt < setup.runsPerPoint; attempt++) {
      // A re-run draws new gaps, service times and delays: seeds 1000 apart never meet.
      const seed = setup.seed + i + 1000 * attempt;
      const measureOptions: MeasureOptions = {
        scale: setup.scale,
        retries: limit.retries,
        backoff: setup.backoff,
        seed,
        sidecars: setup.sidecars,
        transport: setup.transport,
        edgeThread: options.edgeThread ?? true,
        warmupS: setup.warmupS,
        durationS: setup.durationS,
        graceS: setup.graceS,
        ...(signal !== undefined && { signal }),
        onProgress: (fraction) => onProgress?.((i + fraction) / plan.length, label),
      };
      const measurement = await measureTestbed(swept, measureOptions);
      if (measurement.aborted) break;
      const run: Fig5Run = {
        seed,
        measurement,
        prediction: predictTestbed(measurement, routing),
        invalid: invalidRun(measurement, setup.maxStallMs),
      };
      runs.push(run);
      if (run.invalid === undefined) break;
    }
    const last = runs[runs.length - 1];
    if (last === undefined || last.measurement.aborted || signal?.aborted) break;
    const point: Fig5Point = { ...last, gammaLow, limit, discarded: runs.slice(0, -1) };
    points.push(point);
    options.onPoint?.(point);
  }
  onProgress?.(1, 'done');
  return {
    setup,
    points,
    seconds: (performance.now() - started) / 1000,
    aborted: points.length < plan.length,
  };
}
