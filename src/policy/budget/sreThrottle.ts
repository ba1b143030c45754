import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import type { RandomSource } from '../../model/random.js';
import { checkRange } from './checkRange.js';
import { monotonicTime } from './monotonicTime.js';
import type { RetryBudget } from './RetryBudget.js';
import { windowedCounter } from './windowedCounter.js';

/** Options of {@link sreThrottle}. */
export interface SreThrottleOptions {
  /**
   * The multiplier K: the client sends freely while its attempts stay below K times the attempts
   * the backend accepted. Larger is more lenient; default 2 (the book's suggestion).
   * @default 2
   */
  readonly k?: number;
  /**
   * The history the counts cover, ms; default 120,000 (two minutes, as in the book).
   * @default 120_000
   */
  readonly windowMs?: number;
  /**
   * Slices of the sliding window (memory and expiry granularity); default 10.
   * @default 10
   */
  readonly slices?: number;
  /** Uniforms in [0, 1) for the throttling draw (required: pass a seeded source in tests). */
  readonly random: RandomSource;
}

/**
 * Google SRE client-side adaptive throttling, applied to retries. Over a sliding window the client
 * counts `requests` (attempts it sent) and `accepts` (attempts the backend served), and refuses a
 * request with probability
 *
 *   p = max(0, (requests − K · accepts) / (requests + 1)).
 *
 * How it maps to retries: the book throttles every request locally; here originals always go (the
 * class limits and the executor decide about them) and only retries are throttled: `acquireRetry`
 * refuses with probability p, drawing one number from `random` when p > 0 (none when p = 0). Sent
 * attempts are counted at `requestStarted` (an original) and at an admitted `acquireRetry` (a
 * retry); accepts at `attemptSucceeded`. Failures not reported to the budget (a 404, a 500 the
 * policy does not retry) therefore count as not accepted, which throttles a little early when
 * such failures are common.
 *
 * `balance()` is 1 − p, the probability that a retry is admitted now; a fresh throttle has 1 and
 * admits its first retry without a draw. It ignores the class.
 * @see Beyer et al., Site Reliability Engineering (O'Reilly, 2016), ch. 21 "Handling Overload",
 *   "Client-Side Throttling": https://sre.google/sre-book/handling-overload/
 * @example
 * ```ts
 * const budget = sreThrottle({ k: 2, random: seededRandom(1) });
 * ```
 */
export function sreThrottle(options: Readonly<SreThrottleOptions>): RetryBudget {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentTypeError(
      `options should be an object with a random source, got ${String(options)}`,
    );
  }
  const k = checkRange('k', options.k ?? 2, { min: 0, max: 1_000_000, minOpen: true });
  const windowMs = checkRange('windowMs', options.windowMs ?? 120_000, {
    min: 1,
    max: 86_400_000,
  });
  const slices = checkRange('slices', options.slices ?? 10, { min: 1, max: 1000, integer: true });
  const random = options.random;
  if (typeof random !== 'function') {
    throw new InvalidArgumentTypeError(
      `random should be a function returning uniforms in [0, 1), got ${String(random)}`,
    );
  }
  const time = monotonicTime();
  const requests = windowedCounter(windowMs, slices);
  const accepts = windowedCounter(windowMs, slices);
  const rejectProbability = (now: number) => {
    const sent = requests.total(now);
    return Math.max(0, (sent - k * accepts.total(now)) / (sent + 1));
  };
  return {
    name: 'sre',
    requestStarted: (_className, nowMs) => requests.add(time(nowMs), 1),
    requestFinished: (_className, nowMs) => void time(nowMs),
    attemptSucceeded: (_className, nowMs) => accepts.add(time(nowMs), 1),
    attemptFailed: (_className, nowMs) => void time(nowMs),
    acquireRetry(_className, nowMs) {
      const now = time(nowMs);
      const p = rejectProbability(now);
      if (p > 0 && random() < p) return false;
      requests.add(now, 1);
      return true;
    },
    retryFinished: (_className, nowMs) => void time(nowMs),
    balance: (nowMs) => 1 - rejectProbability(time(nowMs)),
  };
}
