import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { type Backoff, createBackoff } from '../../model/backoff/Backoff.js';
import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
} from '../../model/backoff/BackoffDescription.js';
import type { RandomSource } from '../../model/random.js';
import type { RetryBudget } from '../budget/RetryBudget.js';
import { type Clock, systemClock } from '../Clock.js';
import { type ClassOptions, type ClassTable, classTable } from '../classes/ClassTable.js';
import { type AttemptOutcome, GRPC_STATUS } from './AttemptOutcome.js';
import { parseGrpcPushback, parseRetryAfter } from './retryAfter.js';

/** Which outcomes are worth a retry. */
export interface RetryOn {
  /**
   * HTTP statuses; default 503 and 429.
   * @default [503, 429]
   */
  readonly statuses?: readonly number[];
  /**
   * Network error codes; default ECONNREFUSED, ECONNRESET, EPIPE, UND_ERR_SOCKET.
   * @default ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']
   */
  readonly errorCodes?: readonly string[];
  /**
   * gRPC codes; default UNAVAILABLE (14) and RESOURCE_EXHAUSTED (8).
   * @default [14, 8]
   */
  readonly grpcCodes?: readonly number[];
  /**
   * Retry a per-try timeout; default true.
   * @default true
   */
  readonly timeouts?: boolean;
}

/**
 * Options of {@link retryPolicy}: the network file's language (`classes`, `backoff`), plus what
 * a careful client needs.
 */
export interface RetryPolicyOptions {
  /** The priority classes: name → { retries, timeoutMs?, backoff? }, highest first. */
  readonly classes: Readonly<Record<string, ClassOptions>>;
  /**
   * The class of unknown or unlabelled requests; default the last (lowest) class.
   * @default the last (lowest) class
   */
  readonly defaultClass?: string;
  /**
   * The header that carries the class; default `x-priority`.
   * @default 'x-priority'
   */
  readonly header?: string;
  /**
   * Retry delay of classes without their own; default exponentially distributed, mean 100 ms.
   * @default { kind: 'random', meanMs: 100 } (`DEFAULT_BACKOFF`)
   */
  readonly backoff?: BackoffDescription;
  /**
   * Per-try timeout (ms) of classes without their own; default none.
   * @default none (no per-try timeout)
   */
  readonly timeoutMs?: number;
  readonly retryOn?: RetryOn;
  /**
   * Methods that may be retried; default the idempotent ones (GET, HEAD, OPTIONS, TRACE, PUT,
   * DELETE). A call without a method (gRPC, a plain function) is always eligible.
   * @default ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']
   */
  readonly methods?: readonly string[];
  /**
   * Honour `Retry-After` and `grpc-retry-pushback-ms`; default true.
   * @default true
   */
  readonly respectPushback?: boolean;
  /**
   * A server asking for a longer wait than this (ms) is not retried; default 60,000.
   * @default 60_000
   */
  readonly maxPushbackMs?: number;
  /** A retry budget that composes with the class limits (checked after them). */
  readonly budget?: RetryBudget;
  /**
   * The policy's clock, ms: backoff deadlines and `Retry-After` dates are read on it, and every
   * executor driving the policy takes its times from it. The simulator passes its virtual clock.
   * @default systemClock (the wall clock)
   */
  readonly clock?: Clock;
  /**
   * Uniforms in [0, 1) for the backoff's jitter; tests and the simulator pass a seeded source.
   * @default Math.random
   */
  readonly random?: RandomSource;
}

/** What a decision needs to know about the attempt that just ended. */
export interface RetryContext {
  readonly className: string;
  /** Retries already made for this call (0 after the first attempt). */
  readonly retries: number;
  readonly outcome: AttemptOutcome;
  /** HTTP method, upper or lower case; omit for calls without one. */
  readonly method?: string;
  /** Absolute deadline of the whole call on the policy's clock (ms). */
  readonly deadlineMs?: number;
  /** The delay before the previous retry (decorrelated jitter). */
  readonly previousDelayMs?: number;
}

