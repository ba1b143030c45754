import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { fixedTimeout, type TimeoutStrategy } from '../timeouts/TimeoutStrategy.js';
import type { AttemptOutcome } from './AttemptOutcome.js';
import type { RetryEventKind, RetryEventSink } from './RetryEvent.js';
import type { GiveUpReason, RetryDecision, RetryPolicy } from './RetryPolicy.js';

/** How one call runs, besides its class (see {@link CallTracker.begin}). */
export interface CallSettings {
  /** HTTP method, for the idempotency rule; omit for calls without one. */
  readonly method?: string;
  /**
   * Absolute deadline of the whole call on the policy's clock (ms); default none.
   * @default none (no deadline)
   */
  readonly deadlineMs?: number;
  /**
   * At most this many retries for this call, below the class's limit (an integer ≥ 0, or
   * `Infinity`); default no cap of its own. Adapters pass 0 for a request that cannot be sent twice.
   * @default Infinity (no cap of its own; the class's limit applies)
   */
  readonly retryLimit?: number;
  /**
   * Per-try timeouts; `null` for none; default (undefined) the class's (or the policy's)
   * `timeoutMs` as a fixed timeout, if any.
   * @default the class's (or the policy's) `timeoutMs` as a fixed timeout, if any
   */
  readonly timeout?: TimeoutStrategy | null;
  /**
   * Where the call's events go; default nowhere.
   * @default none (events go nowhere)
   */
  readonly events?: RetryEventSink;
}

/** The decision that ends a call whose attempt succeeded. */
export const SUCCEEDED: RetryDecision = Object.freeze({ retry: false, reason: 'success' });

/** {@link CallTracker.startAttempt}'s answer when the deadline is spent: send nothing, give up. */
export const DEADLINE_SPENT = -1;

/** {@link CallTracker.startAttempt}'s answer for an attempt without a timeout. */
export const NO_TIMEOUT = Number.POSITIVE_INFINITY;

const TIMEOUT: AttemptOutcome = Object.freeze({ kind: 'timeout' });

/** The decision for an attempt whose timeout was the deadline's rest, and which timed out. */
const DEADLINE_REACHED: RetryDecision = Object.freeze({ retry: false, reason: 'deadline' });

/** The policy of an idle tracker, before its first `begin`: never asked. */
const IDLE_POLICY = Object.freeze({}) as RetryPolicy;

/**
 * The one retry engine: the budget-and-decide sequence of a call, which every executor —
 * `retry()`, `difftryFetch`, the undici and gRPC interceptors, the sidecar (through the undici
 * interceptor), the simulator — drives the same way. Synchronous and free of I/O: the executor
 * sends the attempts and waits the delays; the tracker says how long each attempt may run, what
 * to do once it ended, and reports the call's life to the policy's budget, the timeout strategy
 * and the event sink. Every time it takes is the policy's clock.
 *
 * A tracker is reusable: `begin` starts a new call, under any policy, once the previous one has
 * ended (the simulator keeps one per request slot).
 * @example
 * ```ts
 * const tracker = new CallTracker();
 * tracker.begin(policy, policy.classify(header), { deadlineMs: policy.clock() + 2000 });
 * for (;;) {
 *   const timeoutMs = tracker.startAttempt(); // DEADLINE_SPENT: the call has given up
 *   if (timeoutMs === DEADLINE_SPENT) throw new Error('deadline');
 *   const outcome = await send(timeoutMs); // { kind: 'status', status: 503 }, …
 *   const decision = tracker.attemptEnded(outcome);
 *   if (!decision.retry) return decision.reason; // 'success', 'limit', 'budget', …
 *   await sleep(decision.delayMs);
 * }
 * ```
 */
export class CallTracker {
  // Every field is set by `begin` (or the constructor, for an idle tracker), in this order, so
  // all trackers share one shape and a call's setup stores each field once.
  /** The policy of the current (or last) call; set by `begin`. */
  declare policy: RetryPolicy;
  /** The call's class, as the policy resolved it. */
  declare className: string;
  /** Attempts ended so far; also the index of the attempt that starts next. */
  declare attempts: number;
  declare private method: string | undefined;
  declare private deadlineMs: number | undefined;
  declare private retryLimit: number;
  declare private timeout: TimeoutStrategy | undefined;
  declare private events: RetryEventSink | undefined;
  declare private previousDelayMs: number | undefined;
  /** Whether the current attempt's timeout is the deadline's rest rather than the strategy's. */
  declare private cutByDeadline: boolean;
  declare private attemptStart: number;
  /** Whether the call holds a retry its budget admitted and has not had back. */
  declare private holdsRetry: boolean;
  declare private active: boolean;

