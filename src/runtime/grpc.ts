/**
 * The `@grpc/grpc-js` adapter (`difftry/grpc`): a client interceptor that applies a DiffTry retry
 * policy to unary and client-streaming calls.
 * @packageDocumentation
 */

import {
  status as grpcStatus,
  InterceptingCall,
  type InterceptingListener,
  type Interceptor,
  type InterceptorOptions,
  Metadata,
  type NextCall,
  type StatusObject,
} from '@grpc/grpc-js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
import { CallTracker, DEADLINE_SPENT, NO_TIMEOUT } from '../policy/retry/CallTracker.js';
import type { RetryEventSink } from '../policy/retry/RetryEvent.js';
import type { RetryPolicy, RetryPolicyOptions } from '../policy/retry/RetryPolicy.js';
import type { TimeoutStrategy } from '../policy/timeouts/TimeoutStrategy.js';
import { resolvePolicy } from './adapter.js';
import { currentContext } from './context.js';
import { soonest } from './retry.js';
import { eventSink, type RetryListeners } from './retryEvents.js';
import { grpcAttempt, traceHeaders } from './telemetry/attemptDescriptions.js';
import {
  activeTraceContext,
  type CallTelemetry,
  callTelemetry,
} from './telemetry/CallTelemetry.js';
import type { TelemetryProviders } from './telemetry/otel.js';

export type { AttemptOutcome } from '../policy/retry/AttemptOutcome.js';
export type { RetryEvent } from '../policy/retry/RetryEvent.js';
export type {
  GiveUpReason,
  RetryDecision,
  RetryPolicy,
  RetryPolicyOptions,
} from '../policy/retry/RetryPolicy.js';
export { retryPolicy } from '../policy/retry/RetryPolicy.js';
export type { TimeoutStrategy } from '../policy/timeouts/TimeoutStrategy.js';

/** Options of {@link difftryGrpcInterceptor}. */
export interface DifftryGrpcInterceptorOptions extends RetryListeners {
  /**
   * The policy, or the options to build one. Build it once and share it between clients: budgets
   * live in it. Its `retryOn.grpcCodes` default to UNAVAILABLE and RESOURCE_EXHAUSTED, its
   * `header` (default `x-priority`) is the metadata key that carries the class.
   */
  readonly policy: RetryPolicy | RetryPolicyOptions;
  /**
   * Client-streaming calls keep their request messages to replay them on a retry; past this many
   * the call makes no more retries (give-up reason `limit`, as for an HTTP body that cannot be
   * sent again) and the buffer is freed. Default 64. Unary calls always buffer their one message.
   * @default 64
   */
  readonly maxBufferedMessages?: number;
  /**
   * OpenTelemetry: the providers to record each attempt's span and the counters with, instead of
   * the globally registered ones; `false`: none from this interceptor.
   * @default the globally registered providers, if any
   */
  readonly telemetry?: TelemetryProviders | false;
  /**
   * Per-try timeouts, shared by every call made through the interceptor (an adaptive strategy
   * learns from all of them); default the class's (or the policy's) `timeoutMs`, if any. Each
   * attempt's grpc-js deadline is its timeout, cut to the call's deadline.
   * @default the class's (or the policy's) `timeoutMs` as a fixed timeout, if any
   */
  readonly timeout?: TimeoutStrategy;
  // The event listeners (`onRetry`, `onGiveUp`, `onSuccess`, `onFailure`) are called
  // synchronously from grpc-js's callbacks and must not throw; an event's `error` is never set,
  // its `outcome` carries the status code.
}

