/**
 * A mistake in how a command was called (a missing argument, a malformed option). The CLI prints
 * its message on one line and exits with code 2, like a bad network file.
 */
export class UsageError extends Error {
  readonly code = 'DIFFTRY_USAGE';
  override readonly name = 'UsageError';
}

/** Whether `error` is a {@link UsageError}. */
export function isUsageError(error: unknown): error is UsageError {
  return error instanceof Error && (error as { code?: unknown }).code === 'DIFFTRY_USAGE';
}
