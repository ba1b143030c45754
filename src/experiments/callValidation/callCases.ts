/**
 * The networks of the call-graph validation (scripts/validate-calls.ts, docs/validation-calls.md)
 * and of its test: 50 generated call graphs of 20–300 services (µBench-like and composed
 * DGG-like) and chains of 40 and 300 services.
 */

import {
  generateMuBench,
  type NetworkSpec,
  scaleToBottleneck,
  toNetworkModel,
} from '../../config/index.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import type { NetworkModel, NetworkService } from '../../model/network/NetworkModel.js';
import { composeDgg } from './composedDgg.js';

/** Generated networks per family (µBench-like, composed DGG-like). */
export const FAMILY_SIZE = 25;
/** Least and most services of a generated network. */
export const SIZE_RANGE = [20, 300] as const;
/** Least and most nominal load of a generated network's most loaded service. */
export const RHO_RANGE = [0.7, 2.5] as const;
/** Every queue raised to at least this. */
export const MIN_QUEUE = 20;
/**
 * External requests per second per service of a composed DGG-like network (its `arrivalRate` is
 * this × its services). At the generators' 300/s in all, its 4–60 sub-graphs would share 300/s
 * and most services would have capacities of a few requests per second (median 9/s), their
 * queues relaxing in tens of seconds: too slow for 2 s retry delays to be long against them.
 * At 20/s per service (about 100/s per kind of request) capacities are of the order of the
 * µBench networks'.
 */
export const DGG_RATE_PER_SERVICE = 20;

/** The simulator's seed of the validation (a fresh substream per run, in the cases' order). */
export const CALL_VALIDATION_SEED = 2027;
/** Every retry delay of the validation's simulations: random, exponential with this mean. */
export const CALL_VALIDATION_BACKOFF: BackoffDescription = { kind: 'random', meanMs: 2000 };
/**
 * The simulation of each generated network: requests live long (nested retries 2 s apart at
 * every hop), so a network started idle takes a while to reach its state. Most do within the
 * warm-up, but some were still tipping at the end of the window (their carried load ρ(1 − s)
 * above 1; docs/validation.md, section 7, and scripts/call-closure.ts, which runs them longer).
 * Generated network i has substreams 5i … 5i + 4.
 */
export const GENERATED_RUN = { replications: 5, warmup: 100, duration: 100, window: 20 } as const;

/** One generated call graph of the validation. */
export interface GeneratedCallGraph {
  readonly family: 'mubench' | 'dgg';
  /** `mubench-300`, `dgg-301`, …: the family and the seed. */
  readonly id: string;
  readonly seed: number;
  readonly services: number;
  /** Target nominal load of the most loaded service (ρ₀). */
  readonly rho0: number;
  /** The network file's value, queues raised and arrivals scaled. */
  readonly spec: NetworkSpec;
  readonly network: NetworkModel;
}

/** Slot `a · j mod 25` of 25 evenly spaced values over [low, high]: spreads without sorting. */
function spread(j: number, multiplier: number, [low, high]: readonly [number, number]): number {
  const slot = (j * multiplier) % FAMILY_SIZE;
  return low + ((high - low) * slot) / (FAMILY_SIZE - 1);
}

/**
 * The index of generated call graph `id` (`mubench-300` … `dgg-349`, as {@link generatedCallGraph}
 * names them), without generating any; undefined for an id that names none.
 */
export function generatedCallGraphIndex(id: string): number | undefined {
  const match = /^(mubench|dgg)-(\d+)$/.exec(id);
  if (match === null) return undefined;
  const i = Number(match[2]) - 300;
  const family = i % 2 === 0 ? 'mubench' : 'dgg';
  return i >= 0 && i < 2 * FAMILY_SIZE && family === match[1] ? i : undefined;
}

/**
 * Generated call graph `i` (0 ≤ i < 50): even i µBench-like (`generateMuBench`, form `calls`),
 * odd i composed DGG-like (`composeDgg`, 20 requests/s per service); seed 300 + i; within each
 * family the 25 sizes run
 * evenly over 20–300 services and the 25 bottleneck loads over 0.7–2.5, each in its own
 * permuted order so that size and load are not tied. Queues are raised to 20 and every external
 * rate scaled so the most loaded service has nominal load ρ₀ (`scaleToBottleneck`).
 */
export function generatedCallGraph(i: number): GeneratedCallGraph {
  if (!(Number.isInteger(i) && i >= 0 && i < 2 * FAMILY_SIZE)) {
    throw new InvalidArgumentError(
      `i should be an integer from 0 to ${2 * FAMILY_SIZE - 1}, got ${i}`,
    );
  }
  const family = i % 2 === 0 ? 'mubench' : 'dgg';
  const j = Math.floor(i / 2);
  const seed = 300 + i;
  const services = Math.round(spread(j, family === 'mubench' ? 7 : 11, SIZE_RANGE));
  const rho0 = spread(family === 'mubench' ? j : j + 3, family === 'mubench' ? 11 : 7, RHO_RANGE);
  const raw =
    family === 'mubench'
      ? generateMuBench({ services, classes: 2, seed, form: 'calls' })
      : composeDgg({ services, seed, arrivalRate: DGG_RATE_PER_SERVICE * services });
  const spec = scaleToBottleneck(raw, rho0, { minQueue: MIN_QUEUE });
  return {
    family,
    id: `${family}-${seed}`,
    seed,
    services,
    rho0,
    spec,
    network: toNetworkModel(spec),
  };
}

/** The chains' service capacity μ, requests/s. */
export const CHAIN_CAPACITY = 1000;
/** External rates at the chain's top per unit of load, (high, low), requests/s. */
export const CHAIN_RATES = [50, 250] as const;

/**
 * A chain s0 → s1 → … → s(length − 1) of call-graph services, each μ = 1000/s with queue m and
 * the `mixed` law, two classes with k = (5, 1) at every hop, γ = load × (50, 250) requests/s at
 * s0. Every hop carries the whole flow, so its nominal load is 0.3 × load.
 */
export function chainNetwork(length: number, load: number, queue: number): NetworkModel {
  const services: NetworkService[] = Array.from({ length }, (_, i) => ({
    name: `s${i}`,
    capacity: CHAIN_CAPACITY,
    queue,
    model: 'mixed',
    arrivals: i === 0 ? CHAIN_RATES.map((rate) => rate * load) : [0, 0],
    retryLimits: [5, 1],
    routes: [],
    calls: i < length - 1 ? [{ to: i + 1, n: 1 }] : [],
  }));
  return {
    mode: 'calls',
    classes: [
      { name: 'high', retryLimit: 5 },
      { name: 'low', retryLimit: 1 },
    ],
    services,
  };
}
