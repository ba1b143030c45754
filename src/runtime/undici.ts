import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
import type { RetryPolicy } from '../policy/retry/RetryPolicy.js';
import {
  type AdapterOptions,
  checkAdapterOptions,
  type PolicySource,
  resolvePolicy,
  responseOutcome,
} from './adapter.js';
import { Cancellation } from './Cancellation.js';
import { currentContext } from './context.js';
import { formatRemainingMs, parseRemainingMs } from './remainingTime.js';
import { executeRetry } from './retry.js';
import { adapterTelemetry, httpAttempt, traceHeaders } from './telemetry/attemptDescriptions.js';

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });

/** Options of {@link difftryInterceptor}: a policy (or its options) and the adapter's settings. */
export type DifftryInterceptorOptions = PolicySource &
  AdapterOptions & {
    /**
     * A header carrying the call's remaining time in milliseconds (a relative budget, like gRPC's
     * `grpc-timeout`, so clocks need not agree), e.g. `x-difftry-deadline-ms`. Read from the
     * request as the caller's deadline (the call ends at the soonest of it, `deadlineMs` and the
     * request context's), and set on every attempt to the time left, so the next hop knows its
     * budget. Malformed values are dropped. Default none.
     * @default none (no deadline header)
     */
    readonly deadlineHeader?: string;
  };

/** A retried response whose body is at most this long (bytes) is drained to keep its connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * An undici interceptor with DiffTry retries, for `dispatcher.compose(…)` (undici ≥ 7): the same
 * policy, and the same executor, as {@link difftryFetch}.
 *
 * - **Class.** From the request's class header, else the current request context, else the
 *   default class; the resolved class is set on the outbound header of every attempt.
 * - **Body.** A body in memory (string, `Buffer`, `Uint8Array`) is sent again on a retry; a
 *   stream, an iterable or a `FormData` is sent once, with no retries. (undici's own `fetch`
 *   streams every body, so through it only requests without a body are retried; use
 *   `difftryFetch` there.) Upgrades and `CONNECT` pass through untouched.
 * - **Responses.** A response the policy counts a success is handed on as it arrives. Any other
 *   is held (paused) until the policy has decided: a retried one is dropped (drained when short,
 *   so its connection is kept, else aborted) and never reaches the handler; the last one is
 *   handed on as it came, so a 503 stays a 503.
 * - **Timeouts.** A per-try timeout runs until the response headers arrive.
 * - **Deadline.** With `deadlineHeader`, the caller's remaining time is read from the request and
 *   every attempt carries the time left.
 * - **Abort.** The handler aborting the request (a `signal` given to `request()`) ends the whole
 *   call, including a wait between attempts.
 *
 * Attempts run no code of the caller's, so they run outside the request context (see
 * {@link executeRetry}).
 * @example
 * ```ts
 * import { Agent, request } from 'undici';
 * const dispatcher = new Agent().compose(
 *   difftryInterceptor({ classes: { high: { retries: 5 }, low: { retries: 1 } } }),
 * );
 * const { statusCode } = await request('http://orders/api', {
 *   dispatcher,
 *   headers: { 'x-priority': 'high' },
 * });
 * ```
 */
export function difftryInterceptor(
  options: DifftryInterceptorOptions,
): Dispatcher.DispatcherComposeInterceptor {
  const policy = resolvePolicy(options);
  checkAdapterOptions(options);
  const deadlineHeader = options.deadlineHeader?.toLowerCase();
  if (deadlineHeader !== undefined && deadlineHeader === policy.header) {
    throw new InvalidArgumentError(
      `deadlineHeader should differ from the class header ${policy.header}`,
    );
  }
  return (dispatch) => (opts, handler) => {
    const found = readHeaders(opts.headers, policy.header, deadlineHeader);
    const context = currentContext();
    const className = policy.classify(found.classValue ?? context?.className);
    const headers = withoutHeaders(opts.headers, policy.header, deadlineHeader);
    headers[policy.header] = className;
    const outbound: Dispatcher.DispatchOptions = { ...opts, headers };
    if (opts.upgrade || opts.method === 'CONNECT') return dispatch(outbound, handler);
    const deadlineMs = callDeadlineMs(options.deadlineMs, parseRemainingMs(found.deadlineValue));
    return new Exchange(policy, options, dispatch, handler).start(outbound, className, {
      deadlineMs,
      deadlineHeader,
    });
  };
}

/**
 * The call's own time (ms from now): the sooner of the adapter's and the caller's (its deadline
 * header). `executeRetry` cuts it to the request context's deadline, as for every executor.
 */
function callDeadlineMs(
  adapterMs: number | undefined,
  callerMs: number | undefined,
): number | undefined {
  return callerMs !== undefined && (adapterMs === undefined || callerMs < adapterMs)
    ? callerMs
    : adapterMs;
}

/** One call through the interceptor: the handler's side, and the attempts made for it. */
class Exchange {
  /** Aborts the call (the attempt in flight, or the wait) when the handler aborts. */
  readonly #call = Cancellation.create();
  readonly #controller: ExchangeController;
  #current: Attempt | undefined;
  #finished = false;

