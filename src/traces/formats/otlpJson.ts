import { TraceFileError } from '../TraceFileError.js';
import type { SpanAttributeValue, SpanKind, TraceSpan } from '../TraceSpan.js';
import {
  epochSeconds,
  idOf,
  integerDigits,
  isHttpServerError,
  isRecord,
  spanAttributes,
  spanProblem,
  UNKNOWN_SERVICE,
} from './spanValues.js';

/** OTLP's `Span.SpanKind` by number; 0, `SPAN_KIND_UNSPECIFIED`, is read as internal. */
const KINDS_BY_NUMBER: readonly SpanKind[] = [
  'internal',
  'internal',
  'server',
  'client',
  'producer',
  'consumer',
];

/** OTLP's `Span.SpanKind` by enum name, as the protobuf JSON mapping may also write it. */
const KINDS_BY_NAME: Readonly<Record<string, SpanKind>> = {
  SPAN_KIND_UNSPECIFIED: 'internal',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};

/** `Status.StatusCode` ERROR, by number and by name. */
const STATUS_ERROR: ReadonlySet<unknown> = new Set([2, 'STATUS_CODE_ERROR']);

type Scalar = string | number | boolean;

/**
 * The spans of one OTLP/JSON `ExportTraceServiceRequest` (what the OpenTelemetry collector's
 * file exporter writes, one a line, and what an OTLP/HTTP JSON body holds):
 * `{ resourceSpans: [{ resource: { attributes }, scopeSpans: [{ spans: [...] }] }] }`.
 *
 * Ids are lower-cased hex; times (`startTimeUnixNano`, `endTimeUnixNano`, decimal strings or
 * numbers) become seconds without rounding the nanoseconds twice; the service is the resource's
 * `service.name` (`unknown_service` without one). A span is an error when its status code is
 * ERROR, or when it is a server span with an HTTP status ≥ 500.
 * @throws {TraceFileError} naming the element and span that is missing a field or has the wrong
 *   shape (`resourceSpans[0]: span 3 of trace 4bf9…: no spanId`); no file name, which the reader adds.
 * @see https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding
 * @example
 * ```ts
 * const spans = otlpJsonSpans(JSON.parse(line));
 * ```
 */
export function otlpJsonSpans(document: unknown): TraceSpan[] {
  if (!isRecord(document) || !Array.isArray(document.resourceSpans)) {
    throw new TraceFileError('expected an OTLP/JSON object with a resourceSpans array');
  }
  return document.resourceSpans.flatMap((element: unknown, index) => {
    try {
      return otlpResourceSpans(element);
    } catch (error) {
      if (!(error instanceof TraceFileError)) throw error;
      throw new TraceFileError(`resourceSpans[${index}]: ${error.message}`, { cause: error });
    }
  });
}

/**
 * The spans of one element of an OTLP/JSON request's `resourceSpans`: one resource (its
 * `service.name`) and its `scopeSpans` (or `instrumentationLibrarySpans`, the name before OTLP
 * 0.15). What {@link otlpJsonSpans} reads for each element, and what a streaming reader converts
 * one element at a time.
 * @throws {TraceFileError} naming the span (`span 3 of trace 4bf9…: no spanId`), counted from 1
 *   across the element's scopes.
 */
export function otlpResourceSpans(element: unknown): TraceSpan[] {
  if (!isRecord(element)) throw new TraceFileError('expected a resourceSpans object');
  const resource = element.resource;
  const resourceAttributes = isRecord(resource) ? attributesOf(resource.attributes) : undefined;
  const serviceName = resourceAttributes?.['service.name'];
  const service = typeof serviceName === 'string' && serviceName !== '' ? serviceName : undefined;
  const scopes = element.scopeSpans ?? element.instrumentationLibrarySpans ?? [];
  if (!Array.isArray(scopes)) throw new TraceFileError('scopeSpans is not an array');
  const spans: TraceSpan[] = [];
  for (const [scopeIndex, scope] of scopes.entries()) {
    if (!isRecord(scope)) throw new TraceFileError(`scopeSpans[${scopeIndex}] is not an object`);
    const scopeSpans = scope.spans ?? [];
    if (!Array.isArray(scopeSpans)) {
      throw new TraceFileError(`scopeSpans[${scopeIndex}].spans is not an array`);
    }
    for (const span of scopeSpans) {
      spans.push(otlpSpan(span, spans.length + 1, service ?? UNKNOWN_SERVICE));
    }
  }
  return spans;
}

