/**
 * What the experiments of docs/metastability.md run on and for how long: scripts/metastability.ts
 * gives the full lengths, test/scripts/metastability.test.ts reduced ones.
 */

import type { NetworkSpec } from '../../config/schema.js';
import type { LoadSchedule } from '../../model/network/LoadSchedule.js';

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
