import { DifftryError, isDifftryError } from '../core/DifftryError.js';

/**
 * An output path that cannot be written (a missing directory, a directory where a file was
 * asked for, no permission, a full disk): a {@link DifftryError} with code
 * `DIFFTRY_OUTPUT_PATH`, whose message names the option, the path and what is wrong
 * (`--csv: cannot write out/a.csv: no such directory out`).
 */
export class OutputPathError extends DifftryError {
  declare readonly code: 'DIFFTRY_OUTPUT_PATH';

  constructor(message: string, options?: ErrorOptions) {
    super('DIFFTRY_OUTPUT_PATH', message, options);
    this.name = 'OutputPathError';
  }
}

/** Whether `error` is an {@link OutputPathError} (from any copy of difftry). */
export function isOutputPathError(error: unknown): error is OutputPathError {
  return isDifftryError(error) && error.code === 'DIFFTRY_OUTPUT_PATH';
}
