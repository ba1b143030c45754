import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { checkRange } from './checkRange.js';
import { monotonicTime } from './monotonicTime.js';
import type { RetryBudget } from './RetryBudget.js';

/** Options of {@link grpcThrottle}, as in a gRPC service config's `retryThrottling`. */
export interface GrpcThrottleOptions {
  /**
   * The token bucket's size and starting level, in (0, 1000]; default 10.
   * @default 10
   */
  readonly maxTokens?: number;
  /**
   * Tokens a successful attempt puts back, in [0.001, 1000] (three decimals kept); default 0.1.
   * @default 0.1
   */
  readonly tokenRatio?: number;
}

/**
 * gRPC client retry throttling: a token bucket that starts full at `maxTokens`; every failed
 * attempt (one the policy would retry, `attemptFailed`) takes one token (floor 0), every successful
 * attempt puts back `tokenRatio` (cap `maxTokens`), and retries are allowed only while
 * tokens > maxTokens / 2. Admitting a retry costs nothing: the throttle only watches the failure
 * rate, so with the defaults it closes after about five failures more than ten times the successes.
 *
 * Tokens are counted in thousandths, as gRPC C-core does, so adding 0.1 ten times gives exactly 1.
 * `balance()` is the token count; a fresh throttle has `maxTokens` and admits retries. It ignores
 * the class and time.
 * @see gRPC proposal A6, "Retry Throttling": https://github.com/grpc/proposal/blob/master/A6-client-retries.md
 * @example
 * ```ts
 * const budget = grpcThrottle({ maxTokens: 10, tokenRatio: 0.1 });
 * ```
 */
export function grpcThrottle(options: Readonly<GrpcThrottleOptions> = {}): RetryBudget {
  const maxTokens = checkRange('maxTokens', options.maxTokens ?? 10, {
    min: 0,
    max: 1000,
    minOpen: true,
  });
  const tokenRatio = checkRange('tokenRatio', options.tokenRatio ?? 0.1, {
    min: 0.001,
    max: 1000,
  });
  const maxMilli = Math.round(maxTokens * 1000);
  const ratioMilli = Math.round(tokenRatio * 1000);
  if (maxMilli < 1) {
    throw new InvalidArgumentError(
      `maxTokens should be at least 0.001 (gRPC keeps three decimals), got ${maxTokens}`,
    );
  }
  const time = monotonicTime();
  let milliTokens = maxMilli;
  return {
    name: 'grpc',
    requestStarted: (_className, nowMs) => void time(nowMs),
    requestFinished: (_className, nowMs) => void time(nowMs),
    attemptSucceeded(_className, nowMs) {
      time(nowMs);
      milliTokens = Math.min(maxMilli, milliTokens + ratioMilli);
    },
    attemptFailed(_className, nowMs) {
      time(nowMs);
      milliTokens = Math.max(0, milliTokens - 1000);
    },
    acquireRetry(_className, nowMs) {
      time(nowMs);
      return 2 * milliTokens > maxMilli;
    },
    retryFinished: (_className, nowMs) => void time(nowMs),
    balance(nowMs) {
      time(nowMs);
      return milliTokens / 1000;
    },
  };
}
