import type * as Api from '@opentelemetry/api';
import type { AttemptOutcome } from '../../policy/retry/AttemptOutcome.js';
import type { GiveUpReason, RetryDecision } from '../../policy/retry/RetryPolicy.js';
import { type ActiveOtel, activeOtel, type TelemetryProviders } from './otel.js';
import { retryMeters } from './retryMeters.js';

/** The instrumentation scope of every span and metric difftry records. */
export const INSTRUMENTATION_SCOPE = 'difftry';

/** An attribute value, as OpenTelemetry takes it. */
export type TelemetryValue = string | number | boolean;
export type TelemetryAttributes = Readonly<Record<string, TelemetryValue>>;

/**
 * How a host describes its attempts: each attempt is a span named `name` (the HTTP method for an
 * HTTP client, `package.Service/Method` for gRPC), with these attributes (OpenTelemetry's HTTP
 * or RPC conventions: `http.request.method`, `server.address`, `server.port`, `url.full`,
 * `rpc.system`, …), plus what a returned value adds.
 */
export interface AttemptDescription<T> {
  readonly name: string;
  /** `client` for a request sent to another process (the adapters); default `internal`. */
  readonly kind?: 'client' | 'internal';
  readonly attributes?: TelemetryAttributes;
  /** Attributes of a value an attempt returned (an HTTP status is in its outcome already). */
  readonly resultAttributes?: (value: T) => TelemetryAttributes | undefined;
  /** Providers of the host's own; default the globally registered ones. */
  readonly providers?: TelemetryProviders;
}

/** gRPC status codes by number, for `error.type` (OpenTelemetry's RPC conventions use names). */
const GRPC_CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * The OpenTelemetry side of one call, made only when the application registered a tracer or
 * meter provider ({@link callTelemetry}): a span per attempt (a child of the context active when
 * the call began), with the class as `difftry.class`, retries' `http.request.resend_count`, the
 * outcome's `http.response.status_code` / `rpc.grpc.status_code` and `error.type`, and the
 * policy's decision as a span event (`difftry.retry` with its delay, `difftry.give_up` with its
 * reason); and the counters of {@link retryMeters}. One implementation, driven by every host's
 * attempt loop.
 */
export class CallTelemetry<T> {
  readonly #otel: ActiveOtel;
  readonly #className: string;
  readonly #description: AttemptDescription<T>;
  readonly #parent: Api.Context;
  #span: Api.Span | undefined;
  #context: Api.Context | undefined;

  constructor(
    otel: ActiveOtel,
    className: string,
    description: AttemptDescription<T>,
    parent?: Api.Context,
  ) {
    this.#otel = otel;
    this.#className = className;
    this.#description = description;
    this.#parent = parent ?? otel.api.context.active();
  }

  /**
   * Starts attempt `attempt` (0 the first): its span, whose context ({@link context}) the host
   * runs the attempt in and propagates downstream.
   */
  startAttempt(attempt: number): void {
    const { api, tracing } = this.#otel;
    if (!tracing) return;
    const description = this.#description;
    const provider = (description.providers?.tracerProvider ?? api.trace) as Api.TracerProvider;
    const span = provider.getTracer(INSTRUMENTATION_SCOPE).startSpan(
      description.name,
      {
        kind: description.kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL,
        attributes: {
          ...description.attributes,
          'difftry.class': this.#className,
          ...(attempt > 0 ? { 'http.request.resend_count': attempt } : {}),
        },
      },
      this.#parent,
    );
    this.#span = span;
    this.#context = api.trace.setSpan(this.#parent, span);
  }

  /** The current attempt's context (its span active), or the call's parent where no span. */
  get context(): Api.Context {
    return this.#context ?? this.#parent;
  }

  /** Runs `fn` with the current attempt's span active. */
  run<R>(fn: () => R): R {
    return this.#otel.api.context.with(this.context, fn);
  }

  /** Adds attributes to the current attempt's span (what the host learns during the attempt). */
  annotate(attributes: TelemetryAttributes): void {
    this.#span?.setAttributes(attributes);
  }

  /**
   * The current attempt ended with `outcome` (and returned `value`, or threw): its span gets the
   * outcome and the decision, and ends; the counters count it.
   */
  endAttempt(
    outcome: AttemptOutcome,
    decision: RetryDecision,
    value: T | undefined,
    error: unknown,
  ): void {
    const { api, metering } = this.#otel;
    if (metering) {
      retryMeters(this.#meterProvider()).attemptEnded(this.#className, outcome.kind, decision);
    }
    const span = this.#span;
    if (span === undefined) return;
    this.#span = undefined;
    const extra = value === undefined ? undefined : this.#description.resultAttributes?.(value);
    if (extra !== undefined) span.setAttributes(extra);
    const errorType = outcomeAttributes(span, outcome, error);
    if (errorType !== undefined) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorType });
    }
    if (decision.retry) {
      span.addEvent('difftry.retry', {
        'difftry.retry.delay_ms': decision.delayMs,
        'difftry.retry.from_server': decision.fromServer,
      });
    } else if (decision.reason !== 'success') {
      span.addEvent('difftry.give_up', { 'difftry.give_up.reason': decision.reason });
    }
    span.end();
  }

  /** The call gave up before sending an attempt (its deadline was spent): counted, no span. */
  gaveUpBeforeAttempt(reason: GiveUpReason): void {
    const { metering } = this.#otel;
    if (metering) retryMeters(this.#meterProvider()).gaveUp(this.#className, reason);
  }

  #meterProvider(): Api.MeterProvider {
    const own = this.#description.providers?.meterProvider as Api.MeterProvider | undefined;
    return own ?? this.#otel.api.metrics.getMeterProvider();
  }

  /** The call was abandoned during an attempt (aborted): its span ends with the reason. */
  abandon(error: unknown): void {
    const span = this.#span;
    if (span === undefined) return;
    this.#span = undefined;
    span.setAttribute('error.type', errorName(error));
    span.setStatus({ code: this.#otel.api.SpanStatusCode.ERROR, message: 'call aborted' });
    span.end();
  }
}

/** Sets the outcome's attributes on `span`; returns its `error.type`, or undefined on success. */
function outcomeAttributes(
  span: Api.Span,
  outcome: AttemptOutcome,
  error: unknown,
): string | undefined {
  switch (outcome.kind) {
    case 'success':
      return undefined;
    case 'status':
      span.setAttribute('http.response.status_code', outcome.status);
      return String(outcome.status);
    case 'grpc':
      span.setAttribute('rpc.grpc.status_code', outcome.code);
      return GRPC_CODE_NAMES[outcome.code] ?? String(outcome.code);
    case 'timeout':
      return 'timeout';
    case 'error':
      return outcome.code ?? errorName(error);
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : '_OTHER';
}

/**
 * The telemetry of a call of `className`, or undefined when the application registered no
 * OpenTelemetry provider (the usual case costs one global read). Its spans are children of
 * `parent` (an OpenTelemetry context), default the context active now.
 */
export function callTelemetry<T>(
  className: string,
  description: AttemptDescription<T>,
  parent?: unknown,
): CallTelemetry<T> | undefined {
  const otel = activeOtel(description.providers);
  return otel === undefined
    ? undefined
    : new CallTelemetry(otel, className, description, parent as Api.Context | undefined);
}

/**
 * The active OpenTelemetry context, where a provider is registered or given (for a host whose
 * call starts later, outside the caller's async context); undefined otherwise.
 */
export function activeTraceContext(providers?: TelemetryProviders): unknown {
  return activeOtel(providers)?.api.context.active();
}
