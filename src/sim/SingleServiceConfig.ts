import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../core/InvalidArgumentTypeError.js';
import { type BackoffDescription, DEFAULT_BACKOFF } from '../model/backoff/BackoffDescription.js';
import { checkBackoff } from '../model/backoff/retryDelay.js';
import { exponentialDistribution } from '../model/distributions/exponential.js';
import type { ServiceTimeDistribution } from '../model/distributions/ServiceTimeDistribution.js';

/** One priority class of requests arriving at a simulated service. */
export interface SingleServiceClass {
  /** Class name (`high`, `low`…); unique within a configuration. */
  readonly name: string;
  /** λ_p: original (first-attempt) arrivals per second, a Poisson stream; ≥ 0. */
  readonly arrivalRate: number;
  /** k_p: retries after a rejected attempt, so at most k_p + 1 attempts; an integer ≥ 0. */
  readonly retryLimit: number;
  /**
   * Delay before each retry; default {@link DEFAULT_BACKOFF} (exponential, mean 100 ms).
   * @default DEFAULT_BACKOFF (exponential, mean 100 ms)
   */
  readonly backoff?: BackoffDescription;
}

/**
 * One FCFS server with finite room, fed by Poisson arrivals of several classes that retry
 * rejected attempts (docs/design.md, "One service").
 */
export interface SingleServiceConfig {
  /** μ: service capacity, requests per second. Sets the default service time (mean 1/μ) and
   * normalises `rho`. */
  readonly capacity: number;
  /** m: most requests in the system, the one in service included; an integer ≥ 1 or
   * `Infinity`. An attempt that finds m present is rejected at once. */
  readonly queue: number;
  /**
   * Service-time law (seconds); default exponential with mean 1/`capacity`.
   * @default exponential with mean 1/`capacity`
   */
  readonly serviceTime?: ServiceTimeDistribution;
  /** The classes, in the order results list them; at least one. */
  readonly classes: readonly SingleServiceClass[];
  /** Length of the measured window, seconds of virtual time; > 0. */
  readonly duration: number;
  /**
   * Virtual seconds simulated before the measured window opens, so the empty initial state
   * does not bias the figures; default 10 % of `duration`, long against the relaxation of a
   * service whose service and retry-delay times are milliseconds to a second.
   * @default 10 % of `duration`
   */
  readonly warmup?: number;
  /** Seed of the random source (a safe integer). */
  readonly seed: number;
  /**
   * Substream of the seed (default 0); replication r of {@link replicateSingleService} uses
   * `stream + r`.
   * @default 0
   */
  readonly stream?: number;
}

/** Fraction of `duration` simulated as warm-up when `warmup` is not given. */
export const DEFAULT_WARMUP_FRACTION = 0.1;

/** A configuration checked and with its defaults filled in. */
export interface ResolvedSingleServiceConfig {
  readonly capacity: number;
  readonly queue: number;
  readonly serviceTime: ServiceTimeDistribution;
  readonly classes: readonly Required<SingleServiceClass>[];
  readonly duration: number;
  readonly warmup: number;
  readonly seed: number;
  readonly stream: number;
}

/**
 * Checks a configuration and fills in its defaults.
 * @throws RangeError or TypeError naming the first bad value.
 */
export function resolveSingleServiceConfig(
  config: Readonly<SingleServiceConfig>,
): ResolvedSingleServiceConfig {
  const { capacity, queue, duration, seed } = config;
  if (!(Number.isFinite(capacity) && capacity > 0)) {
    throw new InvalidArgumentError(
      `capacity should be a positive finite number of requests/s, got ${capacity}`,
    );
  }
  if (!((Number.isInteger(queue) && queue >= 1) || queue === Number.POSITIVE_INFINITY)) {
    throw new InvalidArgumentError(`queue should be an integer ≥ 1 (or Infinity), got ${queue}`);
  }
  if (!(Number.isFinite(duration) && duration > 0)) {
    throw new InvalidArgumentError(
      `duration should be a positive finite number of seconds, got ${duration}`,
    );
  }
  const warmup = config.warmup ?? DEFAULT_WARMUP_FRACTION * duration;
  if (!(Number.isFinite(warmup) && warmup >= 0)) {
    throw new InvalidArgumentError(
      `warmup should be a non-negative finite number of seconds, got ${warmup}`,
    );
  }
  if (!Number.isSafeInteger(seed)) {
    throw new InvalidArgumentTypeError(`seed should be a safe integer, got ${seed}`);
  }
  const stream = config.stream ?? 0;
  if (!(Number.isInteger(stream) && stream >= 0)) {
    throw new InvalidArgumentError(`stream should be a non-negative integer, got ${stream}`);
  }
  if (!Array.isArray(config.classes) || config.classes.length === 0) {
    throw new InvalidArgumentError('classes should be a non-empty array');
  }
  const names = new Set<string>();
  const classes = config.classes.map((entry, index): Required<SingleServiceClass> => {
    const { name, arrivalRate, retryLimit } = entry;
    if (typeof name !== 'string' || name === '') {
      throw new InvalidArgumentTypeError(
        `classes[${index}].name should be a non-empty string, got ${name}`,
      );
    }
    if (names.has(name))
      throw new InvalidArgumentError(`classes[${index}].name "${name}" is repeated`);
    names.add(name);
    if (!(Number.isFinite(arrivalRate) && arrivalRate >= 0)) {
      throw new InvalidArgumentError(
        `classes[${index}].arrivalRate should be a non-negative finite number of requests/s, got ${arrivalRate}`,
      );
    }
    if (!(Number.isInteger(retryLimit) && retryLimit >= 0)) {
      throw new InvalidArgumentError(
        `classes[${index}].retryLimit should be an integer ≥ 0, got ${retryLimit}`,
      );
    }
    const backoff = entry.backoff ?? DEFAULT_BACKOFF;
    checkBackoff(backoff);
    return { name, arrivalRate, retryLimit, backoff };
  });
  return {
    capacity,
    queue,
    serviceTime: config.serviceTime ?? exponentialDistribution(1 / capacity),
    classes,
    duration,
    warmup,
    seed,
    stream,
  };
}