  constructor(
    readonly policy: RetryPolicy,
    readonly options: AdapterOptions,
    readonly dispatch: Dispatcher.Dispatch,
    readonly handler: Dispatcher.DispatchHandler,
  ) {
    this.#controller = new ExchangeController((reason) => {
      this.#call.abort(reason);
      this.#current?.handlerAborted(reason);
    });
  }

  get controller(): ExchangeController {
    return this.#controller;
  }

  get call(): Cancellation {
    return this.#call;
  }

  /** Sends the first attempt (synchronously, so its back-pressure answer is returned). */
  start(
    opts: Dispatcher.DispatchOptions,
    className: string,
    deadline: { deadlineMs: number | undefined; deadlineHeader: string | undefined },
  ): boolean {
    const { policy, options } = this;
    const { deadlineHeader } = deadline;
    // The handler gets one controller for the whole call, before any attempt: it can abort
    // during a wait, and never sees the controllers of attempts that are retried.
    this.handler.onRequestStart?.(this.#controller, undefined);
    let ready = true;
    const body = opts.body;
    const replayable =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    const telemetry = adapterTelemetry(options.telemetry, (providers) =>
      httpAttempt<Attempt>(
        opts.method,
        `${String(opts.origin ?? '')}${opts.path}`,
        (attempt) => attempt.statusCode,
        providers,
      ),
    );
    executeRetry<Attempt>(
      (info, cancellation) =>
        new Promise<Attempt>((resolve, reject) => {
          const current = new Attempt(this, cancellation, resolve, reject);
          this.#current = current;
          const traced = telemetry === false ? undefined : traceHeaders();
          const sent =
            (deadlineHeader === undefined || info.deadlineMs === undefined) && traced === undefined
              ? opts
              : {
                  ...opts,
                  headers: {
                    ...(opts.headers as Record<string, string | string[]>),
                    ...traced,
                    ...(deadlineHeader === undefined || info.deadlineMs === undefined
                      ? {}
                      : { [deadlineHeader]: formatRemainingMs(info.deadlineMs, policy.clock()) }),
                  },
                };
          const accepted = this.dispatch(sent, current);
          if (info.attempt === 0) ready = accepted;
        }),
      {
        policy,
        className,
        method: opts.method,
        deadlineMs: deadline.deadlineMs,
        timeout: options.timeout,
        retryLimit: replayable ? undefined : 0,
        classify: (attempt) => attempt.outcome,
        discard: (attempt) => attempt.discard(),
        onRetry: options.onRetry,
        onGiveUp: options.onGiveUp,
        onSuccess: options.onSuccess,
        onFailure: options.onFailure,
        telemetry,
      },
      this.#call,
      { context: false },
    ).then(
      (attempt) => attempt.forward(),
      (error: unknown) => this.fail(error),
    );
    return ready;
  }

  /** Ends the call with an error (once). */
  fail(error: unknown): void {
    if (this.#finished) return;
    this.#finished = true;
    this.handler.onResponseError?.(this.#controller, toError(error));
  }

  /** Ends the call normally (once). */
  end(trailers: IncomingHttpHeaders): void {
    if (this.#finished) return;
    this.#finished = true;
    this.handler.onResponseEnd?.(this.#controller, trailers);
  }
}

/**
 * What an attempt is doing with its response: waiting for it, holding it (paused) until the
 * policy decides, dropping it (retried), or forwarding it to the handler (the last one).
 */
type Phase = 'waiting' | 'holding' | 'dropping' | 'forwarding';

/** The undici handler of one attempt. */
class Attempt implements Dispatcher.DispatchHandler {
  #phase: Phase = 'waiting';
  #controller: Dispatcher.DispatchController | undefined;
  /** Events that arrived while the response was held, replayed in order when forwarded. */
  readonly #held: Array<(handler: Dispatcher.DispatchHandler) => void> = [];
  /** Whether undici has ended the response (normally or with an error). */
  #complete = false;
  statusCode = 0;
  headers: IncomingHttpHeaders = {};
  statusMessage: string | undefined;
  /** The response's outcome for the policy, once it has come. */
  outcome: AttemptOutcome = SUCCESS;

  constructor(
    readonly exchange: Exchange,
    readonly cancellation: Cancellation,
    readonly resolve: (attempt: Attempt) => void,
    readonly reject: (error: unknown) => void,
  ) {
    // The attempt's cancellation aborts on its per-try timeout or with the whole call.
    cancellation.onAbort((reason) => {
      if (this.#phase === 'waiting') this.#controller?.abort(toError(reason));
    });
  }

  readonly header = (name: string): string | undefined => {
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while queued for a connection: never send it.
    if (this.cancellation.aborted) controller.abort(toError(this.cancellation.reason));
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
    if (this.cancellation.aborted) {
      this.#phase = 'dropping';
      controller.abort(toError(this.cancellation.reason));
      return;
    }
    this.statusCode = statusCode;
    this.headers = headers;
    this.statusMessage = statusMessage;
    this.outcome = responseOutcome(this.exchange.policy, statusCode, this.header);
    if (this.outcome.kind === 'success') {
      // A success is always the last attempt: hand it on as it comes, with no pause.
      this.forward();
    } else {
      // Hold the body until the policy decides whether this response is the one handed on.
      this.#phase = 'holding';
      controller.pause();
    }
    this.resolve(this);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#phase === 'forwarding') {
      this.exchange.handler.onResponseData?.(this.exchange.controller, chunk);
    } else if (this.#phase === 'holding') {
      this.#held.push((handler) => handler.onResponseData?.(this.exchange.controller, chunk));
    }
  }

  onResponseEnd(_controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#complete = true;
    if (this.#phase === 'forwarding') this.exchange.end(trailers);
    else if (this.#phase === 'holding') this.#held.push(() => this.exchange.end(trailers));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#complete = true;
    switch (this.#phase) {
      case 'waiting':
        this.reject(error);
        return;
      case 'holding':
        this.#held.push(() => this.exchange.fail(error));
        return;
      case 'forwarding':
        this.exchange.fail(error);
        return;
      case 'dropping':
        return;
    }
  }

  /** The policy retries this attempt: its response is dropped. */
  discard(): void {
    if (this.#phase !== 'holding') return;
    this.#phase = 'dropping';
    this.#held.length = 0;
    if (this.#complete) return;
    const length = Number(this.headers['content-length']);
    if (Number.isFinite(length) && length <= DRAIN_LIMIT_BYTES) this.#controller?.resume();
    else this.#controller?.abort(new Error('difftry: response dropped for a retry'));
  }

  /** This attempt is the last: its response goes to the handler (once). */
  forward(): void {
    if (this.#phase === 'forwarding' || this.#phase === 'dropping') return;
    const { exchange } = this;
    const { call } = exchange;
    if (call.aborted) {
      this.handlerAborted(call.reason);
      exchange.fail(call.reason);
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
      for (const event of this.#held.splice(0)) event(exchange.handler);
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
    // While waiting, the attempt's cancellation (which follows the call's) aborts the request.
    if (this.#phase !== 'holding' && this.#phase !== 'forwarding') return;
    // Forwarding: undici reports the abort through onResponseError, which hands it on.
    if (this.#phase === 'holding') this.#phase = 'dropping';
    this.#controller?.abort(toError(reason));
  }
}

/**
 * The controller the handler sees for the whole call. Pause and resume act on the attempt being
 * forwarded (a pause before then is applied when it is attached); abort ends the call.
 */
class ExchangeController implements Dispatcher.DispatchController {
  #target: Dispatcher.DispatchController | undefined;
  #paused = false;
  #reason: Error | null = null;
  readonly #onAbort: (reason: Error) => void;

  constructor(onAbort: (reason: Error) => void) {
    this.#onAbort = onAbort;
  }

  attach(target: Dispatcher.DispatchController): void {
    this.#target = target;
    if (this.#paused) target.pause();
  }

  get aborted(): boolean {
    return this.#reason !== null;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get reason(): Error | null {
    return this.#reason;
  }

  get rawHeaders() {
    return this.#target?.rawHeaders;
  }

  get rawTrailers() {
    return this.#target?.rawTrailers;
  }

  abort(reason: Error): void {
    if (this.#reason !== null) return;
    this.#reason = reason ?? new Error('aborted');
    this.#onAbort(this.#reason);
  }

  pause(): void {
    this.#paused = true;
    this.#target?.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#target?.resume();
  }
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value), { cause: value });
}

type Headers = Dispatcher.DispatchOptions['headers'];

/** The first value of a header, by its lower-case name. */
function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The class header's value and the deadline header's, in one pass over the headers. */
function readHeaders(
  headers: Headers,
  classHeader: string,
  deadlineHeader: string | undefined,
): { classValue: string | undefined; deadlineValue: string | undefined } {
  let classValue: string | undefined;
  let deadlineValue: string | undefined;
  forEachHeader(headers, (key, value) => {
    const name = key.toLowerCase();
    if (name === classHeader) classValue ??= firstValue(value);
    else if (name === deadlineHeader) deadlineValue ??= firstValue(value);
  });
  return { classValue, deadlineValue };
}

/** The headers as an object, without any spelling of the two names (lower case) given. */
function withoutHeaders(
  headers: Headers,
  first: string,
  second: string | undefined,
): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  forEachHeader(headers, (key, item) => {
    if (item === undefined) return;
    const name = key.toLowerCase();
    if (name === first || name === second) return;
    const previous = result[key];
    result[key] = previous === undefined ? item : ([] as string[]).concat(previous, item);
  });
  return result;
}

/** Calls `visit` with every header pair of any form undici accepts (object, flat array, pairs). */
function forEachHeader(
  headers: Headers,
  visit: (name: string, value: string | string[] | undefined) => void,
): void {
  if (headers === null || headers === undefined) return;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const value: unknown = headers[i + 1];
      visit(String(headers[i]), Array.isArray(value) ? value.map(String) : String(value));
    }
    return;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>) {
      visit(name, value);
    }
    return;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  for (const name in record) visit(name, record[name]);
}
