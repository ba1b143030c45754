import type { Histogram } from 'hdr-histogram-js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { meanWithCi95 } from '../stats/confidence.js';
import {
  createLatencyHistogram,
  LATENCY_PERCENTILES,
  latencyPercentileSeconds,
} from '../stats/latencyHistogram.js';
import { resolveSingleServiceConfig, type SingleServiceConfig } from './SingleServiceConfig.js';
import type {
  ClassMeasurement,
  ServiceMeasurement,
  SingleServiceResult,
} from './SingleServiceResult.js';
import { runSingleService } from './singleService.js';

/**
 * Every numeric figure of `T` as the mean over replications, with the half-width of its 95 %
 * confidence interval beside it under the same name plus `Ci95` (`rejection`, `rejectionCi95`).
 */
export type WithCi95<T> = { readonly [K in keyof T]: number } & {
  readonly [K in keyof T as `${K & string}Ci95`]: number;
};

/** A class's figures over replications (see {@link replicateSingleService} for percentiles). */
export type ReplicatedClassMeasurement = WithCi95<ClassMeasurement>;

/** Result of {@link replicateSingleService}: the flat shape `difftry simulate --json` prints. */
export type ReplicatedSingleServiceResult = WithCi95<ServiceMeasurement> & {
  /** Independent replications run. */
  readonly replications: number;
  /** Measured window of each replication, seconds. */
  readonly duration: number;
  /** Warm-up of each replication, seconds. */
  readonly warmup: number;
  /** Events processed by all replications together. */
  readonly events: number;
  /** Per class, keyed by class name, in configuration order. */
  readonly classes: Readonly<Record<string, ReplicatedClassMeasurement>>;
};

/** Options of {@link replicateSingleService}. */
export interface ReplicateOptions {
  /** Called now and then with the fraction (0..1) of the whole work done, and at the end with 1. */
  readonly onProgress?: (fraction: number) => void;
}

const SERVICE_FIELDS = ['s', 'rho', 'meanInSystem', 'throughput', 'meanSojourn'] as const;

/**
 * Runs `replications` independent replications of {@link simulateSingleService} (replication r
 * uses substream `stream + r` of the seed) and estimates each figure with a 95 % confidence
 * interval by the method of independent replications: the mean of the per-replication values,
 * ± t_{0.975, R−1} · sd / √R. With one replication every `Ci95` is NaN (`null` in JSON).
 *
 * Latency percentiles are read from the histograms of all replications pooled, which estimates
 * a tail percentile (p99.9) with all the samples rather than averaging R noisy, biased ones;
 * their `Ci95` is the t half-width of the per-replication percentiles, an approximation of the
 * pooled estimate's uncertainty. Every other figure is the mean of the per-replication values.
 *
 * @param replications - an integer ≥ 1; 2 or more for confidence intervals.
 * @example
 * ```ts
 * const result = replicateSingleService(
 *   {
 *     capacity: 143,
 *     queue: 50,
 *     classes: [
 *       { name: 'high', arrivalRate: 50, retryLimit: 5 },
 *       { name: 'low', arrivalRate: 250, retryLimit: 1 },
 *     ],
 *     duration: 60,
 *     seed: 1,
 *   },
 *   10,
 * );
 * result.classes.high?.rejection; // ≈ 0.21
 * result.classes.high?.rejectionCi95; // ≈ 0.005
 * ```
 */
export function replicateSingleService(
  config: Readonly<SingleServiceConfig>,
  replications: number,
  options: Readonly<ReplicateOptions> = {},
): ReplicatedSingleServiceResult {
  if (!(Number.isInteger(replications) && replications >= 1)) {
    throw new InvalidArgumentError(`replications should be an integer ≥ 1, got ${replications}`);
  }
  const resolved = resolveSingleServiceConfig(config);
  const { onProgress } = options;
  const results: SingleServiceResult[] = [];
  const pooled: Histogram[] = resolved.classes.map(() => createLatencyHistogram());
  for (let r = 0; r < replications; r++) {
    const output = runSingleService(
      { ...resolved, stream: resolved.stream + r },
      onProgress === undefined
        ? {}
        : { onProgress: (fraction) => onProgress((r + fraction) / replications) },
    );
    results.push(output.result);
    output.histograms.forEach((histogram, index) => {
      (pooled[index] as Histogram).add(histogram);
    });
  }

  const service = estimate(results, SERVICE_FIELDS);
  const classFields = Object.keys(
    (results[0] as SingleServiceResult).classes[resolved.classes[0]?.name as string] as object,
  ) as (keyof ClassMeasurement)[];
  const classes: Record<string, ReplicatedClassMeasurement> = {};
  resolved.classes.forEach(({ name }, index) => {
    const perReplication = results.map((result) => result.classes[name] as ClassMeasurement);
    const estimates = estimate(perReplication, classFields) as Record<string, number>;
    const histogram = pooled[index] as Histogram;
    for (const { percentile, field } of LATENCY_PERCENTILES) {
      estimates[field] = latencyPercentileSeconds(histogram, percentile);
    }
    classes[name] = estimates as ReplicatedClassMeasurement;
  });
  let events = 0;
  for (const result of results) events += result.events;
  return {
    replications,
    duration: resolved.duration,
    warmup: resolved.warmup,
    events,
    ...(service as WithCi95<ServiceMeasurement>),
    classes,
  };
}

/** Mean and 95 % half-width of each field over the per-replication records. */
function estimate<T, K extends keyof T & string>(
  records: readonly T[],
  fields: readonly K[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const field of fields) {
    const { mean, ci95 } = meanWithCi95(records.map((record) => record[field] as number));
    out[field] = mean;
    out[`${field}Ci95`] = ci95;
  }
  return out;
}
