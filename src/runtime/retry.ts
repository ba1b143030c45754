import { channel } from 'node:diagnostics_channel';
import type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
import type {
  GiveUpReason,
  RetryDecision,
  RetryPolicy,
  RetryPolicyOptions,
} from '../policy/retry/RetryPolicy.js';
import { fixedTimeout, type TimeoutStrategy } from '../policy/timeout/TimeoutStrategy.js';
import { Cancellation } from './Cancellation.js';
import { currentContext, runWithContext } from './context.js';
import { AttemptTimeoutError, errorCode } from './errors.js';
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
  /**
   * Attempts made so far, including the one this event is about (a give-up on a deadline spent
   * before an attempt counts only those sent: 0 for a call whose deadline was spent on arrival).
   */
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
export function retry<T>(
  fn: (info: AttemptInfo) => Promise<T>,
  options: RetryOptions<T>,
): Promise<T> {
  // Not async itself: an async wrapper would add its own promise and turns to every call.
  const { signal } = options;
  if (signal === undefined) return executeRetry(fn, options, Cancellation.never);
  const call = Cancellation.following(signal);
  return executeRetry(fn, options, call).finally(() => call.release());
}

/** How {@link executeRetry} runs a call, besides its {@link RetryOptions}. */
export interface ExecuteSettings {
  /**
   * Whether each attempt runs inside the request context (class, deadline, attempt); default
   * true. An adapter whose attempt runs no code of the caller's may spare it (the context's
   * async hooks make every promise of the process dearer once used).
   */
  readonly context?: boolean;
}

/**
 * The executor behind {@link retry}, for the adapters: the call is aborted through `call` (its
 * `signal` option is not read), and each attempt gets, besides its {@link AttemptInfo} (whose
 * `signal` is only made when read), its own {@link Cancellation}, which aborts on the per-try
 * timeout or with the call.
 */
