import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';

/** The numbers an option accepts: [min, max], or (min, max] with `minOpen`. */
export interface NumericRange {
  readonly min: number;
  readonly max: number;
  readonly minOpen?: boolean;
  readonly integer?: boolean;
}

/**
 * Checks one numeric option of a budget and returns it: a TypeError when it is not a number, a
 * RangeError naming the option, the accepted range and the value otherwise.
 */
export function checkRange(name: string, value: unknown, range: NumericRange): number {
  const kind = range.integer ? 'an integer' : 'a number';
  const interval = `${range.minOpen ? '(' : '['}${range.min}, ${range.max}]`;
  if (typeof value !== 'number') {
    throw new InvalidArgumentTypeError(
      `${name} should be ${kind} in ${interval}, got ${describe(value)}`,
    );
  }
  const aboveMin = range.minOpen ? value > range.min : value >= range.min;
  if (!(aboveMin && value <= range.max && (!range.integer || Number.isInteger(value)))) {
    throw new InvalidArgumentError(`${name} should be ${kind} in ${interval}, got ${value}`);
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
