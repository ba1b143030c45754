import { type NetworkSpec, toNetworkModel } from 'difftry/config';
import { toNetworkSimulationOptions } from 'difftry/experiments';
import { type SweptParameter, withSweptValue } from 'difftry/model';
import { replicateWithProgress } from 'difftry/sim';
import type { SweepConfigurationKey } from './sweepPrediction.js';

/** How long and how often each point of a simulated sweep runs. */
export interface SweepRunLength {
  /** Replications per point (2 or more for confidence intervals). */
  readonly replications: number;
  /** Measured virtual seconds per replication. */
  readonly duration: number;
  /** Virtual seconds before the measured window. */
  readonly warmup: number;
  /** Seed of every point's replications (each point uses substreams 0 … replications − 1). */
  readonly seed: number;
}

/**
 * The view's default run: 5 replications × 20 s (warm-up 5 s), seed 1, a few seconds of wall
 * time for hotelReservation's whole sweep under both configurations.
 */
export const DEFAULT_SWEEP_RUN: SweepRunLength = Object.freeze({
  replications: 5,
  duration: 20,
  warmup: 5,
  seed: 1,
});

/** What the page asks the worker to simulate. */
export interface SweepSimulationRequest {
  /** The file with the view's parameters written in. */
  readonly network: NetworkSpec;
  readonly parameter: SweptParameter;
  readonly values: readonly number[];
  /** The configurations simulated at every value, in order. */
  readonly configurations: readonly SweepConfigurationKey[];
  readonly run: SweepRunLength;
}

/** One simulated point: a configuration, a swept value, each class's rejection and 95 % half-width. */
export interface SimulatedSweepPoint {
  readonly configuration: SweepConfigurationKey;
  readonly value: number;
  readonly classes: Readonly<
    Record<string, { readonly rejection: number; readonly rejectionCi95: number }>
  >;
}

/**
 * Simulates the sweep chart's points with the network simulator, as `difftry simulate --sweep`
 * does for an arrival rate: every value under each configuration asked for, DiffTry (the file's
 * limits) and uniform limits (the simulator's `uniform` strategy: every class the highest
 * class's k at every hop), each replicated with the file's service times, backoffs and timeouts
 * (`toNetworkSimulationOptions`). Synchronous and CPU only: the worker runs it.
 * @param onProgress the fraction of the whole sweep done, 0 to 1
 * @param onPoint each point as soon as it is simulated
 */
export function simulateSweepPoints(
  request: SweepSimulationRequest,
  onProgress: (fraction: number) => void,
  onPoint: (point: SimulatedSweepPoint) => void,
): void {
  const { network, parameter, values, configurations, run } = request;
  const model = toNetworkModel(network);
  const simulation = toNetworkSimulationOptions(network, run);
  const total = configurations.length * values.length;
  let done = 0;
  for (const configuration of configurations) {
    for (const value of values) {
      const result = replicateWithProgress(
        withSweptValue(model, parameter, value),
        // A configuration's key is the simulator's strategy of that name.
        { ...simulation, strategy: configuration },
        run.replications,
        (fraction) => onProgress((done + fraction) / total),
      );
      done += 1;
      onPoint({
        configuration,
        value,
        classes: Object.fromEntries(
          Object.entries(result.endToEnd).map(([name, e]) => [
            name,
            { rejection: e.rejection, rejectionCi95: e.rejectionCi95 },
          ]),
        ),
      });
    }
  }
}
