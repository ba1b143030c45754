import { channel } from 'node:diagnostics_channel';
import type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
import type {
  GiveUpReason,
  RetryDecision,
  RetryPolicy,
  RetryPolicyOptions,
} from '../policy/retry/RetryPolicy.js';
import { fixedTimeout, type TimeoutStrategy } from '../policy/timeout/TimeoutStrategy.js';
import { currentContext, runWithContext } from './context.js';
import { errorCode, TimeoutError } from './errors.js';
import { retryPolicy } from './retryPolicy.js';

/** What an attempt knows about itself. */
export interface AttemptInfo {
  /** 0 for the first try, 1 for the first retry, … */
  readonly attempt: number;
  readonly className: string;
  /** Aborted when the caller aborts or this attempt's per-try timeout expires. */
  readonly signal: AbortSignal;
  /** Absolute deadline of the whole call (ms since the epoch), if any. */
  readonly deadlineMs?: number;
  /** The per-try timeout of this attempt (ms), if any. */
  readonly timeoutMs?: number;
}

/** An event of a call: a retry, a give-up, a success, or a failed attempt. */
export interface RetryEvent {
  readonly className: string;
  /** Attempts made so far, including the one this event is about. */
  readonly attempts: number;
  readonly outcome: AttemptOutcome;
  /** The retry's delay (onRetry), ms. */
  readonly delayMs?: number;
  /** Why the call stopped (onGiveUp). */
  readonly reason?: GiveUpReason;
  /** What an attempt threw, if it threw. */
  readonly error?: unknown;
}

/** Options of {@link retry}. */
export interface RetryOptions<T> {
  /** The policy, or the options to build one. Build it once and share it: budgets live in it. */
  readonly policy: RetryPolicy | RetryPolicyOptions;
  /** The request's class; default the current request context's, else the policy's default. */
  readonly className?: string;
  /** HTTP method, for the idempotency rule. */
  readonly method?: string;
  /** Aborts the whole call: the current attempt and any wait. */
  readonly signal?: AbortSignal;
  /**
   * Total time for the call (ms from now); default the request context's deadline, if any. No
   * attempt runs past it: an attempt's timeout is cut to the time left.
   */
  readonly deadlineMs?: number;
  /** Per-try timeouts; default the class's (or policy's) `timeoutMs`, if any. */
  readonly timeout?: TimeoutStrategy;
  /**
   * At most this many retries for this call, below the class's limit (an integer ≥ 0). Adapters
   * pass 0 for a request whose body cannot be sent twice.
   */
  readonly retryLimit?: number;
  /** Translates a resolved value into an outcome (default: success). */
  readonly classify?: (result: T) => AttemptOutcome;
  /** Drops a value that is about to be retried (e.g. cancels a response body). */
  readonly discard?: (result: T) => void | Promise<void>;
  readonly onRetry?: (event: RetryEvent) => void;
  readonly onGiveUp?: (event: RetryEvent) => void;
  readonly onSuccess?: (event: RetryEvent) => void;
  readonly onFailure?: (event: RetryEvent) => void;
}

/**
 * `node:diagnostics_channel` channels on which every call publishes its retries, give-ups,
 * successes and failed attempts (a {@link RetryEvent}); publishing costs nothing without
 * subscribers.
 */
export const channels = Object.freeze({
  retry: channel('difftry:retry'),
  giveUp: channel('difftry:giveup'),
  success: channel('difftry:success'),
  failure: channel('difftry:failure'),
});

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });

/** The signal of attempts nothing can abort (no caller signal, no per-try timeout). */
const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/**
 * Runs `fn` under a DiffTry policy: each attempt gets a per-try timeout and an abort signal; a
 * failed attempt is retried up to its class's limit after the backoff (or the server's
 * `Retry-After`), within the deadline and the budget. A value `classify` calls a failure (a 503)
 * is returned as it came after the last attempt; a throw is rethrown.
 *
 * The attempt runs inside the request context (class, deadline, attempt), so nested outbound calls
 * inherit the class.
 * @example
 * ```ts
 * const policy = retryPolicy({ classes: { high: { retries: 5 }, low: { retries: 1 } } });
 * const user = await retry(({ signal }) => loadUser(id, { signal }), { policy, className: 'high' });
 * ```
 */
