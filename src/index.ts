/**
 * difftry: differential retries (DiffTry) and adaptive timeouts for microservice networks.
 *
 * The package root is the runtime library, what a service imports: the retry policy and its
 * parts (classes, backoff, budgets, timeouts), the runtime executor `retry()` and its adapters
 * (`difftryFetch`, `difftryInterceptor` for undici, `withRequestContext` for `node:http`
 * servers) and the request context. It loads none of the research stack: the analysis is in
 * `difftry/model`, the simulator in `difftry/sim`, network files in `difftry/spec`, the sidecar
 * in `difftry/mesh`, gRPC in `difftry/grpc`.
 * @example
 * ```ts
 * import { difftryFetch } from 'difftry';
 * const fetchWithRetries = difftryFetch({
 *   classes: { high: { retries: 5 }, low: { retries: 1 } },
 *   defaultClass: 'low',
 *   backoff: { kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' },
 * });
 * const res = await fetchWithRetries('http://orders/api', { headers: { 'x-priority': 'high' } });
 * ```
 * @example
 * ```ts
 * import { solveService } from 'difftry/model';
 * solveService({ capacity: 143, queue: 50, classes: [{ arrivalRate: 50, retryLimit: 5 }] }).s;
 * ```
 * @packageDocumentation
 */

export { type Backoff, createBackoff } from './model/backoff/Backoff.js';
export type { BackoffDescription } from './model/backoff/BackoffDescription.js';
export { DEFAULT_BACKOFF } from './model/backoff/BackoffDescription.js';
export { type RandomSource, seededRandom } from './model/random.js';
export * from './policy/budget/index.js';
export type { RetryBudget } from './policy/budget/RetryBudget.js';
export { type Clock, systemClock } from './policy/Clock.js';
export { type ClassOptions, type ClassTable, classTable } from './policy/classes/ClassTable.js';
export {
  type AttemptOutcome,
  GRPC_STATUS,
  type HeaderLookup,
} from './policy/retry/AttemptOutcome.js';
export {
  type CallSettings,
  CallTracker,
  DEADLINE_SPENT,
  NO_TIMEOUT,
  SUCCEEDED,
} from './policy/retry/CallTracker.js';
export type { RetryEventKind, RetryEventSink } from './policy/retry/RetryEvent.js';
export {
  type GiveUpReason,
  type RetryContext,
  type RetryDecision,
  type RetryOn,
  type RetryPolicy,
  type RetryPolicyOptions,
  retryPolicy,
} from './policy/retry/RetryPolicy.js';
export { parseGrpcPushback, parseRetryAfter } from './policy/retry/retryAfter.js';
export * from './policy/timeouts/index.js';
export {
  fixedTimeout,
  type TimeoutObservation,
  type TimeoutStrategy,
} from './policy/timeouts/TimeoutStrategy.js';
export type {
  AdapterOptions,
  PolicySource,
  RetryListeners,
} from './runtime/adapter.js';
export { currentContext, type RequestContext, runWithContext } from './runtime/context.js';
export {
  AttemptTimeoutError,
  DifftryError,
  errorCode,
  InvalidArgumentError,
  InvalidArgumentTypeError,
  isDifftryError,
} from './runtime/errors.js';
export {
  type DifftryFetchOptions,
  difftryFetch,
  type FetchAdapterOptions,
  type FetchFunction,
} from './runtime/fetch.js';
export {
  type ClassResolver,
  classFromRequest,
  type RequestContextOptions,
  withRequestContext,
} from './runtime/http.js';
export {
  type AttemptInfo,
  channels,
  type RetryEvent,
  type RetryOptions,
  retry,
} from './runtime/retry.js';
export { type DifftryInterceptorOptions, difftryInterceptor } from './runtime/undici.js';
