import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { MODEL_NAMES, type ModelName } from '../phi/Phi.js';
import type { RandomSource } from '../random.js';

/** Default most classes: the paper's check used P < 10. */
export const DEFAULT_MAX_CLASSES = 9;

/** The most classes a configuration may have. */
export const MAX_CLASSES = 20;

/** Retry limits are drawn uniformly from 0 to this. */
export const MAX_DRAWN_RETRIES = 8;

/** The system capacities (m) a configuration's service may have: small ones exercise `mm1m`. */
export const DRAWN_QUEUES: readonly number[] = [1, 2, 5, 10, 20, 50, 100];

/** Options of the configuration draws (`drawConfiguration`, `drawCallConfiguration`). */
export interface ConfigurationOptions {
  /**
   * Most classes P; P is uniform in 1 … maxClasses. Default 9 (P < 10), at most 20.
   * @default 9
   */
  readonly maxClasses?: number;
  /**
   * Scale of the external arrivals, requests/s over all classes; default 300.
   * @default 300
   */
  readonly arrivalRate?: number;
}

/** What every configuration draw starts with, and the draws it goes on with. */
export interface ConfigurationStart {
  /** The options with their defaults, checked. */
  readonly arrivalRate: number;
  /** P classes `c1` … `cP`, P uniform in 1 … maxClasses, each k uniform in 0 … 8. */
  readonly classes: readonly { readonly name: string; readonly retryLimit: number }[];
  /** The network's φ law, uniform over the laws. */
  readonly networkModel: ModelName;
  /** U[least, greatest). */
  readonly uniform: (least: number, greatest: number) => number;
  /** An integer uniform in least … greatest. */
  readonly integer: (least: number, greatest: number) => number;
  /** An item uniform over `items`. */
  readonly pick: <T>(items: readonly T[]) => T;
}

/**
 * The first draws of a configuration, the same for routing networks and call graphs: the
 * classes with their retry limits, then the network's φ law (in that order, so a seed draws
 * what it drew before these were shared).
 * @throws {RangeError} on `maxClasses` outside 1 … 20 or a non-positive `arrivalRate`.
 * @example
 * ```ts
 * const { classes, networkModel, uniform } = startConfiguration(seededRandom(7), {});
 * ```
 */
export function startConfiguration(
  random: RandomSource,
  options: ConfigurationOptions,
): ConfigurationStart {
  const maxClasses = options.maxClasses ?? DEFAULT_MAX_CLASSES;
  const arrivalRate = options.arrivalRate ?? 300;
  if (!(Number.isInteger(maxClasses) && maxClasses >= 1 && maxClasses <= MAX_CLASSES)) {
    throw new InvalidArgumentError(
      `maxClasses should be an integer from 1 to ${MAX_CLASSES}, got ${maxClasses}`,
    );
  }
  if (!(Number.isFinite(arrivalRate) && arrivalRate > 0)) {
    throw new InvalidArgumentError(
      `arrivalRate should be a positive number (requests/s), got ${arrivalRate}`,
    );
  }
  const uniform = (least: number, greatest: number) => least + (greatest - least) * random();
  const integer = (least: number, greatest: number) =>
    least + Math.floor(random() * (greatest - least + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const classCount = integer(1, maxClasses);
  const classes = Array.from({ length: classCount }, (_, p) => ({
    name: `c${p + 1}`,
    retryLimit: integer(0, MAX_DRAWN_RETRIES),
  }));
  const networkModel: ModelName = pick(MODEL_NAMES);
  return { arrivalRate, classes, networkModel, uniform, integer, pick };
}