/** Why a call stops retrying. */
export type GiveUpReason =
  | 'success'
  | 'not-retryable'
  | 'non-idempotent'
  | 'limit'
  | 'deadline'
  | 'pushback'
  | 'budget';

/** A retry decision: retry after `delayMs`, or give up for `reason`. */
export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly fromServer: boolean }
  | { readonly retry: false; readonly reason: GiveUpReason };

/** The DiffTry retry decision: per-class limits, backoff, pushback, deadline, budget. */
export interface RetryPolicy {
  readonly classes: ClassTable;
  /** The header that carries the class (lower case). */
  readonly header: string;
  readonly clock: Clock;
  readonly budget: RetryBudget | undefined;
  /** The class of a request from its header value (unknown → the default class). */
  classify(value: string | undefined | null): string;
  /** The retry limit k of a class. */
  retryLimit(className: string): number;
  /** The per-try timeout of a class (ms), if any. */
  timeoutMs(className: string): number | undefined;
  /** The backoff of a class. */
  backoff(className: string): Backoff;
  /** Whether an outcome is one the policy retries (ignoring limits). */
  isRetryable(outcome: AttemptOutcome): boolean;
  /**
   * Decides whether the attempt that just ended is retried and after what delay. Synchronous and
   * pure but for the budget, which counts an admitted retry.
   */
  decide(context: RetryContext): RetryDecision;
}

/** A declared class as {@link retryPolicy}'s `decide` looks it up. */
interface ClassEntry {
  readonly name: string;
  readonly options: ClassOptions;
  readonly backoff: Backoff;
}

/** The methods a policy retries by default: the idempotent ones (RFC 9110 §9.2.2). */
export const IDEMPOTENT_METHODS: readonly string[] = [
  'GET',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PUT',
  'DELETE',
];
const DEFAULT_STATUSES = [503, 429];
const DEFAULT_ERROR_CODES = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'];
/** The gRPC codes a policy retries by default: UNAVAILABLE (14), RESOURCE_EXHAUSTED (8). */
export const DEFAULT_GRPC_RETRY_CODES: readonly number[] = [
  GRPC_STATUS.UNAVAILABLE,
  GRPC_STATUS.RESOURCE_EXHAUSTED,
];

/**
 * The DiffTry retry policy: each priority class has its own retry limit, so under overload the
 * high classes keep retrying while the low ones give up quickly. Build it once and share it:
 * budgets live in it. The clock and the random source default to the wall clock and
 * `Math.random`; tests inject fakes, the simulator its virtual clock and a seeded source.
 * @example
 * ```ts
 * const policy = retryPolicy({
 *   classes: { high: { retries: 5 }, low: { retries: 1 } },
 *   defaultClass: 'low',
 *   backoff: { kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' },
 * });
 * policy.decide({ className: 'high', retries: 0, outcome: { kind: 'status', status: 503 } });
 * // → { retry: true, delayMs: …, fromServer: false }
 *
 * // In virtual time, with a seeded random source:
 * retryPolicy({ classes, clock: () => simulation.now * 1000, random: seededRandom(7) });
 * ```
 */
