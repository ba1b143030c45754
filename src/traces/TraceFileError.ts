import { DifftryError, isDifftryError } from '../core/DifftryError.js';

/**
 * A trace file `difftry from-traces` cannot read or infer from — malformed JSON, an unknown
 * format, no spans, no entry service, a window with no data — with the stable code
 * `DIFFTRY_TRACES_INVALID` and a message that names the file and the reason on one line.
 */
export class TraceFileError extends DifftryError {
  constructor(message: string, options?: ErrorOptions) {
    super('DIFFTRY_TRACES_INVALID', message, options);
    this.name = 'TraceFileError';
  }
}

/** Whether `error` is a {@link TraceFileError} (from any copy of difftry: by its code). */
export function isTraceFileError(error: unknown): error is TraceFileError {
  return isDifftryError(error) && error.code === 'DIFFTRY_TRACES_INVALID';
}