  /**
   * A tracker; with a policy, the call begins at once (as {@link begin}); without, it waits idle
   * for `begin` (the simulator keeps idle trackers for its request slots).
   */
  constructor(policy?: RetryPolicy, className = '', settings?: CallSettings) {
    if (policy !== undefined) {
      this.begin(policy, className, settings);
      return;
    }
    this.policy = IDLE_POLICY;
    this.className = className;
    this.attempts = 0;
    this.method = undefined;
    this.deadlineMs = undefined;
    this.retryLimit = NO_TIMEOUT;
    this.timeout = undefined;
    this.events = undefined;
    this.previousDelayMs = undefined;
    this.cutByDeadline = false;
    this.attemptStart = 0;
    this.holdsRetry = false;
    this.active = false;
  }

  /** Whether the call has begun and not yet ended. */
  get open(): boolean {
    return this.active;
  }

  /**
   * Starts a call of `className` under `policy`; the budget hears of a new request. The class is
   * one of the policy's names, as `policy.classify` gives it (the executor reads the class from
   * its host: a header, metadata, the request context). Throws a `RangeError` on a bad
   * `retryLimit`.
   */
  begin(policy: RetryPolicy, className: string, settings?: CallSettings): void {
    this.policy = policy;
    this.className = className;
    this.attempts = 0;
    if (settings === undefined) {
      this.method = undefined;
      this.deadlineMs = undefined;
      this.retryLimit = NO_TIMEOUT;
      this.timeout = classTimeout(policy, className);
      this.events = undefined;
    } else {
      this.method = settings.method;
      this.deadlineMs = settings.deadlineMs;
      this.retryLimit =
        settings.retryLimit === undefined ? NO_TIMEOUT : checkedLimit(settings.retryLimit);
      const timeout = settings.timeout;
      this.timeout =
        timeout === undefined ? classTimeout(policy, className) : (timeout ?? undefined);
      this.events = settings.events;
    }
    this.previousDelayMs = undefined;
    this.cutByDeadline = false;
    this.attemptStart = 0;
    this.holdsRetry = false;
    this.active = true;
    policy.budget?.requestStarted(className, policy.clock());
  }

  /**
   * The next attempt starts: its timeout in ms (the strategy's, cut to the deadline's rest), or
   * {@link NO_TIMEOUT}. When the deadline is already spent the attempt is not to be sent at all
   * (it is no attempt: no failure, nothing observed): the call gives up on the deadline at once
   * and ends, and the answer is {@link DEADLINE_SPENT}.
   */
  startAttempt(): number {
    // The common call, with neither timeout nor deadline, in a body small enough to inline.
    if (this.timeout === undefined && this.deadlineMs === undefined) return NO_TIMEOUT;
    return this.timedAttempt();
  }

  /** {@link startAttempt} of a call with a timeout strategy or a deadline. */
  private timedAttempt(): number {
    const chosenMs = this.timeout?.next(this.attempts);
    const deadlineMs = this.deadlineMs;
    let timeoutMs = chosenMs ?? NO_TIMEOUT;
    this.cutByDeadline = false;
    if (deadlineMs !== undefined) {
      // The deadline bounds every attempt, with or without a per-try timeout.
      const leftMs = Math.max(0, deadlineMs - this.policy.clock());
      if (chosenMs === undefined || leftMs < chosenMs) {
        if (leftMs <= 0) {
          this.giveBackRetry();
          this.emit('giveUp', this.attempts, TIMEOUT, undefined, 'deadline', undefined);
          this.end();
          return DEADLINE_SPENT;
        }
        this.cutByDeadline = true;
        timeoutMs = leftMs;
      }
    }
    if (this.timeout !== undefined) this.attemptStart = this.policy.clock();
    return timeoutMs;
  }

  /**
   * The current attempt ended with `outcome` (`error`: what it threw, for the events): the
   * decision says whether to retry and after what delay, or why the call stops. A decision that
   * does not retry ends the call ({@link SUCCEEDED} for a success); a retry is counted against
   * the budget until its attempt ends.
   */
  attemptEnded(outcome: AttemptOutcome, error?: unknown): RetryDecision {
    const attempt = this.attempts++;
    // Every admitted retry is given back however its attempt ended.
    this.giveBackRetry();
    if (this.timeout !== undefined) this.observe(outcome);
    if (outcome.kind !== 'success') return this.failed(outcome, attempt, error);
    const policy = this.policy;
    policy.budget?.attemptSucceeded(this.className, policy.clock());
    this.emit('success', attempt + 1, outcome, undefined, undefined, undefined);
    this.end();
    return SUCCEEDED;
  }

  /** Tells the timeout strategy what the attempt took. */
  private observe(outcome: AttemptOutcome): void {
    // A timeout the deadline imposed says nothing about the timeout the strategy chose.
    if (this.cutByDeadline && outcome.kind === 'timeout') return;
    (this.timeout as TimeoutStrategy).observe(
      outcome.kind === 'success' ? 'success' : outcome.kind === 'timeout' ? 'timeout' : 'failure',
      this.policy.clock() - this.attemptStart,
    );
  }