export async function executeRetry<T>(
  fn: (info: AttemptInfo, cancellation: Cancellation) => Promise<T>,
  options: RetryOptions<T>,
  call: Cancellation,
  settings?: ExecuteSettings,
): Promise<T> {
  const inContext = settings?.context ?? true;
  const policy = 'decide' in options.policy ? options.policy : retryPolicy(options.policy);
  const clock = policy.clock;
  const context = currentContext();
  const className = policy.classify(options.className ?? context?.className);
  const deadlineMs =
    options.deadlineMs !== undefined ? clock() + options.deadlineMs : context?.deadlineMs;
  const classTimeout = policy.timeoutMs(className);
  const timeout =
    options.timeout ?? (classTimeout === undefined ? undefined : fixedTimeout(classTimeout));
  const { classify, onRetry, onGiveUp, onSuccess, onFailure } = options;
  const retryLimit = options.retryLimit ?? Number.POSITIVE_INFINITY;
  if (!(retryLimit >= 0 && (Number.isInteger(retryLimit) || retryLimit === Infinity))) {
    throw new RangeError(`retryLimit should be an integer ≥ 0, got ${options.retryLimit}`);
  }
  const budget = policy.budget;
  call.throwIfAborted();
  budget?.requestStarted(className, clock());
  let previousDelayMs: number | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const chosenMs = timeout?.next(attempt);
      // The deadline bounds every attempt, with or without a per-try timeout.
      const leftMs = deadlineMs === undefined ? undefined : Math.max(0, deadlineMs - clock());
      const cutByDeadline = leftMs !== undefined && (chosenMs === undefined || leftMs < chosenMs);
      const timeoutMs = cutByDeadline ? leftMs : chosenMs;
      if (cutByDeadline && leftMs <= 0) {
        // The deadline is spent before this attempt: it is never sent, so it is no attempt (no
        // onFailure, nothing observed); the call gives up on the deadline at once.
        if (attempt > 0) budget?.retryFinished(className, clock());
        const error = new AttemptTimeoutError(0);
        if (onGiveUp || channels.giveUp.hasSubscribers) {
          emit(channels.giveUp, onGiveUp, {
            className,
            attempts: attempt,
            outcome: { kind: 'timeout' },
            reason: 'deadline',
            error,
          });
        }
        throw error;
      }
      const started = timeout ? clock() : 0;
      let outcome: AttemptOutcome;
      let value: T | undefined;
      let thrown: { error: unknown } | undefined;
      try {
        value = await runAttempt(fn, attempt, className, deadlineMs, timeoutMs, call, inContext);
        outcome = classify ? classify(value) : SUCCESS;
      } catch (error) {
        if (call.aborted) throw call.reason;
        thrown = { error };
        outcome =
          error instanceof AttemptTimeoutError
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
          ? callLimitDecision(policy, className, outcome, options.method)
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
        await sleep(decision.delayMs, call);
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

/**
 * Why a call stops at its own `retryLimit` (a body that cannot be sent again): the policy is asked
 * as if the class's limit were used up, so a method it never retries still gives up as
 * `non-idempotent` (the reason the call would have stopped anyway), and anything else stops at
 * `limit` before the policy reaches pushback, the deadline or the budget (which would count a
 * retry never made).
 */
function callLimitDecision(
  policy: RetryPolicy,
  className: string,
  outcome: AttemptOutcome,
  method: string | undefined,
): RetryDecision {
  const spent = policy.decide({
    className,
    retries: Number.POSITIVE_INFINITY,
    outcome,
    ...(method !== undefined && { method }),
  });
  return spent.retry ? { retry: false, reason: 'limit' } : spent;
}

function emit(
  diagnostics: ReturnType<typeof channel>,
  listener: ((event: RetryEvent) => void) | undefined,
  event: RetryEvent,
): void {
  listener?.(event);
  if (diagnostics.hasSubscribers) diagnostics.publish(event);
}

/**
 * Runs one attempt (in the request context unless `inContext` is false) until it settles, its
 * per-try timeout expires or the call is aborted, whichever comes first.
 */
function runAttempt<T>(
  fn: (info: AttemptInfo, cancellation: Cancellation) => Promise<T>,
  attempt: number,
  className: string,
  deadlineMs: number | undefined,
  timeoutMs: number | undefined,
  call: Cancellation,
  inContext: boolean,
): Promise<T> {
  // No time left before the deadline: the attempt is not sent at all.
  if (timeoutMs !== undefined && timeoutMs <= 0) return Promise.reject(new AttemptTimeoutError(0));
  if (call.aborted) return Promise.reject(call.reason);
  if (timeoutMs === undefined) {
    // Only the call's abort can end it: the attempt runs under the call's cancellation.
    const info = new Attempt(attempt, className, deadlineMs, undefined, call);
    const work = startAttempt(fn, info, call, inContext);
    return call.abortable ? untilAborted(work, call, NO_OP) : work;
  }
  // A cancellation of the attempt's own, which its timer or the call's abort ends.
  const own = call.child();
  const timer = setTimeout(() => own.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
  const info = new Attempt(attempt, className, deadlineMs, timeoutMs, own);
  const work = startAttempt(fn, info, own, inContext);
  return untilAborted(work, own, () => {
    clearTimeout(timer);
    own.release();
  });
}

const NO_OP = (): void => {};

/**
 * The {@link AttemptInfo} of one attempt, whose `signal` is made on first read. (A class: an
 * object literal with a getter costs V8 about as much as the rest of the attempt.)
 */
class Attempt implements AttemptInfo {
  readonly attempt: number;
  readonly className: string;
  readonly deadlineMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly #cancellation: Cancellation;

  constructor(
    attempt: number,
    className: string,
    deadlineMs: number | undefined,
    timeoutMs: number | undefined,
    cancellation: Cancellation,
  ) {
    this.attempt = attempt;
    this.className = className;
    this.deadlineMs = deadlineMs;
    this.timeoutMs = timeoutMs;
    this.#cancellation = cancellation;
  }

  get signal(): AbortSignal {
    return this.#cancellation.signal;
  }
}

/**
 * Calls `fn` (inside the attempt's request context unless `inContext` is false) with an
 * {@link AttemptInfo} whose `signal` is made only if read. A synchronous throw is an attempt that
 * failed, like a rejection.
 */
function startAttempt<T>(
  fn: (info: AttemptInfo, cancellation: Cancellation) => Promise<T>,
  info: Attempt,
  cancellation: Cancellation,
  inContext: boolean,
): Promise<T> {
  try {
    if (!inContext) return fn(info, cancellation);
    return runWithContext(
      { className: info.className, deadlineMs: info.deadlineMs, attempt: info.attempt },
      () => fn(info, cancellation),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `work`, unless `cancellation` aborts first (then its reason); `done` runs once either has
 * happened (and may run again later).
 */
function untilAborted<T>(
  work: Promise<T>,
  cancellation: Cancellation,
  done: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (cancellation.aborted) {
      done();
      reject(cancellation.reason);
      // The attempt that lost may still reject later; that rejection is expected.
      work.catch(NO_OP);
      return;
    }
    const stop = cancellation.onAbort((reason) => {
      done();
      reject(reason);
    });
    work.then(
      (value) => {
        stop();
        done();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        done();
        reject(error);
      },
    );
  });
}

/** Waits `ms` (a timer, so fake timers drive it in tests); rejects at once if `call` aborts. */
function sleep(ms: number, call: Cancellation): Promise<void> {
  if (call.aborted) return Promise.reject(call.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
    const stop = call.onAbort((reason) => {
      clearTimeout(timer);
      reject(reason);
    });
  });
}
