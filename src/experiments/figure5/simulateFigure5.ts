/**
 * The DiffTry paper's Figure 5 in simulation (docs/figure5.*): the sweep of figure5Sweep.ts on
 * hotelReservation in routing and call-graph form, each point simulated (`replicateNetwork`) and
 * analysed (`analyzeNetwork`). The simulator's `load` and latency fields are read defensively: a
 * field it does not report is NaN (written n/a). CPU only: no timer, no file.
 */

import { builtinExample, parseNetwork, toNetworkModel } from '../../config/index.js';
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { replicateNetwork } from '../../sim/network/replicateNetwork.js';
import { FIGURE5_GAMMA_LOWS, figure5Limits, modelAtFigure5Point } from './figure5Sweep.js';

/** The two forms of hotelReservation simulated: the built-in example and its label. */
export const FIGURE5_FORMS = [
  { example: 'hotel', label: 'routing form' },
  { example: 'hotel-calls', label: 'call-graph form' },
] as const;

/** The classes reported, highest first. */
export const FIGURE5_CLASSES = ['high', 'low'] as const;

/** One of {@link FIGURE5_CLASSES}. */
export type Figure5Class = (typeof FIGURE5_CLASSES)[number];

/** How long and how often each point is simulated, and with what retry delay. */
export interface SimulatedFigure5Setup {
  /** Replications per point. */
  readonly replications: number;
  /** Measured virtual seconds per replication. */
  readonly duration: number;
  /** Virtual seconds before the window. */
  readonly warmup: number;
  /** The retry delay of every class: random (exponential) with this mean. */
  readonly backoff: { readonly kind: 'random'; readonly meanMs: number };
  /** Seed of the run; each point takes the next `replications` substreams. */
  readonly seed: number;
}

/** The setup of docs/figure5.*: 10 replications × 150 s (warm-up 30 s), delay mean 2 s, seed 5. */
export const SIMULATED_FIGURE5_DEFAULTS: SimulatedFigure5Setup = Object.freeze({
  replications: 10,
  duration: 150,
  warmup: 30,
  backoff: Object.freeze({ kind: 'random', meanMs: 2000 } as const),
  seed: 5,
});

/** One point and class: simulated figures (mean, 95 % half-width) beside the analysis's. */
export interface Figure5Row {
  readonly form: string;
  /** The retry configuration's key, `5/1` or `5/5`. */
  readonly k: string;
  readonly gammaLow: number;
  readonly cls: Figure5Class;
  readonly simRejection: number;
  readonly simRejectionCi95: number;
  readonly predRejection: number;
  readonly simAttemptsPerRequest: number;
  readonly simAttemptsPerRequestCi95: number;
  readonly simAttemptsPerSuccess: number;
  readonly simAttemptsPerSuccessCi95: number;
  readonly predAttemptsPerRequest: number;
  readonly predAttemptsPerSuccess: number;
  readonly simInternalPerRequest: number;
  readonly simInternalPerRequestCi95: number;
  readonly simInternalPerSuccess: number;
  readonly predInternalPerRequest: number;
  readonly predInternalPerSuccess: number;
  readonly simLatencyP50: number;
  readonly simLatencyP99: number;
}

/** Where a run reports as it goes; both optional. */
export interface SimulatedFigure5Hooks {
  /** After each point (both classes). */
  readonly onPoint?: (point: {
    readonly form: string;
    readonly k: string;
    readonly gammaLow: number;
  }) => void;
  /** When the analysis does not converge at a point (the run goes on). */
  readonly onWarning?: (message: string) => void;
}

function load(example: string, retries: Readonly<Record<string, number>>): NetworkModel {
  const { fileName, text } = builtinExample(example);
  return toNetworkModel(parseNetwork(text, fileName), { retries: { ...retries } });
}

/** A number at `path` inside `value`, or NaN when any step is missing or not a number. */
function pick(value: unknown, ...path: string[]): number {
  let at: unknown = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return Number.NaN;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'number' ? at : Number.NaN;
}

/**
 * Runs the simulated Figure 5: per form, per retry configuration, per γ_low, both classes.
 * @example
 * ```ts
 * const rows = runSimulatedFigure5(SIMULATED_FIGURE5_DEFAULTS); // under two minutes on 2 cores
 * ```
 */
export function runSimulatedFigure5(
  setup: Readonly<SimulatedFigure5Setup>,
  hooks: Readonly<SimulatedFigure5Hooks> = {},
  gammaLows: readonly number[] = FIGURE5_GAMMA_LOWS,
): Figure5Row[] {
  const { replications, duration, warmup, backoff, seed } = setup;
  const limits = figure5Limits();
  const rows: Figure5Row[] = [];
  let stream = 0;
  for (const form of FIGURE5_FORMS) {
    for (const limit of limits) {
      for (const gammaLow of gammaLows) {
        const network = modelAtFigure5Point(load(form.example, limit.retries), gammaLow);
        const predicted: NetworkReport = analyzeNetwork(network);
        if (!predicted.converged) {
          hooks.onWarning?.(`analysis did not converge (${form.example}, ${gammaLow})`);
        }
        const simulated: unknown = replicateNetwork(
          network,
          { duration, warmup, seed, stream, backoff },
          replications,
        );
        stream += replications;
        for (const cls of FIGURE5_CLASSES) {
          rows.push({
            form: form.example,
            k: limit.key,
            gammaLow,
            cls,
            simRejection: pick(simulated, 'endToEnd', cls, 'rejection'),
            simRejectionCi95: pick(simulated, 'endToEnd', cls, 'rejectionCi95'),
            predRejection: predicted.endToEnd[cls]?.rejection ?? Number.NaN,
            simAttemptsPerRequest: pick(simulated, 'load', 'attemptsPerRequest'),
            simAttemptsPerRequestCi95: pick(simulated, 'load', 'attemptsPerRequestCi95'),
            simAttemptsPerSuccess: pick(simulated, 'load', 'attemptsPerSuccess'),
            simAttemptsPerSuccessCi95: pick(simulated, 'load', 'attemptsPerSuccessCi95'),
            predAttemptsPerRequest: predicted.load.attemptsPerRequest,
            predAttemptsPerSuccess: predicted.load.attemptsPerSuccess,
            simInternalPerRequest: pick(simulated, 'load', 'internalPerRequest'),
            simInternalPerRequestCi95: pick(simulated, 'load', 'internalPerRequestCi95'),
            simInternalPerSuccess: pick(simulated, 'load', 'internalPerSuccess'),
            predInternalPerRequest: predicted.load.internalPerRequest,
            predInternalPerSuccess: predicted.load.internalPerSuccess,
            simLatencyP50: pick(simulated, 'endToEnd', cls, 'latencyP50'),
            simLatencyP99: pick(simulated, 'endToEnd', cls, 'latencyP99'),
          });
        }
        hooks.onPoint?.({ form: form.example, k: limit.key, gammaLow });
      }
    }
  }
  return rows;
}

/** The row of `form`, retry configuration `k`, `gammaLow` and `cls`, if the run has it. */
export function findFigure5Row(
  rows: readonly Figure5Row[],
  form: string,
  k: string,
  gammaLow: number,
  cls: Figure5Class,
): Figure5Row | undefined {
  return rows.find((r) => r.form === form && r.k === k && r.gammaLow === gammaLow && r.cls === cls);
}