/**
 * A grpc-js client interceptor that retries failed attempts under a DiffTry policy: each priority
 * class gets its own retry limit, so under overload high classes keep retrying and low ones give
 * up quickly.
 *
 * - **Class**: the call's metadata value under the policy's header (`x-priority`), else the
 *   current request context's class ({@link currentContext}), else the policy's default class. The
 *   resolved class is written to the outbound metadata, so it reaches the server and propagates
 *   to the next hop.
 * - **Which calls**: unary and client-streaming calls (whose request messages are buffered and
 *   replayed, up to `maxBufferedMessages`). Server-streaming and bidi calls are never retried —
 *   their responses reach the caller as they arrive, so a retry could duplicate them — but they
 *   still carry the class.
 * - **Decision**: every failed attempt is put to the policy's `decide()` as a `grpc` outcome
 *   (default retryable: UNAVAILABLE, RESOURCE_EXHAUSTED). The server's `grpc-retry-pushback-ms`
 *   trailer replaces the backoff; a negative value stops retrying at once.
 * - **Deadline**: the sooner of the call's `deadline` option and the request context's bounds every attempt
 *   and the retries (no retry whose delay would pass it, no attempt once it is spent). The
 *   `timeout` strategy, else a class's (or the policy's) `timeoutMs`, gives each attempt its own
 *   deadline; an attempt whose deadline expires (DEADLINE_EXCEEDED) is a `timeout` outcome.
 * - **Engine**: the calls run on the same {@link CallTracker} as `retry()` and the HTTP adapters,
 *   so decisions, delays, budget accounting and events are the same for the same outcomes.
 * - **Results**: the response metadata, message and status of an attempt are held until the
 *   attempt is known to be the last, so the caller sees exactly one attempt's answer.
 * - **Events**: `onRetry`, `onGiveUp`, `onSuccess`, `onFailure` and the `difftry:*` diagnostics
 *   channels, as {@link retry} publishes them. Cancelling the call stops it with no event.
 *
 * @example
 * ```ts
 * import * as grpc from '@grpc/grpc-js';
 * import { difftryGrpcInterceptor, retryPolicy } from 'difftry/grpc';
 *
 * const policy = retryPolicy({ classes: { high: { retries: 5 }, low: { retries: 1 } } });
 * const client = new UserClient('users:50051', grpc.credentials.createInsecure(), {
 *   interceptors: [difftryGrpcInterceptor({ policy })],
 * });
 * const metadata = new grpc.Metadata();
 * metadata.set('x-priority', 'high');
 * client.getUser({ id: 42 }, metadata, { deadline: Date.now() + 2000 }, (error, user) => {});
 * ```
 */
export function difftryGrpcInterceptor(options: DifftryGrpcInterceptorOptions): Interceptor {
  const policy = resolvePolicy(options);
  const maxBufferedMessages = options.maxBufferedMessages ?? 64;
  if (!(Number.isInteger(maxBufferedMessages) && maxBufferedMessages >= 0)) {
    throw new InvalidArgumentError(
      `maxBufferedMessages should be an integer ≥ 0, got ${options.maxBufferedMessages}`,
    );
  }
  const settings: CallSettings = {
    policy,
    maxBufferedMessages,
    timeout: options.timeout,
    events: eventSink(options),
    telemetry: options.telemetry,
  };
  return (callOptions, nextCall) => {
    // The interceptor runs synchronously inside the client's method, in the caller's async
    // context; `start` may not, so the context is read here.
    const context = currentContext();
    if (callOptions.method_definition.responseStream) {
      return new InterceptingCall(nextCall(callOptions), {
        start: (metadata, listener, next) => {
          const outbound = metadata.clone();
          outbound.set(policy.header, classOf(policy, metadata, context?.className));
          next(outbound, listener);
        },
      });
    }
    // The caller's trace context, read here for the same reason (undefined when untraced).
    const traceContext =
      settings.telemetry === false ? undefined : activeTraceContext(settings.telemetry);
    return new InterceptingCall(
      new RetryingCall(
        settings,
        callOptions,
        nextCall,
        context?.className,
        context?.deadlineMs,
        traceContext,
      ),
    );
  };
}

interface CallSettings {
  readonly policy: RetryPolicy;
  readonly maxBufferedMessages: number;
  readonly timeout: TimeoutStrategy | undefined;
  readonly events: RetryEventSink;
  readonly telemetry: TelemetryProviders | false | undefined;
}

