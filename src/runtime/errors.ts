import { DifftryError } from '../core/DifftryError.js';

export { DifftryError, isDifftryError } from '../core/DifftryError.js';
export { InvalidArgumentError } from '../core/InvalidArgumentError.js';
export { InvalidArgumentTypeError } from '../core/InvalidArgumentTypeError.js';

/** An attempt's per-try timeout expired (code `DIFFTRY_TIMEOUT`). */
export class AttemptTimeoutError extends DifftryError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super('DIFFTRY_TIMEOUT', `attempt timed out after ${timeoutMs} ms`);
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The network error code of a thrown value: its `code`, or its `cause`'s (undici and fetch wrap
 * socket errors: `TypeError: fetch failed` with `cause.code = 'ECONNREFUSED'`).
 */
export function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
