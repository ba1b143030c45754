import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
import { CallTracker, DEADLINE_SPENT, NO_TIMEOUT } from '../policy/retry/CallTracker.js';
import type { RetryEventSink } from '../policy/retry/RetryEvent.js';
import type { RetryPolicy } from '../policy/retry/RetryPolicy.js';
import { type AdapterOptions, responseOutcome } from './adapter.js';
import type { RequestContext } from './context.js';
import { AttemptTimeoutError, errorCode } from './errors.js';
import { formatRemainingMs } from './remainingTime.js';
import { soonest } from './retry.js';
import { adapterTelemetry, httpAttempt, traceHeaders } from './telemetry/attemptDescriptions.js';
import { type CallTelemetry, callTelemetry } from './telemetry/CallTelemetry.js';
import { ExchangeController } from './undiciController.js';

/**
 * One call through {@link difftryInterceptor}'s undici handler: the exchange of its attempts
 * (each an undici handler of its own) driven by the retry engine ({@link CallTracker}) from
 * undici's callbacks. src/runtime/undici.ts makes one per call.
 */

/** A retried response whose body is at most this long (bytes) is drained to keep its connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });
const TIMEOUT: AttemptOutcome = Object.freeze({ kind: 'timeout' });

/** What every call through one interceptor shares. */
export interface InterceptorSettings {
  readonly policy: RetryPolicy;
  /** The adapter's settings the calls read (per-try timeout, telemetry). */
  readonly options: AdapterOptions;
  /** The deadline header's name (lower case), if any. */
  readonly deadlineHeader: string | undefined;
  /** Where each call's events go (its listeners, then the diagnostics channels). */
  readonly events: RetryEventSink;
}

/**
 * One call through the interceptor: the handler's side, and the executor of its attempts. The
 * executor takes the steps of `retry()`'s (`runCall` in retry.ts) in the same order, with the
 * same calls to the tracker, the telemetry and the listeners: each attempt's timeout comes from
 * the tracker, an attempt ends with its response's headers, an error or its per-try timeout, the
 * tracker decides, and a retry waits its delay (a timer; a delay of 0 waits a microtask). A call
 * the handler aborts ends at once, wherever it is, its retry given back to the budget; an error
 * ending the call reaches the handler on a later microtask, never inside `dispatch`.
 */
export class Exchange {
  readonly controller: ExchangeController;
  #tracker: CallTracker | undefined;
  #telemetry: CallTelemetry<Attempt> | undefined;
  #deadlineMs: number | undefined;
  /** The attempt in flight (until it is settled), or the last one. */
  #current: Attempt | undefined;
  /** The timer of the wait before the next attempt, while it runs. */
  #waitTimer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the handler has had the call's end (normal or an error). */
  #finished = false;
  #aborted = false;
  #reason: Error | undefined;
  /** The first attempt's back-pressure answer, which the interceptor returns. */
  #ready = true;

  constructor(
    readonly settings: InterceptorSettings,
    readonly dispatch: Dispatcher.Dispatch,
    readonly handler: Dispatcher.DispatchHandler,
    /** The request, with its class header set. */
    readonly opts: Dispatcher.DispatchOptions,
  ) {
    this.controller = new ExchangeController(this);
  }

  /** Whether the handler has aborted the call. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why the handler aborted the call. */
  get reason(): Error | undefined {
    return this.#reason;
  }

  /**
   * Begins the call and sends its first attempt (synchronously, so that its back-pressure answer
   * is returned). `className`: as the policy resolved it; `deadlineMs`: the call's own time, ms
   * from now, if any.
   */
  start(
    className: string,
    context: RequestContext | undefined,
    deadlineMs: number | undefined,
  ): boolean {
    const { policy, options, events } = this.settings;
    const opts = this.opts;
    // The handler gets one controller for the whole call, before any attempt: it can abort
    // during a wait, and never sees the controllers of attempts that are retried.
    this.handler.onRequestStart?.(this.controller, undefined);
    const body = opts.body;
    const replayable =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    const description = adapterTelemetry(options.telemetry, (providers) =>
      httpAttempt<Attempt>(
        opts.method,
        `${String(opts.origin ?? '')}${opts.path}`,
        attemptStatus,
        providers,
      ),
    );
    let tracker: CallTracker;
    try {
      this.#deadlineMs = soonest(
        deadlineMs === undefined ? undefined : policy.clock() + deadlineMs,
        context?.deadlineMs,
      );
      if (this.#aborted) throw this.#reason;
      tracker = new CallTracker(policy, className, {
        method: opts.method,
        deadlineMs: this.#deadlineMs,
        retryLimit: replayable ? undefined : 0,
        timeout: options.timeout,
        events,
      });
    } catch (error) {
      this.#close(error);
      return this.#ready;
    }
    this.#tracker = tracker;
    if (description !== false) this.#telemetry = callTelemetry(tracker.className, description);
    this.#nextAttempt();
    return this.#ready;
  }

