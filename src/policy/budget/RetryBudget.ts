/**
 * A retry budget: a shared allowance that caps retries across requests, so a failing dependency
 * does not turn every request into k + 1 requests. Budgets compose with DiffTry: the policy first
 * asks its class limit, then the budget.
 *
 * The executor reports the life of every request through these hooks (times in ms from the
 * policy's clock). Implementations: Finagle/Linkerd ratio budget, gRPC retry throttling, Envoy's
 * concurrency budget, Google SRE client-side throttling, and the class-aware budget.
 */
export interface RetryBudget {
  /** A short name for reports: `finagle`, `grpc`, `envoy`, `sre`, `class-aware`. */
  readonly name: string;
  /** An original request of `className` starts. */
  requestStarted(className: string, nowMs: number): void;
  /** The request ends, whatever its outcome (after its last attempt). */
  requestFinished(className: string, nowMs: number): void;
  /** An attempt succeeded (the backend accepted and served it). */
  attemptSucceeded(className: string, nowMs: number): void;
  /** An attempt failed in a way the policy would retry (rejection, reset, timeout). */
  attemptFailed(className: string, nowMs: number): void;
  /**
   * May a retry of `className` go now? When it answers true the retry is counted against the
   * budget (call `retryFinished` when that retry's attempt ends).
   */
  acquireRetry(className: string, nowMs: number): boolean;
  /** A retry admitted by `acquireRetry` has finished its attempt. */
  retryFinished(className: string, nowMs: number): void;
  /** The budget's current allowance (tokens, balance, or free retry slots); never negative. */
  balance(nowMs: number): number;
}
