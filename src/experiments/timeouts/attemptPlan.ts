import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { TimeoutStrategy } from '../../policy/timeouts/TimeoutStrategy.js';

/**
 * The request boundary some strategies have (Combined): called once as each request starts. A
 * `diagnostic` request's first attempt runs without a timeout, so the strategy observes one true,
 * uncensored latency. The returned handle, when it has `next` and `observe`, is the request's own
 * view of the strategy and gets that request's calls.
 */
export interface RequestBoundary {
  beginRequest(): { readonly diagnostic: boolean } & Partial<TimeoutStrategy>;
}

/** One request as a strategy sees it: whether it is diagnostic, and whom to ask and tell. */
export interface RequestTimeouts {
  readonly diagnostic: boolean;
  readonly timeouts: TimeoutStrategy;
}

/** Default cap on the attempts of one request: the 20th attempt waits without a timeout. */
export const DEFAULT_MAX_ATTEMPTS = 20;

/**
 * Starts a request: calls `beginRequest()` when the strategy has it, and answers whether the
 * request is diagnostic and which object takes its `next`/`observe` calls (the handle
 * `beginRequest()` returned, when it is a strategy, else the strategy itself).
 */
export function startRequest(strategy: TimeoutStrategy): RequestTimeouts {
  const boundary = strategy as Partial<RequestBoundary>;
  if (typeof boundary.beginRequest !== 'function') return { diagnostic: false, timeouts: strategy };
  const handle = boundary.beginRequest();
  const isStrategy = typeof handle.next === 'function' && typeof handle.observe === 'function';
  return {
    diagnostic: handle.diagnostic === true,
    timeouts: isStrategy ? (handle as TimeoutStrategy) : strategy,
  };
}

/**
 * The timeout of attempt `attempt` (0-based) of a request, ms, or `undefined` when the attempt
 * waits for its response without one: the first attempt of a diagnostic request, and the last
 * attempt allowed (`attempt = maxAttempts − 1`), so every request completes. The strategy's
 * `next()` is called only when its answer is used.
 * @throws RangeError when the strategy answers anything but a positive finite number of ms.
 */
export function attemptTimeoutMs(
  strategy: TimeoutStrategy,
  attempt: number,
  request: { readonly diagnostic: boolean; readonly maxAttempts: number },
): number | undefined {
  if ((request.diagnostic && attempt === 0) || attempt >= request.maxAttempts - 1) return undefined;
  const timeoutMs = strategy.next(attempt);
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new InvalidArgumentError(
      `the strategy's timeout for attempt ${attempt} should be a positive number of ms, got ${timeoutMs}`,
    );
  }
  return timeoutMs;
}

/** Checks the attempt cap: an integer ≥ 1 (1: every attempt waits without a timeout). */
export function checkMaxAttempts(maxAttempts: number): number {
  if (!(Number.isSafeInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= 1000)) {
    throw new InvalidArgumentError(
      `maxAttempts should be an integer in [1, 1000], got ${maxAttempts}`,
    );
  }
  return maxAttempts;
}
