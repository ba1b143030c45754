/**
 * What the experiments of docs/metastability.md find (`runMetastability`): each simulated run
 * beside the analysis at its load, the ramps beside the branches, hotelReservation's analyses and
 * runs, and the tuner's grids. Everything the page, its CSV files and its charts show.
 */

import type { MeanWithCi95 } from '../../stats/confidence.js';
import type { WindowReplications } from '../simulation/windowReplications.js';
import type { Branches, PointAnalysis } from './metastabilityAnalysis.js';
import type { ClassName, LimitsKey } from './metastabilityLimits.js';
import type { CapacityStep } from './scheduledNetwork.js';
import type { RampCrossing, StormSummary } from './stormWindows.js';

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