/** What `nextCall` returns: one attempt (grpc-js does not export the interface's name). */
type InterceptingCallInterface = ReturnType<NextCall>;

/** The class of a call: its metadata value, else the context's, resolved by the policy. */
function classOf(
  policy: RetryPolicy,
  metadata: Metadata,
  contextClass: string | undefined,
): string {
  const [value] = metadata.get(policy.header);
  return policy.classify(value === undefined ? contextClass : value.toString());
}

/** The absolute deadline (ms since the epoch) of grpc-js call options, if finite. */
function deadlineOf(callOptions: InterceptorOptions): number | undefined {
  const deadline = callOptions.deadline;
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return ms !== undefined && Number.isFinite(ms) ? ms : undefined;
}

/** grpc-js's `MessageContext` (not exported by name): a write callback and write flags. */
interface WriteContext {
  readonly callback?: (error?: Error | null) => void;
  readonly flags?: number;
}

/** A request message kept for replay. */
interface BufferedMessage {
  readonly message: unknown;
  readonly flags: number | undefined;
  /** The caller's write callback, until an attempt has accepted the message (then null). */
  callback: ((error?: Error | null) => void) | null;
}

/** One attempt: its call, how far it has got through the buffer, and its held answer. */
interface Attempt {
  readonly call: InterceptingCallInterface;
  /** Index in the buffer of the next message to hand to this attempt. */
  cursor: number;
  /** A message handed over whose write has not completed: grpc-js takes one at a time. */
  writing: boolean;
  halfClosed: boolean;
  /** The response metadata and message, forwarded only if this attempt is the last. */
  metadata: Metadata | undefined;
  message: { readonly value: unknown } | undefined;
}

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });
const TIMEOUT: AttemptOutcome = Object.freeze({ kind: 'timeout' });

/**
 * One logical call made of attempts, each a fresh `nextCall(options)`. It stands below grpc-js's
 * `InterceptingCall`, which gives it the caller's start/sendMessage/halfClose/cancel in order.
 */
class RetryingCall implements InterceptingCallInterface {
  private readonly policy: RetryPolicy;
  private readonly tracker: CallTracker;
  private listener: Partial<InterceptingListener> = {};
  private metadata: Metadata | undefined;
  private readonly messages: BufferedMessage[] = [];
  /** True once the buffer overflowed: the call goes on, but is not retried any more. */
  private committed = false;
  private halfClosed = false;
  private finished = false;
  private attempt: Attempt | undefined;
  private lastAttempt: Attempt | undefined;
  /** Whether the current attempt runs under a deadline this interceptor set. */
  private attemptHasDeadline = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private cancelled: { readonly code: grpcStatus; readonly details: string } | undefined;
  /** The call's OpenTelemetry side, when the application registered a provider. */
  private telemetry: CallTelemetry<never> | undefined;

  constructor(
    private readonly settings: CallSettings,
    private readonly callOptions: InterceptorOptions,
    private readonly nextCall: NextCall,
    private readonly contextClass: string | undefined,
    private readonly contextDeadlineMs: number | undefined,
    private readonly traceContext: unknown,
  ) {
    this.policy = settings.policy;
    this.tracker = new CallTracker();
  }

  start(metadata: Metadata, listener?: Partial<InterceptingListener>): void {
    this.listener = listener ?? {};
    const className = classOf(this.policy, metadata, this.contextClass);
    this.metadata = metadata.clone();
    this.metadata.set(this.policy.header, className);
    if (this.cancelled) {
      this.finish({ ...this.cancelled, metadata: new Metadata() }, undefined);
      return;
    }
    // grpc-js deadlines are wall-clock times; the tracker's are on the policy's clock.
    const wallDeadlineMs = deadlineOf(this.callOptions);
    const { settings, policy } = this;
    this.tracker.begin(policy, className, {
      // The sooner of the call's own deadline and the request context's.
      deadlineMs: soonest(
        wallDeadlineMs === undefined ? undefined : wallDeadlineMs - Date.now() + policy.clock(),
        this.contextDeadlineMs,
      ),
      timeout: settings.timeout,
      events: settings.events,
    });
    const providers = settings.telemetry;
    this.telemetry =
      providers === false || this.traceContext === undefined
        ? undefined
        : callTelemetry(
            className,
            grpcAttempt(this.callOptions.method_definition.path, providers),
            this.traceContext,
          );
    this.startAttempt();
  }

