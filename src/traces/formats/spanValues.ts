import { TraceFileError } from '../TraceFileError.js';
import type { SpanAttributeValue, SpanKind } from '../TraceSpan.js';

/** The service of a span whose file names none: OpenTelemetry's own default for `service.name`. */
export const UNKNOWN_SERVICE = 'unknown_service';

/** The attributes (OpenTelemetry's current name first) that carry a server's HTTP status code. */
const HTTP_STATUS_KEYS = ['http.response.status_code', 'http.status_code'] as const;

/** Whether `value` is a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error for one span of a trace file, naming it by its position (1-based, in the order its
 * container lists spans) and its trace, when known: `span 3 of trace 4bf9…: no spanId`. The reader
 * prefixes the file name (and the line or element).
 */
export function spanProblem(position: number, traceId: string | undefined, reason: string) {
  const trace = traceId === undefined ? '' : ` of trace ${traceId}`;
  return new TraceFileError(`span ${position}${trace}: ${reason}`);
}

/**
 * A span's attributes as `read` gives them, a refusal of theirs restated as the span's own
 * (`fail`, which names the span).
 */
export function spanAttributes<T>(read: () => T, fail: (reason: string) => TraceFileError): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof TraceFileError) throw fail(error.message);
    throw error;
  }
}

/**
 * A non-empty id string, lower-cased (hex ids are compared as text), or undefined when `value` is
 * missing, empty or not a string.
 */
export function idOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.toLowerCase() : undefined;
}

/**
 * The decimal digits of a non-negative integer given as a JSON number or a digit string (how
 * OTLP/JSON writes int64, how Jaeger and Zipkin write microseconds); undefined for anything else.
 * A number above 2^53 has already lost its last digits in the JSON parser.
 */
export function integerDigits(value: unknown): string | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 ? BigInt(value).toString() : undefined;
  }
  if (typeof value === 'string' && /^\d+$/.test(value)) return value;
  return undefined;
}

/**
 * Seconds since the epoch from an integer count of a sub-second unit, given as its decimal digits:
 * `fractionDigits` 9 for nanoseconds, 6 for microseconds. The digits are split into the whole
 * seconds and the fraction and read as one decimal, so the result is the double nearest the exact
 * value (converting the count to a number first would round it once more, past 2^53 ns).
 * @example epochSeconds('1700000000123456789', 9) // 1700000000.123456789, as near as a double gets
 */
export function epochSeconds(digits: string, fractionDigits: number): number {
  const padded = digits.padStart(fractionDigits + 1, '0');
  const whole = padded.slice(0, padded.length - fractionDigits);
  return Number(`${whole}.${padded.slice(padded.length - fractionDigits)}`);
}

/**
 * Whether a span records a server-side HTTP failure: a server span whose HTTP status code
 * (`http.response.status_code`, or the older `http.status_code`, as a number or a digit string)
 * is 500 or more. A client span's 5xx is the callee's failure, recorded on the callee's own span.
 */
export function isHttpServerError(
  kind: SpanKind,
  attributes: Readonly<Record<string, SpanAttributeValue>>,
): boolean {
  if (kind !== 'server') return false;
  for (const key of HTTP_STATUS_KEYS) {
    const value = attributes[key];
    if (value === undefined) continue;
    const status = typeof value === 'string' ? Number(value) : value;
    return typeof status === 'number' && status >= 500;
  }
  return false;
}
