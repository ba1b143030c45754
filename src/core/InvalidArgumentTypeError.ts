import { DIFFTRY_ERROR_BRAND } from './DifftryError.js';

/**
 * A value of the wrong kind where a public function takes an option (an object expected, a
 * function, a string), with the same stable code as `InvalidArgumentError`,
 * `DIFFTRY_INVALID_ARGUMENT`. It is a `TypeError` (what such errors have always been) and a
 * difftry error (`isDifftryError`, `instanceof DifftryError`).
 * @example
 * ```ts
 * try {
 *   retryPolicy(undefined as never);
 * } catch (error) {
 *   if (isDifftryError(error)) console.error(error.code); // DIFFTRY_INVALID_ARGUMENT
 * }
 * ```
 */
export class InvalidArgumentTypeError extends TypeError {
  readonly code = 'DIFFTRY_INVALID_ARGUMENT';
  readonly [DIFFTRY_ERROR_BRAND] = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidArgumentTypeError';
  }
}