  sendMessageWithContext(context: WriteContext, message: unknown): void {
    if (this.finished) {
      context.callback?.();
      return;
    }
    const limit = this.callOptions.method_definition.requestStream
      ? this.settings.maxBufferedMessages
      : 1;
    if (!this.committed && this.messages.length >= limit) {
      this.committed = true;
      this.tracker.stopRetrying();
    }
    // Every message goes through the buffer: grpc-js calls take one write at a time, and between
    // attempts a message waits there for the next one. Once committed, `pump` drops what is sent.
    this.messages.push({ message, flags: context.flags, callback: context.callback ?? null });
    if (this.attempt) this.pump(this.attempt);
  }

  sendMessage(message: unknown): void {
    this.sendMessageWithContext({}, message);
  }

  halfClose(): void {
    this.halfClosed = true;
    if (this.attempt) this.pump(this.attempt);
  }

  /** Attempts read on their own (see `startAttempt`); the caller's reads arrive too late. */
  startRead(): void {}

  cancelWithStatus(code: grpcStatus, details: string): void {
    if (this.finished || this.cancelled) return;
    this.cancelled = { code, details };
    if (this.attempt) {
      this.attempt.call.cancelWithStatus(code, details); // its status ends the call
    } else if (this.metadata) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.finish({ code, details, metadata: new Metadata() }, undefined);
    }
  }

  getPeer(): string {
    return (this.attempt ?? this.lastAttempt)?.call.getPeer() ?? 'unknown';
  }

  getAuthContext(): ReturnType<InterceptingCallInterface['getAuthContext']> {
    return (this.attempt ?? this.lastAttempt)?.call.getAuthContext() ?? null;
  }

  /**
   * Hands `attempt` the buffered messages it has not had, one write at a time (grpc-js keeps a
   * single pending message per call, so a burst would lose all but the last), then half-closes
   * it once it has them all and the caller has half-closed.
   */
  private pump(attempt: Attempt): void {
    while (!attempt.writing && attempt.cursor < this.messages.length) {
      const entry = this.messages[attempt.cursor++] as BufferedMessage;
      attempt.writing = true;
      attempt.call.sendMessageWithContext(
        {
          flags: entry.flags,
          callback: (error) => {
            attempt.writing = false;
            // The caller's callback is its flow control: call it once, when the first attempt
            // takes the message; a failed write is left to the attempt's status.
            if (!error && entry.callback) {
              const callback = entry.callback;
              entry.callback = null;
              callback();
            }
            if (attempt === this.attempt) this.pump(attempt);
          },
        },
        entry.message,
      );
    }
    if (this.committed && attempt.cursor > 0) {
      this.messages.splice(0, attempt.cursor); // this attempt is the last: no replay to keep for
      attempt.cursor = 0;
    }
    if (this.halfClosed && !attempt.halfClosed && attempt.cursor === this.messages.length) {
      attempt.halfClosed = true;
      attempt.call.halfClose();
    }
  }

  private startAttempt(): void {
    const index = this.tracker.attempts;
    const timeoutMs = this.tracker.startAttempt();
    if (timeoutMs === DEADLINE_SPENT) {
      this.telemetry?.gaveUpBeforeAttempt('deadline');
      // Spent before this attempt: nothing is sent; the call ends as grpc-js ends a late one.
      this.finish(
        {
          code: grpcStatus.DEADLINE_EXCEEDED,
          details: 'Deadline exceeded',
          metadata: new Metadata(),
        },
        this.lastAttempt,
      );
      return;
    }
    this.attemptHasDeadline = timeoutMs !== NO_TIMEOUT;
    const call = this.nextCall({
      ...this.callOptions,
      deadline: this.attemptHasDeadline ? Date.now() + timeoutMs : this.callOptions.deadline,
    });
    const attempt: Attempt = {
      call,
      cursor: 0,
      writing: false,
      halfClosed: false,
      metadata: undefined,
      message: undefined,
    };
    this.attempt = attempt;
    this.lastAttempt = attempt;
    const requestStream = this.callOptions.method_definition.requestStream;
    call.start(this.attemptMetadata(index), {
      onReceiveMetadata: (metadata) => {
        attempt.metadata = metadata;
      },
      onReceiveMessage: (message) => {
        attempt.message = { value: message };
        // A client-streaming caller asks for the next read once it sees the message, as grpc-js's
        // client does, but the message is held until the status, which needs that read to come.
        if (requestStream) call.startRead();
      },
      onReceiveStatus: (status) => this.attemptEnded(attempt, status),
    });
    this.pump(attempt);
  }

  /**
   * The metadata of attempt `index`: the call's, with the attempt's trace context when traced
   * (its span started here, so that the callee's span is its child).
   */
  private attemptMetadata(index: number): Metadata {
    const metadata = (this.metadata as Metadata).clone();
    const telemetry = this.telemetry;
    if (telemetry === undefined) return metadata;
    telemetry.startAttempt(index);
    const traced = telemetry.run(traceHeaders);
    for (const [name, value] of Object.entries(traced ?? {})) metadata.set(name, value);
    return metadata;
  }

  private attemptEnded(attempt: Attempt, status: StatusObject): void {
    if (attempt !== this.attempt || this.finished) return;
    this.attempt = undefined;
    if (this.cancelled) {
      this.telemetry?.abandon(new Error(status.details));
      this.finish(status, attempt);
      return;
    }
    const outcome = this.outcomeOf(status);
    const decision = this.tracker.attemptEnded(outcome);
    const telemetry = this.telemetry;
    if (telemetry !== undefined) {
      const peer = peerAddress(attempt.call.getPeer());
      if (peer !== undefined) telemetry.annotate(peer);
      telemetry.endAttempt(outcome, decision, undefined, undefined);
    }
    if (!decision.retry) {
      this.finish(status, attempt);
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.startAttempt();
    }, decision.delayMs);
  }

  /** An attempt's status in the policy's terms. */
  private outcomeOf(status: StatusObject): AttemptOutcome {
    if (status.code === grpcStatus.OK) return SUCCESS;
    if (status.code === grpcStatus.DEADLINE_EXCEEDED && this.attemptHasDeadline) {
      return TIMEOUT; // the attempt's deadline expired: its timeout, or the call's rest
    }
    const trailers = status.metadata;
    return {
      kind: 'grpc',
      code: status.code,
      metadata: (name) => trailers?.get(name)[0]?.toString(),
    };
  }

  /** Hands the caller the last attempt's answer (or a status alone), once. */
  private finish(status: StatusObject, answer: Attempt | undefined): void {
    if (this.finished) return;
    this.finished = true;
    // Release a caller still waiting to write; the status tells it how the call ended.
    for (const entry of this.messages.splice(0)) entry.callback?.();
    // A call cancelled mid-attempt or mid-wait ends with no event; its budget hears it ended.
    this.tracker.abandon();
    if (answer?.metadata) this.listener.onReceiveMetadata?.(answer.metadata);
    if (answer?.message) this.listener.onReceiveMessage?.(answer.message.value);
    this.listener.onReceiveStatus?.(status);
  }
}

/**
 * `server.address` and `server.port` of the peer grpc-js names (`127.0.0.1:50051`,
 * `ipv4:10.0.0.7:443`, `[::1]:50051`), or undefined for one it cannot name (`unknown`).
 */
function peerAddress(
  peer: string,
): { 'server.address': string; 'server.port': number } | undefined {
  const match = /^(?:ipv[46]:)?\[?([^\]]*?)\]?:(\d+)$/.exec(peer);
  if (match === null || match[1] === '') return undefined;
  return { 'server.address': match[1] as string, 'server.port': Number(match[2]) };
}