  /** Starts the next attempt, unless the deadline is spent (then the call gives up). */
  #nextAttempt(): void {
    const tracker = this.#tracker as CallTracker;
    const telemetry = this.#telemetry;
    try {
      const index = tracker.attempts;
      const timeoutMs = tracker.startAttempt();
      // The deadline is spent before this attempt: it is never sent, and the call has given up.
      if (timeoutMs === DEADLINE_SPENT) {
        telemetry?.gaveUpBeforeAttempt('deadline');
        this.#close(new AttemptTimeoutError(0));
        return;
      }
      const perTryMs = timeoutMs === NO_TIMEOUT ? undefined : timeoutMs;
      if (telemetry === undefined) {
        this.#send(index, perTryMs);
      } else {
        telemetry.startAttempt(index);
        telemetry.run(() => this.#send(index, perTryMs));
      }
    } catch (error) {
      this.#close(error);
    }
  }

  /** Sends attempt `index`, with its per-try timeout (ms), if any. */
  #send(index: number, timeoutMs: number | undefined): void {
    // No time left before the deadline: the attempt is not sent at all.
    if (timeoutMs !== undefined && timeoutMs <= 0) {
      this.#attemptFailed(new AttemptTimeoutError(0));
      return;
    }
    if (this.#aborted) {
      this.#attemptFailed(this.#reason);
      return;
    }
    const attempt = new Attempt(this);
    this.#current = attempt;
    if (timeoutMs !== undefined) attempt.timer = setTimeout(expire, timeoutMs, attempt, timeoutMs);
    try {
      const opts = this.opts;
      const deadlineHeader = this.settings.deadlineHeader;
      const deadlineMs = this.#deadlineMs;
      const traced = this.#telemetry === undefined ? undefined : traceHeaders();
      const sent =
        (deadlineHeader === undefined || deadlineMs === undefined) && traced === undefined
          ? opts
          : {
              ...opts,
              headers: {
                ...(opts.headers as Record<string, string | string[]>),
                ...traced,
                ...(deadlineHeader === undefined || deadlineMs === undefined
                  ? {}
                  : {
                      [deadlineHeader]: formatRemainingMs(deadlineMs, this.settings.policy.clock()),
                    }),
              },
            };
      const accepted = this.dispatch(sent, attempt);
      if (index === 0) this.#ready = accepted;
    } catch (error) {
      // A dispatch that throws is an attempt that failed, like one that reports an error.
      this.attemptFailed(attempt, error);
    }
  }

  /** `attempt` has its response's headers (its outcome is set): the policy decides on it. */
  attemptAnswered(attempt: Attempt): void {
    if (!this.#settle(attempt)) return;
    if (attempt.outcome.kind === 'success') {
      this.#decide(attempt);
      return;
    }
    // A response held (paused) is decided on a later microtask, outside undici's callback, as a
    // retried one is then resumed or aborted.
    queueMicrotask(() => this.#decide(attempt));
  }

  /** `attempt` failed with `error` (undici's, or a throwing dispatch). */
  attemptFailed(attempt: Attempt, error: unknown): void {
    if (this.#settle(attempt)) this.#attemptFailed(error);
  }

  /**
   * `attempt` is aborted with `reason` (its per-try timeout, or the handler's abort): it ends
   * with that reason, whatever its request reports as it is aborted.
   */
  attemptAborted(attempt: Attempt, reason: unknown): void {
    if (!this.#settle(attempt)) return;
    attempt.abort(reason);
    this.#attemptFailed(reason);
  }

  /** Marks the current attempt ended (once): false for any other or a second time. */
  #settle(attempt: Attempt): boolean {
    if (attempt !== this.#current || attempt.settled) return false;
    attempt.settled = true;
    if (attempt.timer !== undefined) {
      clearTimeout(attempt.timer);
      attempt.timer = undefined;
    }
    return true;
  }

  /** The current attempt (or one never sent) failed with `error`. */
  #attemptFailed(error: unknown): void {
    if (this.#aborted) {
      this.#telemetry?.abandon(this.#reason);
      this.#close(this.#reason);
      return;
    }
    const outcome: AttemptOutcome =
      error instanceof AttemptTimeoutError ? TIMEOUT : { kind: 'error', code: errorCode(error) };
    this.#decided(outcome, undefined, error);
  }

  /** The policy's decision on the response `attempt` received. */
  #decide(attempt: Attempt): void {
    if (this.#aborted) {
      this.#telemetry?.abandon(this.#reason);
      this.#close(this.#reason);
      return;
    }
    this.#decided(attempt.outcome, attempt, undefined);
  }

  /**
   * The current attempt ended with `outcome`: with a response (`answered`) or with `error`. The
   * tracker decides; the call ends, or the next attempt follows its delay.
   */
  #decided(outcome: AttemptOutcome, answered: Attempt | undefined, error: unknown): void {
    const tracker = this.#tracker as CallTracker;
    try {
      const decision = tracker.attemptEnded(outcome, error);
      this.#telemetry?.endAttempt(outcome, decision, answered, error);
      if (!decision.retry) {
        if (answered === undefined) {
          this.#close(error);
        } else {
          answered.forward();
        }
        return;
      }
      answered?.discard();
      if (this.#aborted) {
        this.#close(this.#reason);
        return;
      }
      if (decision.delayMs > 0) {
        this.#waitTimer = setTimeout(waited, decision.delayMs, this);
      } else {
        queueMicrotask(() => this.#nextAttempt());
      }
    } catch (thrown) {
      // A listener or the telemetry threw: the call ends with its error.
      this.#close(thrown);
    }
  }

  /** The wait before the next attempt is over. */
  waited(): void {
    this.#waitTimer = undefined;
    this.#nextAttempt();
  }

  /**
   * The executor ends the call with `error`: the call is given up (a retry it holds goes back to
   * the budget), and the handler has the error on a later microtask.
   */
  #close(error: unknown): void {
    this.#tracker?.abandon();
    queueMicrotask(() => this.fail(error));
  }

  /** The handler aborted the call with `reason`: it ends wherever it is. */
  handlerAborted(reason: Error): void {
    this.#aborted = true;
    this.#reason = reason;
    const current = this.#current;
    if (current !== undefined && !current.settled) {
      // The attempt in flight is aborted (its request too, while no response has come).
      this.attemptAborted(current, reason);
    } else if (this.#waitTimer !== undefined) {
      clearTimeout(this.#waitTimer);
      this.#waitTimer = undefined;
      this.#close(reason);
    }
    // (A response being decided, or a wait of a microtask, sees the abort when it resumes.)
    current?.handlerAborted(reason);
  }

  /** Ends the call with an error (once). */
  fail(error: unknown): void {
    if (this.#finished) return;
    this.#finished = true;
    this.handler.onResponseError?.(this.controller, toError(error));
  }

  /** Ends the call normally (once). */
  end(trailers: IncomingHttpHeaders): void {
    if (this.#finished) return;
    this.#finished = true;
    this.handler.onResponseEnd?.(this.controller, trailers);
  }
}

/** The status code of an attempt's response, for its span. */
function attemptStatus(attempt: Attempt): number {
  return attempt.statusCode;
}

/** An attempt's per-try timeout expired. */
function expire(attempt: Attempt, timeoutMs: number): void {
  attempt.timer = undefined;
  attempt.exchange.attemptAborted(attempt, new AttemptTimeoutError(timeoutMs));
}

/** The wait of `exchange` before its next attempt is over. */
function waited(exchange: Exchange): void {
  exchange.waited();
}

/**
 * What an attempt is doing with its response: waiting for it, holding it (paused) until the
 * policy decides, dropping it (retried), or forwarding it to the handler (the last one).
 */
type Phase = 'waiting' | 'holding' | 'dropping' | 'forwarding';

/** The undici handler of one attempt. */
class Attempt implements Dispatcher.DispatchHandler {
  #phase: Phase = 'waiting';
  #controller: Dispatcher.DispatchController | undefined = undefined;
  /** Events that arrived while the response was held, replayed in order when forwarded. */
  #held: Array<(handler: Dispatcher.DispatchHandler) => void> | undefined = undefined;
  /** Whether undici has ended the response (normally or with an error). */
  #complete = false;
  /** Whether the attempt was aborted (its per-try timeout, or the handler), and why. */
  #aborted = false;
  #reason: unknown = undefined;
  /** Whether the executor has taken the attempt's end (its response, error or timeout). */
  settled = false;
  /** The per-try timer, while it runs. */
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  statusCode = 0;
  headers: IncomingHttpHeaders = {};
  statusMessage: string | undefined = undefined;
  /** The response's outcome for the policy, once it has come. */
  outcome: AttemptOutcome = SUCCESS;

  constructor(readonly exchange: Exchange) {}

  /** Aborts the attempt: its request too, while no response has come. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    if (this.#phase === 'waiting') this.#controller?.abort(toError(reason));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while queued for a connection: never send it.
    if (this.#aborted) controller.abort(toError(this.#reason));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.#controller = controller;
    // Informational responses (1xx) precede the real one.
    if (this.#phase !== 'waiting' || statusCode < 200) return;
    if (this.#aborted) {
      this.#phase = 'dropping';
      controller.abort(toError(this.#reason));
      return;
    }
    const exchange = this.exchange;
    this.statusCode = statusCode;
    this.headers = headers;
    this.statusMessage = statusMessage;
    this.outcome = responseOutcome(exchange.settings.policy, statusCode, (name) =>
      headerValue(headers, name),
    );
    if (this.outcome.kind === 'success') {
      // A success is always the last attempt: hand it on as it comes, with no pause.
      this.forward();
    } else {
      // Hold the body until the policy decides whether this response is the one handed on.
      this.#phase = 'holding';
      controller.pause();
    }
    exchange.attemptAnswered(this);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#phase === 'forwarding') {
      this.exchange.handler.onResponseData?.(this.exchange.controller, chunk);
    } else if (this.#phase === 'holding') {
      this.#hold((handler) => handler.onResponseData?.(this.exchange.controller, chunk));
    }
  }

  onResponseEnd(_controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#complete = true;
    if (this.#phase === 'forwarding') this.exchange.end(trailers);
    else if (this.#phase === 'holding') this.#hold(() => this.exchange.end(trailers));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#complete = true;
    switch (this.#phase) {
      case 'waiting':
        this.exchange.attemptFailed(this, error);
        return;
      case 'holding':
        this.#hold(() => this.exchange.fail(error));
        return;
      case 'forwarding':
        this.exchange.fail(error);
        return;
      case 'dropping':
        return;
    }
  }

  #hold(event: (handler: Dispatcher.DispatchHandler) => void): void {
    if (this.#held === undefined) this.#held = [event];
    else this.#held.push(event);
  }

  /** The policy retries this attempt: its response is dropped. */
  discard(): void {
    if (this.#phase !== 'holding') return;
    this.#phase = 'dropping';
    this.#held = undefined;
    if (this.#complete) return;
    const length = Number(this.headers['content-length']);
    if (Number.isFinite(length) && length <= DRAIN_LIMIT_BYTES) this.#controller?.resume();
    else this.#controller?.abort(new Error('difftry: response dropped for a retry'));
  }

  /** This attempt is the last: its response goes to the handler (once). */
  forward(): void {
    if (this.#phase === 'forwarding' || this.#phase === 'dropping') return;
    const { exchange } = this;
    if (exchange.aborted) {
      this.handlerAborted(exchange.reason);
      exchange.fail(exchange.reason);
      return;
    }
    const wasHeld = this.#phase === 'holding';
    this.#phase = 'forwarding';
    const controller = this.#controller as Dispatcher.DispatchController;
    exchange.controller.attach(controller);
    try {
      exchange.handler.onResponseStart?.(
        exchange.controller,
        this.statusCode,
        this.headers,
        this.statusMessage,
      );
      if (!wasHeld) return;
      const held = this.#held;
      this.#held = undefined;
      if (held !== undefined) for (const event of held) event(exchange.handler);
    } catch (error) {
      // The handler threw on the response: end the attempt and the call with its error.
      this.handlerAborted(error);
      exchange.fail(error);
      return;
    }
    if (!(this.#complete || exchange.controller.paused)) controller.resume();
  }

  /** The handler aborted the call while this attempt was current. */
  handlerAborted(reason: unknown): void {
    // While waiting, the attempt's own abort has aborted the request.
    if (this.#phase !== 'holding' && this.#phase !== 'forwarding') return;
    // Forwarding: undici reports the abort through onResponseError, which hands it on.
    if (this.#phase === 'holding') this.#phase = 'dropping';
    this.#controller?.abort(toError(reason));
  }
}

/** A response header's first value, by its name in any case. */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value), { cause: value });
}
