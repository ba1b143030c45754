import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../../model/random.js';
import { seededRandom } from '../../model/random.js';

/** How a generated network passes requests on: probabilistic `routes` or a `calls` graph. */
export type EdgeForm = 'routes' | 'calls';

/** The forms a generator can write, in the order help text lists them. */
export const EDGE_FORMS: readonly EdgeForm[] = ['routes', 'calls'];

/** The most services a generated network may have. */
export const MAX_GENERATED_SERVICES = 10_000;

/** The most priority classes a generated network may have. */
export const MAX_GENERATED_CLASSES = 20;

/** The total external arrival rate when none is given: 300 requests/s. */
export const DEFAULT_ARRIVAL_RATE = 300;

/** Options every network generator takes. */
export interface NetworkGeneratorOptions {
  /** Number of services, including the entry (`frontend`). */
  readonly services: number;
  /**
   * Number of priority classes (default 2: `high` and `low`), from 1 to 20.
   * @default 2
   */
  readonly classes?: number;
  /**
   * Seed of the random source (default 0); the same seed gives the same network.
   * @default 0
   */
  readonly seed?: number;
  /**
   * A random source to use instead of `seededRandom(seed)` (for tests and replications).
   * @default seededRandom(seed)
   */
  readonly random?: RandomSource;
  /**
   * Total external arrival rate at the entry, in requests/s, over all classes (default 300).
   * @default 300 (`DEFAULT_ARRIVAL_RATE`)
   */
  readonly arrivalRate?: number;
}

/** Options of a generator that writes either form. */
export interface FormOptions {
  /**
   * `routes` (default) for probabilistic routing, `calls` for a call graph.
   * @default 'routes'
   */
  readonly form?: EdgeForm;
}

/** The checked common options, with defaults applied. */
export interface ResolvedGeneratorOptions {
  readonly services: number;
  readonly classes: number;
  /** The seed, or undefined when a random source was injected. */
  readonly seed: number | undefined;
  readonly random: RandomSource;
  readonly arrivalRate: number;
}

/**
 * Checks the common options and applies their defaults.
 * @param networkKind - how an error names the network (`a DGG network`).
 * @throws {RangeError} naming the option and the bad value.
 */
export function resolveGeneratorOptions(
  options: NetworkGeneratorOptions,
  minServices: number,
  maxServices: number,
  networkKind: string,
): ResolvedGeneratorOptions {
  const { services, classes = 2, seed = 0, arrivalRate = DEFAULT_ARRIVAL_RATE } = options;
  checkIntegerIn('services', services, minServices, maxServices, ` for a ${networkKind} network`);
  checkIntegerIn('classes', classes, 1, MAX_GENERATED_CLASSES);
  if (!Number.isSafeInteger(seed)) {
    throw new InvalidArgumentError(`seed should be a safe integer, got ${seed}`);
  }
  if (!(Number.isFinite(arrivalRate) && arrivalRate > 0)) {
    throw new InvalidArgumentError(
      `arrivalRate should be a positive number (requests/s), got ${arrivalRate}`,
    );
  }
  return {
    services,
    classes,
    seed: options.random === undefined ? seed : undefined,
    random: options.random ?? seededRandom(seed),
    arrivalRate,
  };
}

/** Checks the `form` option and applies its default, `routes`. */
export function resolveForm(form: unknown = 'routes'): EdgeForm {
  if (form === 'routes' || form === 'calls') return form;
  throw new InvalidArgumentError(
    `form should be one of ${EDGE_FORMS.join(', ')}, got ${String(form)}`,
  );
}

/** @throws {RangeError} unless `value` is an integer in [min, max]. */
export function checkIntegerIn(
  name: string,
  value: number,
  min: number,
  max: number,
  context = '',
): void {
  if (Number.isInteger(value) && value >= min && value <= max) return;
  throw new InvalidArgumentError(
    `${name} should be an integer from ${min} to ${max}${context}, got ${value}`,
  );
}
