import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../core/InvalidArgumentTypeError.js';
import type { AttemptOutcome, HeaderLookup } from '../policy/retry/AttemptOutcome.js';
import type { RetryPolicy, RetryPolicyOptions } from '../policy/retry/RetryPolicy.js';
import { retryPolicy } from '../policy/retry/RetryPolicy.js';
import type { TimeoutStrategy } from '../policy/timeouts/TimeoutStrategy.js';
import type { RetryListeners } from './retryEvents.js';
import type { TelemetryProviders } from './telemetry/otel.js';

export type { RetryListeners } from './retryEvents.js';

// What the HTTP adapters (`difftryFetch`, `difftryInterceptor`) share: the policy, given as the
// policy itself or as the options to build one, the per-call settings of `retry()`, and how an
// HTTP response becomes an attempt outcome.

/** A policy, or the options to build one (built once, when the adapter is made). */
export type PolicySource =
  | RetryPolicyOptions
  | { readonly policy: RetryPolicy | RetryPolicyOptions };

/** Settings every adapter applies to each call. */
export interface AdapterOptions extends RetryListeners {
  /**
   * Total time of each call, ms from its start (all attempts and waits); default none of its
   * own (the request context's deadline, if any, still applies).
   * @default none (the request context's deadline, if any)
   */
  readonly deadlineMs?: number;
  /**
   * Per-try timeouts, shared by every call made through the adapter (an adaptive strategy learns
   * from all of them); default the class's (or the policy's) `timeoutMs`, if any.
   * @default the class's (or the policy's) `timeoutMs` as a fixed timeout, if any
   */
  readonly timeout?: TimeoutStrategy;
  /**
   * OpenTelemetry: the providers to record each attempt's span and the counters with, instead of
   * the globally registered ones (a process serving several services gives each its own);
   * `false`: no spans and no metrics from this adapter, whatever is registered.
   * @default the globally registered providers, if any
   */
  readonly telemetry?: TelemetryProviders | false;
}

/** The policy of an adapter: the one given, or one built from the options. */
export function resolvePolicy(source: PolicySource): RetryPolicy {
  if (source === null || typeof source !== 'object') {
    throw new InvalidArgumentTypeError(`options should be an object, got ${String(source)}`);
  }
  if (!('policy' in source)) return retryPolicy(source);
  const { policy } = source;
  return typeof (policy as Partial<RetryPolicy>)?.decide === 'function'
    ? (policy as RetryPolicy)
    : retryPolicy(policy as RetryPolicyOptions);
}

/** Checks the adapter settings, throwing a `RangeError` that names the bad value. */
export function checkAdapterOptions(options: AdapterOptions): void {
  const { deadlineMs } = options;
  if (deadlineMs !== undefined && !(Number.isFinite(deadlineMs) && deadlineMs > 0)) {
    throw new InvalidArgumentError(
      `deadlineMs should be a positive number of milliseconds, got ${deadlineMs}`,
    );
  }
}

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });

/**
 * The outcome of an HTTP response: a `status` outcome for an error (≥ 400) or a status the policy
 * retries, else a success. A 404 thus reaches the policy (which gives up on it, not retryable)
 * and the `onFailure` listeners, while a 304 counts as a served request.
 */
export function responseOutcome(
  policy: Pick<RetryPolicy, 'isRetryable'>,
  status: number,
  header: HeaderLookup,
): AttemptOutcome {
  const outcome: AttemptOutcome = { kind: 'status', status, header };
  return status >= 400 || policy.isRetryable(outcome) ? outcome : SUCCESS;
}