export async function retry<T>(
  fn: (info: AttemptInfo) => Promise<T>,
  options: RetryOptions<T>,
): Promise<T> {
  const policy = 'decide' in options.policy ? options.policy : retryPolicy(options.policy);
  const clock = policy.clock;
  const context = currentContext();
  const className = policy.classify(options.className ?? context?.className);
  const deadlineMs =
    options.deadlineMs !== undefined ? clock() + options.deadlineMs : context?.deadlineMs;
  const classTimeout = policy.timeoutMs(className);
  const timeout =
    options.timeout ?? (classTimeout === undefined ? undefined : fixedTimeout(classTimeout));
  const { signal, classify, onRetry, onGiveUp, onSuccess, onFailure } = options;
  const retryLimit = options.retryLimit ?? Number.POSITIVE_INFINITY;
  if (!(retryLimit >= 0 && (Number.isInteger(retryLimit) || retryLimit === Infinity))) {
    throw new RangeError(`retryLimit should be an integer ≥ 0, got ${options.retryLimit}`);
  }
  const budget = policy.budget;
  signal?.throwIfAborted();
  budget?.requestStarted(className, clock());
  let previousDelayMs: number | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const chosenMs = timeout?.next(attempt);
      // The deadline bounds every attempt, with or without a per-try timeout.
      const leftMs = deadlineMs === undefined ? undefined : Math.max(0, deadlineMs - clock());
      const cutByDeadline = leftMs !== undefined && (chosenMs === undefined || leftMs < chosenMs);
      const timeoutMs = cutByDeadline ? leftMs : chosenMs;
      const started = timeout ? clock() : 0;
      let outcome: AttemptOutcome;
      let value: T | undefined;
      let thrown: { error: unknown } | undefined;
      try {
        value = await runAttempt(fn, { attempt, className, deadlineMs, timeoutMs, signal });
        outcome = classify ? classify(value) : SUCCESS;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        thrown = { error };
        outcome =
          error instanceof TimeoutError
            ? { kind: 'timeout' }
            : { kind: 'error', code: errorCode(error) };
      } finally {
        // Every admitted retry is given back, however its attempt ended (an abort included), so
        // a concurrency budget's count of active retries comes down.
        if (attempt > 0) budget?.retryFinished(className, clock());
      }
      // A timeout the deadline imposed says nothing about the timeout the strategy chose.
      if (timeout && !(cutByDeadline && outcome.kind === 'timeout')) {
        timeout.observe(
          outcome.kind === 'success'
            ? 'success'
            : outcome.kind === 'timeout'
              ? 'timeout'
              : 'failure',
          clock() - started,
        );
      }
      if (outcome.kind === 'success') {
        budget?.attemptSucceeded(className, clock());
        if (onSuccess || channels.success.hasSubscribers) {
          emit(channels.success, onSuccess, { className, attempts: attempt + 1, outcome });
        }
        return value as T;
      }
      if (policy.isRetryable(outcome)) budget?.attemptFailed(className, clock());
      if (onFailure || channels.failure.hasSubscribers) {
        emit(channels.failure, onFailure, {
          className,
          attempts: attempt + 1,
          outcome,
          error: thrown?.error,
        });
      }
      const decision: RetryDecision =
        attempt >= retryLimit && policy.isRetryable(outcome)
          ? { retry: false, reason: 'limit' }
          : policy.decide({
              className,
              retries: attempt,
              outcome,
              method: options.method,
              deadlineMs,
              previousDelayMs,
            });
      if (!decision.retry) {
        if (onGiveUp || channels.giveUp.hasSubscribers) {
          emit(channels.giveUp, onGiveUp, {
            className,
            attempts: attempt + 1,
            outcome,
            reason: decision.reason,
            error: thrown?.error,
          });
        }
        if (thrown) throw thrown.error;
        return value as T;
      }
      if (onRetry || channels.retry.hasSubscribers) {
        emit(channels.retry, onRetry, {
          className,
          attempts: attempt + 1,
          outcome,
          delayMs: decision.delayMs,
        });
      }
      // The server's wait is not the backoff's: decorrelated jitter grows from the last backoff.
      if (!decision.fromServer) previousDelayMs = decision.delayMs;
      try {
        if (!thrown && options.discard) await options.discard(value as T);
        await sleep(decision.delayMs, signal);
      } catch (error) {
        // The admitted retry will never run: give it back before leaving.
        budget?.retryFinished(className, clock());
        throw error;
      }
    }
  } finally {
    budget?.requestFinished(className, clock());
  }
}

