import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { meanWithCi95 } from '../../stats/confidence.js';
import type { ReplicateOptions, WithCi95 } from '../replicate.js';
import type {
  NetworkSimulationResult,
  SimulatedEndToEnd,
  SimulatedLoad,
  SimulatedServiceClass,
} from './NetworkSimulationResult.js';
import { type ReplicatedWindow, replicateWindows } from './replicateWindows.js';
import { type SimulateNetworkOptions, simulateNetwork } from './simulateNetwork.js';

/** A class at a service over replications: `in`, `out`, `attempts`, `rejection`, each with `Ci95`. */
export type ReplicatedServiceClass = WithCi95<SimulatedServiceClass>;

/** A service over replications: `s` and `rho` with their `Ci95`, and its classes. */
export type ReplicatedService = WithCi95<{ readonly s: number; readonly rho: number }> & {
  readonly classes: Readonly<Record<string, ReplicatedServiceClass>>;
};

/**
 * A class end to end over replications: counts, rejection, completion, attempts per request and
 * latency, each with `Ci95`. The latency percentiles are the mean of the per-replication
 * percentiles (not of a pooled histogram), so that they carry a confidence interval like every
 * other figure; `latencyMean` is the mean of the per-replication means.
 */
export type ReplicatedEndToEnd = WithCi95<SimulatedEndToEnd>;

/** The network's load over replications, each figure with its `Ci95`. */
export type ReplicatedLoad = WithCi95<SimulatedLoad>;

/** Result of {@link replicateNetwork}: the flat shape `difftry simulate --json` prints. */
export interface ReplicatedNetworkResult {
  readonly classes: NetworkSimulationResult['classes'];
  /** Per service, keyed by service name, in network order. */
  readonly services: Readonly<Record<string, ReplicatedService>>;
  /** Per class, keyed by class name. */
  readonly endToEnd: Readonly<Record<string, ReplicatedEndToEnd>>;
  /** Attempts per second, per external request and per completed one, with `Ci95`. */
  readonly load: ReplicatedLoad;
  /** The retry strategy simulated. */
  readonly strategy: NetworkSimulationResult['strategy'];
  /** Independent replications run. */
  readonly replications: number;
  /** Measured window of each replication, seconds. */
  readonly duration: number;
  /** Warm-up of each replication, seconds. */
  readonly warmup: number;
  /** Events processed by all replications together. */
  readonly events: number;
  /**
   * The windows of the runs (when `windowSeconds` was given; absent otherwise), averaged window by
   * window over the replications, each figure with its `Ci95`.
   */
  readonly windows?: readonly ReplicatedWindow[];
}

const SERVICE_CLASS_FIELDS = ['in', 'out', 'attempts', 'timeouts', 'rejection'] as const;
const END_TO_END_FIELDS = [
  'originals',
  'completed',
  'rejected',
  'rejection',
  'completion',
  'attemptsPerRequest',
  'latencyMean',
  'latencyP50',
  'latencyP99',
] as const;
const LOAD_FIELDS = [
  'external',
  'attempts',
  'attemptsPerRequest',
  'attemptsPerSuccess',
  'internalPerRequest',
  'internalPerSuccess',
] as const;

/**
 * Runs `replications` independent replications of {@link simulateNetwork} (replication r uses
 * substream `stream + r` of the seed) and estimates every figure, per service and class and end
 * to end, as the mean of the per-replication values with the half-width of its 95 % confidence
 * interval beside it (t_{0.975, R−1} · sd / √R). With one replication every `Ci95` is NaN.
 *
 * `onProgress` is called after each replication with the fraction of replications done.
 * @param replications - an integer ≥ 1; 2 or more for confidence intervals.
 * @throws RangeError for a bad `replications` and whatever {@link simulateNetwork} refuses.
 * @example
 * ```ts
 * const result = replicateNetwork(toNetworkModel(spec), { duration: 100, seed: 1 }, 10);
 * result.endToEnd.low?.rejection; // mean over 10 runs
 * result.endToEnd.low?.rejectionCi95; // its 95 % half-width
 * ```
 */
export function replicateNetwork(
  network: NetworkModel,
  options: Readonly<SimulateNetworkOptions>,
  replications: number,
  { onProgress }: Readonly<ReplicateOptions> = {},
): ReplicatedNetworkResult {
  if (!(Number.isInteger(replications) && replications >= 1)) {
    throw new InvalidArgumentError(`replications should be an integer ≥ 1, got ${replications}`);
  }
  const stream = options.stream ?? 0;
  const results: NetworkSimulationResult[] = [];
  for (let r = 0; r < replications; r++) {
    results.push(simulateNetwork(network, { ...options, stream: stream + r }));
    onProgress?.((r + 1) / replications);
  }
  const first = results[0] as NetworkSimulationResult;

  const services: Record<string, ReplicatedService> = {};
  for (const [name, service] of Object.entries(first.services)) {
    const perReplication = results.map((result) => result.services[name]);
    const classes: Record<string, ReplicatedServiceClass> = {};
    for (const className of Object.keys(service.classes)) {
      classes[className] = estimate(
        perReplication.map((s) => s?.classes[className]),
        SERVICE_CLASS_FIELDS,
      ) as ReplicatedServiceClass;
    }
    services[name] = {
      ...(estimate(perReplication, ['s', 'rho']) as WithCi95<{ s: number; rho: number }>),
      classes,
    };
  }

  const endToEnd: Record<string, ReplicatedEndToEnd> = {};
  for (const className of Object.keys(first.endToEnd)) {
    endToEnd[className] = estimate(
      results.map((result) => result.endToEnd[className]),
      END_TO_END_FIELDS,
    ) as ReplicatedEndToEnd;
  }

  let events = 0;
  for (const result of results) events += result.events;
  return {
    classes: first.classes,
    services,
    endToEnd,
    load: estimate(
      results.map((result) => result.load),
      LOAD_FIELDS,
    ) as ReplicatedLoad,
    strategy: first.strategy,
    replications,
    duration: first.duration,
    warmup: first.warmup,
    events,
    ...(first.windows === undefined
      ? {}
      : { windows: replicateWindows(results.map((result) => result.windows ?? [])) }),
  };
}

/** Mean and 95 % half-width of each field over the per-replication records. */
function estimate<K extends string>(
  records: readonly (Readonly<Record<K, number>> | undefined)[],
  fields: readonly K[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const field of fields) {
    const { mean, ci95 } = meanWithCi95(records.map((record) => record?.[field] ?? Number.NaN));
    out[field] = mean;
    out[`${field}Ci95`] = ci95;
  }
  return out;
}
