import { DifftryError, isDifftryError } from '../core/DifftryError.js';

/**
 * A mistake in how a command was called (a missing argument, a malformed option): a
 * {@link DifftryError} with code `DIFFTRY_USAGE`. The CLI prints its message on one line and
 * exits with code 2, like a bad network file.
 */
export class UsageError extends DifftryError {
  declare readonly code: 'DIFFTRY_USAGE';

  constructor(message: string, options?: ErrorOptions) {
    super('DIFFTRY_USAGE', message, options);
    this.name = 'UsageError';
  }
}

/** Whether `error` is a {@link UsageError} (from any copy of difftry). */
export function isUsageError(error: unknown): error is UsageError {
  return isDifftryError(error) && error.code === 'DIFFTRY_USAGE';
}