/** One OTLP/JSON span; `position` (from 1) only names it in errors. */
function otlpSpan(span: unknown, position: number, service: string): TraceSpan {
  if (!isRecord(span)) throw spanProblem(position, undefined, 'not an object');
  const traceId = idOf(span.traceId);
  const fail = (reason: string) => spanProblem(position, traceId, reason);
  if (traceId === undefined) throw fail('no traceId');
  const spanId = idOf(span.spanId);
  if (spanId === undefined) throw fail('no spanId');
  const parentSpanId = span.parentSpanId;
  if (parentSpanId !== undefined && parentSpanId !== null && typeof parentSpanId !== 'string') {
    throw fail('parentSpanId is not a string');
  }
  const kind = kindOf(span.kind);
  if (kind === undefined) throw fail(`kind ${JSON.stringify(span.kind)} is not a span kind`);
  const startNanos = integerDigits(span.startTimeUnixNano);
  if (startNanos === undefined) throw fail('no startTimeUnixNano (an integer)');
  const endNanos = integerDigits(span.endTimeUnixNano);
  if (endNanos === undefined) throw fail('no endTimeUnixNano (an integer)');
  const attributes = spanAttributes(() => attributesOf(span.attributes), fail);
  const status = span.status;
  const statusError = isRecord(status) && STATUS_ERROR.has(status.code);
  return {
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId: parentSpanId.toLowerCase() } : {}),
    service,
    kind,
    start: epochSeconds(startNanos, 9),
    end: epochSeconds(endNanos, 9),
    attributes,
    error: statusError || isHttpServerError(kind, attributes),
  };
}

function kindOf(kind: unknown): SpanKind | undefined {
  if (kind === undefined || kind === null) return 'internal';
  if (typeof kind === 'number') return KINDS_BY_NUMBER[kind];
  if (typeof kind === 'string')
    return Object.hasOwn(KINDS_BY_NAME, kind) ? KINDS_BY_NAME[kind] : undefined;
  return undefined;
}

/**
 * OTLP `KeyValue`s as attributes. A value that is none of a string, int, double, bool, bytes or
 * array of those (a `kvlistValue`, an empty value) is left out; so is an array's element that is
 * not a scalar. A later duplicate key wins.
 */
function attributesOf(list: unknown): Record<string, SpanAttributeValue> {
  if (list === undefined || list === null) return {};
  if (!Array.isArray(list)) throw new TraceFileError('attributes is not an array');
  const entries = new Map<string, SpanAttributeValue>();
  for (const [index, keyValue] of list.entries()) {
    if (!isRecord(keyValue) || typeof keyValue.key !== 'string') {
      throw new TraceFileError(`attribute ${index + 1} has no key`);
    }
    const value = anyValueOf(keyValue.value);
    if (value !== undefined) entries.set(keyValue.key, value);
  }
  // fromEntries defines each key as an own property, `__proto__` included.
  return Object.fromEntries(entries);
}

function anyValueOf(value: unknown): SpanAttributeValue | undefined {
  if (!isRecord(value)) return undefined;
  const arrayValue = value.arrayValue;
  if (isRecord(arrayValue)) {
    const values = Array.isArray(arrayValue.values) ? arrayValue.values : [];
    return values.map(scalarOf).filter((element) => element !== undefined);
  }
  return scalarOf(value);
}

function scalarOf(value: unknown): Scalar | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  // int64 is a decimal string in OTLP/JSON; a double may be "NaN" or "Infinity".
  for (const numeric of [value.intValue, value.doubleValue]) {
    if (typeof numeric === 'number') return numeric;
    if (typeof numeric === 'string') {
      const parsed = Number(numeric);
      return numeric.trim() !== '' && !Number.isNaN(parsed) ? parsed : numeric;
    }
  }
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  return undefined;
}
