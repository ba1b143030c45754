/**
 * The DiffTry paper's Figure 5 sweep, defined once: hotelReservation with the frontend as the
 * bottleneck, γ_high fixed at 50 requests/s and γ_low swept from 50 to 250 in steps of 25,
 * DiffTry's per-class retry limits k = (5, 1) against uniform k = (5, 5). The simulated Figure 5
 * (scripts/figure5.ts), the strategies comparison (scripts/strategies.ts), the network validation
 * (scripts/validate-networks.ts) and the live testbed (`difftry testbed fig5`,
 * src/testbed/experiment/fig5.ts) all run it from here.
 */

import type { NetworkSpec } from '../../config/schema.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';

/** The service whose external arrivals are swept: hotelReservation's frontend, the bottleneck. */
export const FIGURE5_BOTTLENECK = 'frontend';

/** γ of the high class at the bottleneck, requests per second: 50. */
export const FIGURE5_GAMMA_HIGH = 50;

/** γ of the low class at each point, requests per second: 50, 75, …, 250. */
export const FIGURE5_GAMMA_LOWS: readonly number[] = Object.freeze([
  50, 75, 100, 125, 150, 175, 200, 225, 250,
]);

/** The heaviest point's γ_low (250 requests/s: ρ ≈ 2.1 at the frontend), where reports headline. */
export const FIGURE5_HEAVIEST_GAMMA_LOW = 250;

/**
 * The paper's Fig. 5(c): median end-to-end latency at the heaviest point, seconds, read off the
 * figure (Envoy on Kubernetes, Envoy's default retry delay: fully jittered exponential from a
 * 25 ms base). Under uniform retries every class waits about 270 ms; under DiffTry the low class
 * about 20 ms (it gives up fast) and the high class about 70 ms.
 */
export const FIGURE5_PAPER_MEDIAN_LATENCY_S = Object.freeze({
  uniform: 0.27,
  diffTry: Object.freeze({ high: 0.07, low: 0.02 }),
});

/** One retry configuration of the sweep: a key such as `5/1`, a label, the limit of every class. */
export interface Figure5Limit {
  readonly key: string;
  readonly label: string;
  readonly retries: Readonly<Record<string, number>>;
}

/**
 * The two retry configurations compared: DiffTry k = (5, 1) and uniform k = (5, 5), for a
 * network whose highest class is `high` and lowest `low` (default the class names of
 * hotelReservation, `high` and `low`).
 * @example
 * ```ts
 * figure5Limits()[0]; // { key: '5/1', label: 'DiffTry k = (5, 1)', retries: { high: 5, low: 1 } }
 * ```
 */
export function figure5Limits(high = 'high', low = 'low'): Figure5Limit[] {
  return figure5LimitPairs(
    [
      [5, 1],
      [5, 5],
    ],
    high,
    low,
  );
}

/**
 * A sweep's retry configurations from `(k_high, k_low)` pairs, in order: the first is DiffTry's
 * (the one the high-class cut is measured against), the last uniform (k_high = k_low). The key is
 * `H/L`, the label names DiffTry or uniform by whether the two limits differ.
 * @throws RangeError unless there are at least two pairs of integers in [0, 100], the last
 *   uniform and all distinct.
 * @example
 * ```ts
 * figure5LimitPairs([[4, 1], [4, 4]]); // gRPC's cap of 5 attempts: (4, 1) against (4, 4)
 * ```
 */
export function figure5LimitPairs(
  pairs: readonly (readonly [number, number])[],
  high = 'high',
  low = 'low',
): Figure5Limit[] {
  if (pairs.length < 2)
    throw new InvalidArgumentError('expected at least two retry configurations');
  const keys = new Set<string>();
  const limits = pairs.map(([kHigh, kLow]) => {
    for (const k of [kHigh, kLow]) {
      if (!(Number.isInteger(k) && k >= 0 && k <= 100)) {
        throw new InvalidArgumentError(
          `expected retry limits that are integers from 0 to 100, got ${k}`,
        );
      }
    }
    const key = `${kHigh}/${kLow}`;
    if (keys.has(key)) throw new InvalidArgumentError(`the configuration ${key} is given twice`);
    keys.add(key);
    const label = `${kHigh === kLow ? 'uniform' : 'DiffTry'} k = (${kHigh}, ${kLow})`;
    return { key, label, retries: { [high]: kHigh, [low]: kLow } };
  });
  const [lastHigh, lastLow] = pairs[pairs.length - 1] as readonly [number, number];
  if (lastHigh !== lastLow) {
    throw new InvalidArgumentError(
      `the last configuration is the uniform baseline (k_high = k_low), got ${lastHigh}/${lastLow}`,
    );
  }
  return limits;
}

/** Where and how much load a point of the sweep puts on a network; every field has a default. */
export interface Figure5PointOptions {
  /** The service whose arrivals are set; default {@link FIGURE5_BOTTLENECK}. */
  readonly bottleneck?: string;
  /** γ of the high class, requests/s; default {@link FIGURE5_GAMMA_HIGH}. */
  readonly gammaHigh?: number;
  /** The highest class's name; default `high`. */
  readonly high?: string;
  /** The lowest class's name; default `low`. */
  readonly low?: string;
}

/**
 * A network file at one point of the sweep: the bottleneck's external arrivals become
 * `{ high: gammaHigh, low: gammaLow }` (and nothing else); every other service is unchanged.
 */
export function specAtFigure5Point(
  network: NetworkSpec,
  gammaLow: number,
  options: Readonly<Figure5PointOptions> = {},
): NetworkSpec {
  const bottleneck = options.bottleneck ?? FIGURE5_BOTTLENECK;
  const arrivals = {
    [options.high ?? 'high']: options.gammaHigh ?? FIGURE5_GAMMA_HIGH,
    [options.low ?? 'low']: gammaLow,
  };
  return {
    ...network,
    services: network.services.map((s) => (s.name === bottleneck ? { ...s, arrivals } : s)),
  };
}

/**
 * A network model of two classes (high first, low second) at one point of the sweep: the
 * bottleneck's external arrival rates become `[gammaHigh, gammaLow]`.
 */
export function modelAtFigure5Point(
  network: NetworkModel,
  gammaLow: number,
  options: Readonly<Pick<Figure5PointOptions, 'bottleneck' | 'gammaHigh'>> = {},
): NetworkModel {
  const bottleneck = options.bottleneck ?? FIGURE5_BOTTLENECK;
  const gammaHigh = options.gammaHigh ?? FIGURE5_GAMMA_HIGH;
  return {
    ...network,
    services: network.services.map((s) =>
      s.name === bottleneck ? { ...s, arrivals: [gammaHigh, gammaLow] } : s,
    ),
  };
}