export function retryPolicy(options: RetryPolicyOptions): RetryPolicy {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentTypeError(
      `retryPolicy options should be an object, got ${String(options)}`,
    );
  }
  const names = Object.keys(options.classes ?? {});
  const table = classTable(
    options.classes,
    options.defaultClass ?? (names[names.length - 1] as string),
  );
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const header = (options.header ?? 'x-priority').toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(header)) {
    throw new InvalidArgumentTypeError(
      `header should be an HTTP header name, got ${JSON.stringify(options.header)}`,
    );
  }
  if (
    options.timeoutMs !== undefined &&
    !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)
  ) {
    throw new InvalidArgumentError(
      `timeoutMs should be a positive number of milliseconds, got ${options.timeoutMs}`,
    );
  }
  const maxPushbackMs = options.maxPushbackMs ?? 60_000;
  if (!(maxPushbackMs >= 0))
    throw new InvalidArgumentError(`maxPushbackMs should be ≥ 0, got ${maxPushbackMs}`);
  const respectPushback = options.respectPushback ?? true;
  const statuses = new Set(options.retryOn?.statuses ?? DEFAULT_STATUSES);
  const errorCodes = new Set(options.retryOn?.errorCodes ?? DEFAULT_ERROR_CODES);
  const grpcCodes = new Set(options.retryOn?.grpcCodes ?? DEFAULT_GRPC_RETRY_CODES);
  const retryTimeouts = options.retryOn?.timeouts ?? true;
  const methods = new Set((options.methods ?? IDEMPOTENT_METHODS).map((m) => m.toUpperCase()));
  /**
   * Per declared class: its name, options and backoff, so that `decide` (the simulator calls it
   * for every rejected attempt) finds them with one lookup instead of three.
   */
  const perClass = new Map<string, ClassEntry>(
    table.names.map((name) => {
      const classOptions = table.get(name);
      const backoff = createBackoff(
        classOptions.backoff ?? options.backoff ?? DEFAULT_BACKOFF,
        random,
      );
      return [name, { name, options: classOptions, backoff }];
    }),
  );
  const budget = options.budget;

  const isRetryable = (outcome: AttemptOutcome): boolean => {
    switch (outcome.kind) {
      case 'success':
        return false;
      case 'status':
        return statuses.has(outcome.status);
      case 'grpc':
        return grpcCodes.has(outcome.code);
      case 'error':
        return outcome.code !== undefined && errorCodes.has(outcome.code);
      case 'timeout':
        return retryTimeouts;
    }
  };
  /** The wait the server asks for (ms), 'stop', or undefined. */
  const pushback = (outcome: AttemptOutcome, now: number): number | 'stop' | undefined => {
    if (!respectPushback) return undefined;
    if (outcome.kind === 'status') return parseRetryAfter(outcome.header?.('retry-after'), now);
    if (outcome.kind === 'grpc')
      return parseGrpcPushback(outcome.metadata?.('grpc-retry-pushback-ms'));
    return undefined;
  };

  return {
    classes: table,
    header,
    clock,
    budget,
    classify: (value) => table.resolve(value),
    retryLimit: (name) => table.get(table.resolve(name)).retries,
    timeoutMs: (name) => table.get(table.resolve(name)).timeoutMs ?? options.timeoutMs,
    backoff: (name) => (perClass.get(table.resolve(name)) as ClassEntry).backoff,
    isRetryable,
    decide(context) {
      const { outcome } = context;
      if (outcome.kind === 'success') return { retry: false, reason: 'success' };
      if (!isRetryable(outcome)) return { retry: false, reason: 'not-retryable' };
      if (context.method !== undefined && !methods.has(context.method.toUpperCase())) {
        return { retry: false, reason: 'non-idempotent' };
      }
      const entry = (perClass.get(context.className) ??
        perClass.get(table.resolve(context.className))) as ClassEntry;
      const className = entry.name;
      if (context.retries >= entry.options.retries) return { retry: false, reason: 'limit' };
      const now = clock();
      const asked = pushback(outcome, now);
      if (asked === 'stop' || (asked !== undefined && asked > maxPushbackMs)) {
        return { retry: false, reason: 'pushback' };
      }
      const delayMs = asked ?? entry.backoff.delayMs(context.retries + 1, context.previousDelayMs);
      if (context.deadlineMs !== undefined && now + delayMs >= context.deadlineMs) {
        return { retry: false, reason: 'deadline' };
      }
      if (budget !== undefined && !budget.acquireRetry(className, now)) {
        return { retry: false, reason: 'budget' };
      }
      return { retry: true, delayMs, fromServer: asked !== undefined };
    },
  };
}
