import type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
import { CallTracker, DEADLINE_SPENT, NO_TIMEOUT } from '../policy/retry/CallTracker.js';
import type { RetryPolicy, RetryPolicyOptions } from '../policy/retry/RetryPolicy.js';
import { retryPolicy } from '../policy/retry/RetryPolicy.js';
import type { TimeoutStrategy } from '../policy/timeouts/TimeoutStrategy.js';
import { Cancellation } from './Cancellation.js';
import { currentContext, runWithContextOf } from './context.js';
import { AttemptTimeoutError, errorCode } from './errors.js';
import { eventSink, type RetryListeners } from './retryEvents.js';
import { type AttemptDescription, callTelemetry } from './telemetry/CallTelemetry.js';

export type { RetryEvent } from '../policy/retry/RetryEvent.js';
export { channels } from './retryEvents.js';

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

/** Options of {@link retry}. */
export interface RetryOptions<T> extends RetryListeners {
  /** The policy, or the options to build one. Build it once and share it: budgets live in it. */
  readonly policy: RetryPolicy | RetryPolicyOptions;
  /**
   * The request's class; default the current request context's, else the policy's default.
   * @default the current request context's class, else the policy's default class
   */
  readonly className?: string;
  /** HTTP method, for the idempotency rule. */
  readonly method?: string;
  /** Aborts the whole call: the current attempt and any wait. */
  readonly signal?: AbortSignal;
  /**
   * Total time for the call (ms from now). The call ends at the sooner of this and the request
   * context's deadline (a call made while serving a request never outlives it). No attempt runs
   * past it: an attempt's timeout is cut to the time left.
   * @default none of its own: the request context's deadline, if any
   */
  readonly deadlineMs?: number;
  /**
   * Per-try timeouts; default the class's (or policy's) `timeoutMs`, if any.
   * @default the class's (or policy's) `timeoutMs` as a fixed timeout, if any
   */
  readonly timeout?: TimeoutStrategy;
  /**
   * At most this many retries for this call, below the class's limit (an integer ≥ 0). Adapters
   * pass 0 for a request whose body cannot be sent twice.
   * @default the class's limit (no cap of its own)
   */
  readonly retryLimit?: number;
  /**
   * Translates a resolved value into an outcome (default: success).
   * @default every value is a success
   */
  readonly classify?: (result: T) => AttemptOutcome;
  /** Drops a value that is about to be retried (e.g. cancels a response body). */
  readonly discard?: (result: T) => void | Promise<void>;
  /**
   * How each attempt appears in OpenTelemetry, when the application has registered a tracer
   * provider: its span's name, kind and attributes (the adapters give HTTP's and gRPC's);
   * `false`: no span and no metric for this call, whatever is registered.
   * @default a span named `retry.attempt`, of kind internal
   */
  readonly telemetry?: AttemptDescription<T> | false;
}

/** The span of an attempt of `retry()` that names none. */
const RETRY_ATTEMPT: AttemptDescription<unknown> = Object.freeze({ name: 'retry.attempt' });

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
   * @default true
   */
  readonly context?: boolean;
}

/**
 * The executor behind {@link retry}, for the adapters: the call is aborted through `call` (its
 * `signal` option is not read), and each attempt gets, besides its {@link AttemptInfo} (whose
 * `signal` is only made when read), its own {@link Cancellation}, which aborts on the per-try
 * timeout or with the call.
 */
export function executeRetry<T>(
  fn: (info: AttemptInfo, cancellation: Cancellation) => Promise<T>,
  options: RetryOptions<T>,
  call: Cancellation,
  settings?: ExecuteSettings,
): Promise<T> {
  // The call is set up here and run by an async function of its own: V8 never inlines an async
  // function, so the attempt loop keeps its own inlining budget for the per-attempt steps.
  let tracker: CallTracker;
  let deadlineMs: number | undefined;
  try {
    const policy = 'decide' in options.policy ? options.policy : retryPolicy(options.policy);
    const context = currentContext();
    deadlineMs = soonest(
      options.deadlineMs === undefined ? undefined : policy.clock() + options.deadlineMs,
      context?.deadlineMs,
    );
    call.throwIfAborted();
    tracker = new CallTracker(policy, policy.classify(options.className ?? context?.className), {
      method: options.method,
      deadlineMs,
      retryLimit: options.retryLimit,
      timeout: options.timeout,
      events: eventSink(options),
    });
  } catch (error) {
    return Promise.reject(error);
  }
  return runCall(tracker, fn, options, call, deadlineMs, settings?.context ?? true);
}

/** The sooner of two deadlines (or times), either of which may be missing. */
export function soonest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** The attempts of a call {@link executeRetry} has begun, until it ends. */
async function runCall<T>(
  tracker: CallTracker,
  fn: (info: AttemptInfo, cancellation: Cancellation) => Promise<T>,
  options: RetryOptions<T>,
  call: Cancellation,
  deadlineMs: number | undefined,
  inContext: boolean,
): Promise<T> {
  const { className } = tracker;
  const { classify } = options;
  // Undefined unless the application registered an OpenTelemetry provider.
  const described = options.telemetry;
  const telemetry =
    described === false
      ? undefined
      : callTelemetry<T>(className, described ?? (RETRY_ATTEMPT as AttemptDescription<T>));
  try {
    for (;;) {
      const attempt = tracker.attempts;
      const timeoutMs = tracker.startAttempt();
      // The deadline is spent before this attempt: it is never sent, and the call has given up.
      if (timeoutMs === DEADLINE_SPENT) {
        telemetry?.gaveUpBeforeAttempt('deadline');
        throw new AttemptTimeoutError(0);
      }
      let outcome: AttemptOutcome;
      let value: T | undefined;
      let thrown: { error: unknown } | undefined;
      try {
        const perTryMs = timeoutMs === NO_TIMEOUT ? undefined : timeoutMs;
        if (telemetry === undefined) {
          value = await runAttempt(fn, attempt, className, deadlineMs, perTryMs, call, inContext);
        } else {
          telemetry.startAttempt(attempt);
          value = await telemetry.run(() =>
            runAttempt(fn, attempt, className, deadlineMs, perTryMs, call, inContext),
          );
        }
        outcome = classify ? classify(value) : SUCCESS;
      } catch (error) {
        if (call.aborted) {
          telemetry?.abandon(call.reason);
          throw call.reason;
        }
        thrown = { error };
        outcome =
          error instanceof AttemptTimeoutError
            ? { kind: 'timeout' }
            : { kind: 'error', code: errorCode(error) };
      }
      const decision = tracker.attemptEnded(outcome, thrown?.error);
      telemetry?.endAttempt(outcome, decision, thrown ? undefined : value, thrown?.error);
      if (!decision.retry) {
        if (thrown) throw thrown.error;
        return value as T;
      }
      if (!thrown && options.discard) await options.discard(value as T);
      await sleep(decision.delayMs, call);
    }
  } finally {
    // An abort (or a throwing `discard`) leaves the call open: its retry goes back to the budget.
    tracker.abandon();
  }
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
    return runWithContextOf(
      { className: info.className, deadlineMs: info.deadlineMs, attempt: info.attempt },
      fn,
      info,
      cancellation,
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
