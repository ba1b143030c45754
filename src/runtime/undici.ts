import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RetryPolicy } from '../policy/retry/RetryPolicy.js';
import {
  type AdapterOptions,
  checkAdapterOptions,
  type PolicySource,
  resolvePolicy,
  responseOutcome,
} from './adapter.js';
import { currentContext } from './context.js';
import { retry } from './retry.js';

/** Options of {@link difftryInterceptor}: a policy (or its options) and the adapter's settings. */
export type DifftryInterceptorOptions = PolicySource & AdapterOptions;

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
 * - **Responses.** The response of an attempt is held (paused) until the policy has decided: a
 *   retried one is dropped (drained when short, so its connection is kept, else aborted) and
 *   never reaches the handler; the last one is handed on as it came, so a 503 stays a 503.
 * - **Timeouts.** A per-try timeout runs until the response headers arrive.
 * - **Abort.** The handler aborting the request (a `signal` given to `request()`) ends the whole
 *   call, including a wait between attempts.
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
  return (dispatch) => (opts, handler) => {
    const className = policy.classify(
      readHeader(opts.headers, policy.header) ?? currentContext()?.className,
    );
    const outbound: Dispatcher.DispatchOptions = {
      ...opts,
      headers: withHeader(opts.headers, policy.header, className),
    };
    if (opts.upgrade || opts.method === 'CONNECT') return dispatch(outbound, handler);
    return new Exchange(policy, options, dispatch, handler).start(outbound, className);
  };
}

/** One call through the interceptor: the handler's side, and the attempts made for it. */
class Exchange {
  /** Aborts the call (the attempt in flight, or the wait) when the handler aborts. */
  readonly #abort = new AbortController();
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
      this.#abort.abort(reason);
      this.#current?.handlerAborted(reason);
    });
  }

  get controller(): ExchangeController {
    return this.#controller;
  }

  get aborted(): AbortSignal {
    return this.#abort.signal;
  }

  /** Sends the first attempt (synchronously, so its back-pressure answer is returned). */
  start(opts: Dispatcher.DispatchOptions, className: string): boolean {
    const { policy, options } = this;
    // The handler gets one controller for the whole call, before any attempt: it can abort
    // during a wait, and never sees the controllers of attempts that are retried.
    this.handler.onRequestStart?.(this.#controller, undefined);
    let ready = true;
    const body = opts.body;
    const replayable =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    retry<Attempt>(
      ({ attempt, signal }) =>
        new Promise<Attempt>((resolve, reject) => {
          const current = new Attempt(this, signal, resolve, reject);
          this.#current = current;
          const accepted = this.dispatch(opts, current);
          if (attempt === 0) ready = accepted;
        }),
      {
        policy,
        className,
        method: opts.method,
        signal: this.#abort.signal,
        deadlineMs: options.deadlineMs,
        timeout: options.timeout,
        retryLimit: replayable ? undefined : 0,
        classify: (attempt) => responseOutcome(policy, attempt.statusCode, attempt.header),
        discard: (attempt) => attempt.discard(),
        onRetry: options.onRetry,
        onGiveUp: options.onGiveUp,
        onSuccess: options.onSuccess,
        onFailure: options.onFailure,
      },
    ).then(
      (attempt) => {
        try {
          attempt.forward();
        } catch (error) {
          // The handler threw on the response: end the attempt and the call with its error.
          attempt.handlerAborted(error);
          this.fail(error);
        }
      },
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

  constructor(
    readonly exchange: Exchange,
    readonly signal: AbortSignal,
    readonly resolve: (attempt: Attempt) => void,
    readonly reject: (error: unknown) => void,
  ) {
    // An attempt's own signal aborts on its per-try timeout or when the whole call is aborted.
    // Without a per-try timeout the attempt runs under the call's signal itself, whose abort
    // reaches it through handlerAborted: no listener needed.
    if (signal !== exchange.aborted) {
      signal.addEventListener('abort', () => this.#abortIfWaiting(), { once: true });
    }
  }

  readonly header = (name: string): string | undefined => {
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };

  #abortIfWaiting(): void {
    if (this.#phase === 'waiting') this.#controller?.abort(toError(this.signal.reason));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while queued for a connection: never send it.
    if (this.signal.aborted) this.#abortIfWaiting();
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
    if (this.signal.aborted) {
      this.#phase = 'dropping';
      controller.abort(toError(this.signal.reason));
      return;
    }
    this.statusCode = statusCode;
    this.headers = headers;
    this.statusMessage = statusMessage;
    this.#phase = 'holding';
    // Hold the body until the policy decides whether this response is the one handed on.
    controller.pause();
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

  /** This attempt is the last: its response goes to the handler. */
  forward(): void {
    const { exchange } = this;
    if (exchange.aborted.aborted) {
      this.handlerAborted(exchange.aborted.reason);
      exchange.fail(exchange.aborted.reason);
      return;
    }
    this.#phase = 'forwarding';
    const controller = this.#controller as Dispatcher.DispatchController;
    exchange.controller.attach(controller);
    exchange.handler.onResponseStart?.(
      exchange.controller,
      this.statusCode,
      this.headers,
      this.statusMessage,
    );
    for (const event of this.#held.splice(0)) event(exchange.handler);
    if (!(this.#complete || exchange.controller.paused)) controller.resume();
  }

  /** The handler aborted the call while this attempt was current. */
  handlerAborted(reason: unknown): void {
    const error = toError(reason);
    if (this.#phase === 'holding') {
      this.#phase = 'dropping';
      this.#controller?.abort(error);
    } else if (this.#phase === 'forwarding') {
      // undici reports the abort through onResponseError, which hands it on.
      this.#controller?.abort(error);
    } else if (this.#phase === 'waiting' && this.signal === this.exchange.aborted) {
      // Running under the call's own signal (no listener on it): abort it here. Not yet started
      // (no controller): onRequestStart sees the signal aborted.
      this.#controller?.abort(error);
    }
    // Otherwise, 'waiting': the attempt's signal follows the call's and aborts it.
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

/** The header pairs of any form undici accepts (object, flat array, iterable of pairs). */
function headerPairs(headers: Headers): Array<[string, string | string[] | undefined]> {
  if (headers === null || headers === undefined) return [];
  if (Array.isArray(headers)) {
    const pairs: Array<[string, string | string[]]> = [];
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const value: unknown = headers[i + 1];
      pairs.push([String(headers[i]), Array.isArray(value) ? value.map(String) : String(value)]);
    }
    return pairs;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    return [...(headers as Iterable<[string, string | string[] | undefined]>)];
  }
  return Object.entries(headers as Record<string, string | string[] | undefined>);
}

function readHeader(headers: Headers, name: string): string | undefined {
  for (const [key, value] of headerPairs(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** The headers as an object, with `name` (lower case) set to `value` and no other spelling of it. */
function withHeader(
  headers: Headers,
  name: string,
  value: string,
): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [key, item] of headerPairs(headers)) {
    if (item === undefined || key.toLowerCase() === name) continue;
    const previous = result[key];
    result[key] = previous === undefined ? item : ([] as string[]).concat(previous, item);
  }
  result[name] = value;
  return result;
}