function emit(
  diagnostics: ReturnType<typeof channel>,
  listener: ((event: RetryEvent) => void) | undefined,
  event: RetryEvent,
): void {
  listener?.(event);
  if (diagnostics.hasSubscribers) diagnostics.publish(event);
}

/** Runs one attempt inside the request context, with its per-try timeout and abort signal. */
function runAttempt<T>(
  fn: (info: AttemptInfo) => Promise<T>,
  setup: {
    attempt: number;
    className: string;
    deadlineMs: number | undefined;
    timeoutMs: number | undefined;
    signal: AbortSignal | undefined;
  },
): Promise<T> {
  const { signal: outer, timeoutMs } = setup;
  // No time left before the deadline: the attempt is not sent at all.
  if (timeoutMs !== undefined && timeoutMs <= 0) return Promise.reject(new TimeoutError(0));
  if (timeoutMs === undefined) {
    // Nothing can abort this attempt: skip the AbortController (about half the cost of a call
    // that succeeds at once) and hand out one signal that never fires.
    if (outer === undefined) return startAttempt(fn, { ...setup, signal: NEVER_ABORTED });
    // Only the caller can abort it: its signal is the attempt's (no AbortController, the
    // costliest object of a call), and one guard ends the attempt when it fires.
    return attemptUntilAborted(fn, setup, outer);
  }
  // A per-try timeout (and perhaps the caller's signal): one controller for the attempt's signal,
  // one guard that the timer or the caller's abort settles.
  if (outer?.aborted) return Promise.reject(outer.reason);
  const controller = new AbortController();
  let fail: (reason: unknown) => void = () => {};
  const guard = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // The guard may still reject after the attempt won the race; that rejection is expected.
  guard.catch(() => {});
  const onAbort = () => {
    const reason = (outer as AbortSignal).reason;
    controller.abort(reason);
    fail(reason);
  };
  outer?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    const error = new TimeoutError(timeoutMs);
    controller.abort(error);
    fail(error);
  }, timeoutMs);
  const work = startAttempt(fn, {
    attempt: setup.attempt,
    className: setup.className,
    signal: controller.signal,
    deadlineMs: setup.deadlineMs,
    timeoutMs,
  });
  return Promise.race([work, guard]).finally(() => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  });
}

/**
 * Calls `fn` inside the attempt's request context. A synchronous throw is an attempt that failed,
 * like a rejection (and must not leave a listener on the caller's signal behind).
 */
function startAttempt<T>(fn: (info: AttemptInfo) => Promise<T>, info: AttemptInfo): Promise<T> {
  try {
    return runWithContext(
      { className: info.className, deadlineMs: info.deadlineMs, attempt: info.attempt },
      () => fn(info),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** An attempt with no per-try timeout under the caller's `signal`, which it gets as its own. */
function attemptUntilAborted<T>(
  fn: (info: AttemptInfo) => Promise<T>,
  setup: { attempt: number; className: string; deadlineMs: number | undefined },
  signal: AbortSignal,
): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const info: AttemptInfo = {
    attempt: setup.attempt,
    className: setup.className,
    signal,
    deadlineMs: setup.deadlineMs,
  };
  const work = startAttempt(fn, info);
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // The guard that loses the race may still reject later; that rejection is expected.
  aborted.catch(() => {});
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** Waits `ms` (a timer, so fake timers drive it in tests); rejects at once if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
