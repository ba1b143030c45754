import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/** What an attempt came to, as a timeout strategy sees it. */
export type TimeoutObservation = 'success' | 'timeout' | 'failure';

/**
 * Chooses the per-try timeout of each attempt and learns from what attempts took. The adaptive
 * strategies (Optimizer, Controller, Combined, RTO) implement this same interface, so they plug
 * into `retry()`, the adapters, the sidecar and the simulator unchanged.
 */
export interface TimeoutStrategy {
  /** The timeout of attempt `attempt` (0 for the first try, 1 for the first retry, …), ms. */
  next(attempt: number): number;
  /**
   * Reports an attempt's outcome and how long it ran (ms). A `timeout` says only that the
   * latency exceeded the timeout (a censored observation).
   */
  observe(outcome: TimeoutObservation, latencyMs: number): void;
}

/**
 * The same timeout for every attempt.
 * @example
 * ```ts
 * retry(fn, { ...options, timeout: fixedTimeout(250) });
 * ```
 */
export function fixedTimeout(timeoutMs: number): TimeoutStrategy {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new InvalidArgumentError(
      `timeoutMs should be a positive number of milliseconds, got ${timeoutMs}`,
    );
  }
  return { next: () => timeoutMs, observe: () => {} };
}
