import type { Dispatcher } from 'undici';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { CallTracker } from '../policy/retry/CallTracker.js';
import {
  type AdapterOptions,
  checkAdapterOptions,
  type PolicySource,
  resolvePolicy,
} from './adapter.js';
import { currentContext } from './context.js';
import { SplitHeaders } from './dispatchHeaders.js';
import { parseRemainingMs } from './remainingTime.js';
import { soonest } from './retry.js';
import { eventSink } from './retryEvents.js';
import { Exchange, type InterceptorSettings } from './undiciExchange.js';

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
 * It drives the retry engine ({@link CallTracker}) from undici's callbacks, as `retry()`'s executor
 * drives it from promises, step for step: a call that succeeds at once makes no promise (on
 * Node 20 each one pays the request context's async hooks), only its per-try timer. Attempts run
 * no code of the caller's, so they run outside the request context.
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
  const settings: InterceptorSettings = {
    policy,
    options,
    deadlineHeader,
    events: eventSink(options),
  };
  return (dispatch) => (opts, handler) => {
    const split = new SplitHeaders(opts.headers, policy.header, deadlineHeader);
    const context = currentContext();
    const className = policy.classify(split.classValue ?? context?.className);
    const headers = split.others;
    headers[policy.header] = className;
    const outbound: Dispatcher.DispatchOptions = { ...opts, headers };
    if (opts.upgrade || opts.method === 'CONNECT') return dispatch(outbound, handler);
    // The call's own time (ms from now): the sooner of the adapter's and the caller's (its
    // deadline header); the exchange cuts it to the request context's deadline too.
    const deadlineMs = soonest(options.deadlineMs, parseRemainingMs(split.deadlineValue));
    return new Exchange(settings, dispatch, handler, outbound).start(
      className,
      context,
      deadlineMs,
    );
  };
}
