/**
 * One span as `difftry from-traces` reads it, whatever the file's format (OTLP/JSON, Jaeger JSON,
 * Zipkin v2 JSON): only what inferring a network needs.
 */
export interface TraceSpan {
  /** The trace's id, as the file writes it (hex for OTLP/JSON, Jaeger and Zipkin). */
  readonly traceId: string;
  readonly spanId: string;
  /** The parent span's id; undefined for a root span. */
  readonly parentSpanId?: string;
  /** `service.name` of the process that recorded the span. */
  readonly service: string;
  /** OpenTelemetry's span kinds, lower case; `internal` where the format says none. */
  readonly kind: SpanKind;
  /** Start and end, seconds since the Unix epoch. */
  readonly start: number;
  readonly end: number;
  /** The span's attributes (OTLP), tags (Jaeger, Zipkin) as strings, numbers and booleans. */
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  /** Whether the span records a failure (status ERROR, `error` tag, HTTP status ≥ 500 on a server). */
  readonly error: boolean;
}

/** OpenTelemetry's span kinds. */
export type SpanKind = 'server' | 'client' | 'internal' | 'producer' | 'consumer';

/** An attribute's value: a scalar, or an array of them (OTLP's arrayValue, e.g. header values). */
export type SpanAttributeValue = string | number | boolean | readonly (string | number | boolean)[];

/** The formats `difftry from-traces` reads. */
export const TRACE_FORMATS = ['otlp-json', 'jaeger-json', 'zipkin-json'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];
