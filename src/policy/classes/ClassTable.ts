import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';

/** What a priority class may do: the network file's language (`classes:` entries). */
export interface ClassOptions {
  /** k: retries after the first attempt at each hop, an integer ≥ 0. */
  readonly retries: number;
  /**
   * Per-try timeout in milliseconds for this class (default: the policy's).
   * @default the policy's `timeoutMs`
   */
  readonly timeoutMs?: number;
  /**
   * Retry delay for this class (default: the policy's).
   * @default the policy's `backoff`
   */
  readonly backoff?: BackoffDescription;
}

/** The resolved classes of a policy, in priority order (the first is the highest). */
export interface ClassTable {
  /** Class names, highest priority first. */
  readonly names: readonly string[];
  /** The class an unknown or missing name falls back to. */
  readonly defaultClass: string;
  /** The options of a class; unknown names get the default class's. */
  get(name: string): ClassOptions;
  /**
   * The class a request belongs to, from a raw value (a header, a label): a declared name is
   * taken as is (case-insensitive, trimmed); anything else — unknown, empty, missing — falls back
   * to the default class, never to the highest.
   */
  resolve(value: string | undefined | null): string;
}

/**
 * Builds a class table, checking every option (RangeError/TypeError naming the bad value).
 * @example
 * ```ts
 * const table = classTable({ high: { retries: 5 }, low: { retries: 1 } }, 'low');
 * table.resolve('HIGH'); // 'high'
 * table.resolve('platinum'); // 'low'
 * ```
 */
export function classTable(
  classes: Readonly<Record<string, ClassOptions>>,
  defaultClass: string,
): ClassTable {
  if (classes === null || typeof classes !== 'object') {
    throw new InvalidArgumentTypeError(
      `classes should be an object of name → { retries }, got ${String(classes)}`,
    );
  }
  const names = Object.keys(classes);
  if (names.length === 0)
    throw new InvalidArgumentError('classes should declare at least one class');
  const lookup = new Map<string, string>();
  for (const name of names) {
    if (/^(0|[1-9]\d*)$/.test(name)) {
      // JavaScript lists integer-like keys first, whatever their place in the literal, which
      // would silently reorder the priority order and the default class.
      throw new InvalidArgumentTypeError(
        `class names should not be integers (they lose their order in an object), got "${name}"; use e.g. "p${name}"`,
      );
    }
    const options = classes[name] as ClassOptions;
    if (!(Number.isInteger(options?.retries) && options.retries >= 0 && options.retries <= 1000)) {
      throw new InvalidArgumentError(
        `classes.${name}.retries should be an integer from 0 to 1000, got ${options?.retries}`,
      );
    }
    if (
      options.timeoutMs !== undefined &&
      !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)
    ) {
      throw new InvalidArgumentError(
        `classes.${name}.timeoutMs should be a positive number of milliseconds, got ${options.timeoutMs}`,
      );
    }
    const key = name.trim().toLowerCase();
    if (lookup.has(key))
      throw new InvalidArgumentError(`classes should have unique names, got "${name}" twice`);
    lookup.set(key, name);
  }
  if (!Object.hasOwn(classes, defaultClass)) {
    throw new InvalidArgumentError(
      `defaultClass should be one of the classes (${names.join(', ')}), got ${JSON.stringify(defaultClass)}`,
    );
  }
  return {
    names,
    defaultClass,
    get: (name) =>
      (Object.hasOwn(classes, name) ? classes[name] : classes[defaultClass]) as ClassOptions,
    resolve: (value) => {
      if (typeof value !== 'string') return defaultClass;
      if (Object.hasOwn(classes, value)) return value; // the hot path: an exact name
      return lookup.get(value.trim().toLowerCase()) ?? defaultClass;
    },
  };
}
