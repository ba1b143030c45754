import { DIFFTRY_ERROR_BRAND } from './DifftryError.js';

/**
 * A value a caller gave that difftry cannot take — an option out of its range, a network the
 * analysis does not model, a name a mesh cannot hold — with the stable code
 * `DIFFTRY_INVALID_ARGUMENT`. It is a `RangeError` (what such errors have always been, so
 * `instanceof RangeError` still holds) and a difftry error (`isDifftryError`, and
 * `instanceof DifftryError`). `difftry` commands print its message on one line and exit 2.
 * @example
 * ```ts
 * try {
 *   generateNetwork('dgg', { services: 0 });
 * } catch (error) {
 *   if (isDifftryError(error) && error.code === 'DIFFTRY_INVALID_ARGUMENT') console.error(error.message);
 * }
 * ```
 */
export class InvalidArgumentError extends RangeError {
  readonly code = 'DIFFTRY_INVALID_ARGUMENT';
  readonly [DIFFTRY_ERROR_BRAND] = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidArgumentError';
  }
}
