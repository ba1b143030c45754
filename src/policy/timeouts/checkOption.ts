import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import type { TimeoutObservation } from './TimeoutStrategy.js';

/** The numbers an option accepts: [min, max] (finite), or (min, max] with `minOpen`. */
export interface OptionRange {
  readonly min: number;
  readonly max: number;
  readonly minOpen?: boolean;
  readonly integer?: boolean;
}

/**
 * Checks one numeric option of a timeout strategy and returns it: a TypeError when it is not a
 * number, a RangeError naming the option, the accepted range and the value otherwise. Infinite
 * values are refused even when `max` is `Infinity`: a timeout is always a finite time.
 */
export function checkOption(name: string, value: unknown, range: OptionRange): number {
  const kind = range.integer ? 'an integer' : 'a finite number';
  const interval = `${range.minOpen ? '(' : '['}${range.min}, ${range.max}${range.max === Number.POSITIVE_INFINITY ? ')' : ']'}`;
  if (typeof value !== 'number') {
    throw new InvalidArgumentTypeError(
      `${name} should be ${kind} in ${interval}, got ${describe(value)}`,
    );
  }
  const aboveMin = range.minOpen ? value > range.min : value >= range.min;
  if (
    !(
      Number.isFinite(value) &&
      aboveMin &&
      value <= range.max &&
      (!range.integer || Number.isInteger(value))
    )
  ) {
    throw new InvalidArgumentError(`${name} should be ${kind} in ${interval}, got ${value}`);
  }
  return value;
}

/** Checks the options object itself (undefined means all defaults). */
export function checkOptionsObject(name: string, options: unknown): void {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new InvalidArgumentTypeError(
      `${name} options should be an object, got ${describe(options)}`,
    );
  }
}

/** Checks `attempt` of `next(attempt)`: an integer ≥ 0. */
export function checkAttempt(attempt: number): number {
  if (!(Number.isInteger(attempt) && attempt >= 0)) {
    throw new InvalidArgumentError(`attempt should be an integer ≥ 0, got ${attempt}`);
  }
  return attempt;
}

const OUTCOMES: readonly TimeoutObservation[] = ['success', 'timeout', 'failure'];

/**
 * Checks an observation and returns its latency: the outcome must be one of
 * {@link TimeoutObservation}, the latency a finite number of ms. A negative latency (a wall clock
 * stepped back during the attempt) reads as 0 rather than failing the call it came from.
 */
export function checkObservation(outcome: TimeoutObservation, latencyMs: number): number {
  if (!OUTCOMES.includes(outcome)) {
    throw new InvalidArgumentTypeError(
      `outcome should be one of ${OUTCOMES.join(', ')}, got ${describe(outcome)}`,
    );
  }
  if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs)) {
    throw new InvalidArgumentError(
      `latencyMs should be a finite number of ms, got ${describe(latencyMs)}`,
    );
  }
  return Math.max(0, latencyMs);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