  /** {@link attemptEnded} for an attempt that failed. */
  private failed(outcome: AttemptOutcome, attempt: number, error: unknown): RetryDecision {
    const policy = this.policy;
    const budget = policy.budget;
    const className = this.className;
    const retryable = policy.isRetryable(outcome);
    if (retryable) budget?.attemptFailed(className, policy.clock());
    this.emit('failure', attempt + 1, outcome, undefined, undefined, error);
    // An attempt cut to the deadline's rest that timed out has spent the deadline, whatever
    // the clock reads: a timer may fire a millisecond or more before the clock passes the
    // deadline (Node's timers run on the event loop's cached time), and a retry then would be
    // sent with next to no time left.
    const decision =
      this.cutByDeadline && outcome.kind === 'timeout'
        ? DEADLINE_REACHED
        : attempt >= this.retryLimit && retryable
          ? this.callLimitDecision(outcome)
          : policy.decide({
              className,
              retries: attempt,
              outcome,
              method: this.method,
              deadlineMs: this.deadlineMs,
              previousDelayMs: this.previousDelayMs,
            });
    if (!decision.retry) {
      this.emit('giveUp', attempt + 1, outcome, undefined, decision.reason, error);
      this.end();
      return decision;
    }
    this.holdsRetry = true;
    this.emit('retry', attempt + 1, outcome, decision.delayMs, undefined, undefined);
    // The server's wait is not the backoff's: decorrelated jitter grows from the last backoff.
    if (!decision.fromServer) this.previousDelayMs = decision.delayMs;
    return decision;
  }

  /**
   * From now on the call makes no more retries than it has made (a request whose body can no
   * longer be replayed): a failure gives up as `limit` (or as the policy would anyway).
   */
  stopRetrying(): void {
    this.retryLimit = Math.min(this.retryLimit, this.attempts);
  }

  /**
   * The call ends without an outcome (aborted during an attempt or a wait, or its executor
   * failed): a retry it holds goes back to the budget, the request ends there; no event. Does
   * nothing once the call has ended.
   */
  abandon(): void {
    if (!this.active) return;
    this.giveBackRetry();
    this.end();
  }

  private giveBackRetry(): void {
    if (!this.holdsRetry) return;
    this.holdsRetry = false;
    this.policy.budget?.retryFinished(this.className, this.policy.clock());
  }

  private end(): void {
    this.active = false;
    this.policy.budget?.requestFinished(this.className, this.policy.clock());
  }

  /**
   * Why a call stops at its own `retryLimit`: the policy is asked as if the class's limit were
   * used up, so a method it never retries still gives up as `non-idempotent` (the reason the call
   * would have stopped anyway), and anything else stops at `limit` before the policy reaches
   * pushback, the deadline or the budget (which would count a retry never made).
   */
  private callLimitDecision(outcome: AttemptOutcome): RetryDecision {
    const spent = this.policy.decide({
      className: this.className,
      retries: Number.POSITIVE_INFINITY,
      outcome,
      ...(this.method !== undefined && { method: this.method }),
    });
    return spent.retry ? { retry: false, reason: 'limit' } : spent;
  }

  private emit(
    kind: RetryEventKind,
    attempts: number,
    outcome: AttemptOutcome,
    delayMs: number | undefined,
    reason: GiveUpReason | undefined,
    error: unknown,
  ): void {
    const events = this.events;
    if (events?.wants(kind)) this.send(events, kind, attempts, outcome, delayMs, reason, error);
  }

  private send(
    events: RetryEventSink,
    kind: RetryEventKind,
    attempts: number,
    outcome: AttemptOutcome,
    delayMs: number | undefined,
    reason: GiveUpReason | undefined,
    error: unknown,
  ): void {
    const className = this.className;
    switch (kind) {
      case 'retry':
        events.emit(kind, { className, attempts, outcome, delayMs });
        return;
      case 'giveUp':
        events.emit(kind, { className, attempts, outcome, reason, error });
        return;
      case 'success':
        events.emit(kind, { className, attempts, outcome });
        return;
      case 'failure':
        events.emit(kind, { className, attempts, outcome, error });
    }
  }
}

/** The class's (or the policy's) `timeoutMs` as a fixed timeout, if it has one. */
function classTimeout(policy: RetryPolicy, className: string): TimeoutStrategy | undefined {
  const classMs = policy.timeoutMs(className);
  return classMs === undefined ? undefined : fixedTimeout(classMs);
}

/** A call's own retry limit, checked: an integer ≥ 0 or `Infinity`. */
function checkedLimit(retryLimit: number): number {
  if (!(retryLimit >= 0 && (Number.isInteger(retryLimit) || retryLimit === NO_TIMEOUT))) {
    throw new InvalidArgumentError(`retryLimit should be an integer ≥ 0, got ${retryLimit}`);
  }
  return retryLimit;
}
