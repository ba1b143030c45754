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

/** The values of Jaeger's `span.kind` tag that name an OpenTelemetry kind; any other is internal. */
const KINDS: ReadonlySet<string> = new Set([
  'server',
  'client',
  'producer',
  'consumer',
  'internal',
]);

/**
 * The spans of one trace of Jaeger's JSON export (an element of the `data` array the Jaeger UI
 * downloads and its query API `/api/traces` returns): `{ traceID, spans, processes }`.
 *
 * A span's service is its process's `serviceName`; its kind is its `span.kind` tag (internal
 * without one); its parent is its first `CHILD_OF` reference, else its first reference (else its
 * `parentSpanID`, which older exports carry); its times come from `startTime` and `duration`, in
 * microseconds. Tags become attributes with their types (bool, int64 and float64 as numbers,
 * string and binary as strings). A span is an error when tagged `error` = true or
 * `otel.status_code` = ERROR, or when it is a server span with an HTTP status ≥ 500.
 * @throws {TraceFileError} naming the span that is missing a field or has the wrong shape
 *   (`span 3 of trace 4bf9…: no spanID`); no file name, which the reader adds.
 * @see https://www.jaegertracing.io/docs/latest/apis/
 * @example
 * ```ts
 * const spans = JSON.parse(text).data.flatMap(jaegerJsonSpans);
 * ```
 */
export function jaegerJsonSpans(trace: unknown): TraceSpan[] {
  if (!isRecord(trace) || !Array.isArray(trace.spans)) {
    throw new TraceFileError('expected a Jaeger trace with a spans array');
  }
  const processes = isRecord(trace.processes) ? trace.processes : {};
  const traceTraceId = idOf(trace.traceID);
  return trace.spans.map((span: unknown, index) =>
    jaegerSpan(span, index + 1, traceTraceId, processes),
  );
}

/**
 * The spans of a whole Jaeger JSON value: an export `{ data: [trace, …] }` or one bare trace
 * `{ traceID, spans, processes }` (as one line of a JSON-lines file may hold).
 * @throws {TraceFileError} as {@link jaegerJsonSpans}, the trace named by its place
 *   (`data[2]: span 3 of trace …`).
 */
export function jaegerExportSpans(value: unknown): TraceSpan[] {
  if (isRecord(value) && Array.isArray(value.data)) {
    return value.data.flatMap((trace: unknown, index) => {
      try {
        return jaegerJsonSpans(trace);
      } catch (error) {
        if (!(error instanceof TraceFileError)) throw error;
        throw new TraceFileError(`data[${index}]: ${error.message}`, { cause: error });
      }
    });
  }
  return jaegerJsonSpans(value);
}

/** One Jaeger span; `position` (from 1) only names it in errors. */
function jaegerSpan(
  span: unknown,
  position: number,
  traceTraceId: string | undefined,
  processes: Record<string, unknown>,
): TraceSpan {
  if (!isRecord(span)) throw spanProblem(position, traceTraceId, 'not an object');
  const traceId = idOf(span.traceID) ?? traceTraceId;
  const fail = (reason: string) => spanProblem(position, traceId, reason);
  if (traceId === undefined) throw fail('no traceID');
  const spanId = idOf(span.spanID);
  if (spanId === undefined) throw fail('no spanID');
  const startMicros = integerDigits(span.startTime);
  if (startMicros === undefined) throw fail('no startTime (an integer, microseconds)');
  const durationMicros = integerDigits(span.duration);
  if (durationMicros === undefined) throw fail('no duration (an integer, microseconds)');
  const attributes = spanAttributes(() => tagsOf(span.tags), fail);
  const kindTag = attributes['span.kind'];
  const kind: SpanKind =
    typeof kindTag === 'string' && KINDS.has(kindTag) ? (kindTag as SpanKind) : 'internal';
  const parentSpanId = parentOf(span);
  const endMicros = (BigInt(startMicros) + BigInt(durationMicros)).toString();
  return {
    traceId,
    spanId,
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    service: serviceOf(span, processes, fail),
    kind,
    start: epochSeconds(startMicros, 6),
    end: epochSeconds(endMicros, 6),
    attributes,
    error:
      attributes.error === true ||
      attributes.error === 'true' ||
      attributes['otel.status_code'] === 'ERROR' ||
      isHttpServerError(kind, attributes),
  };
}

function parentOf(span: Record<string, unknown>): string | undefined {
  const references = Array.isArray(span.references) ? span.references.filter(isRecord) : [];
  const reference =
    references.find((candidate) => candidate.refType === 'CHILD_OF') ?? references[0];
  if (reference !== undefined) return idOf(reference.spanID);
  // Older exports name the parent directly; "0" is how Jaeger's model writes no parent.
  const parentSpanId = idOf(span.parentSpanID);
  return parentSpanId === '0' ? undefined : parentSpanId;
}

function serviceOf(
  span: Record<string, unknown>,
  processes: Record<string, unknown>,
  fail: (reason: string) => TraceFileError,
): string {
  // The UI's export shares processes by id; the query service's own model embeds the process.
  let process = span.process;
  if (!isRecord(process) && typeof span.processID === 'string') {
    if (!Object.hasOwn(processes, span.processID)) {
      throw fail(`process ${span.processID} is not among the trace's processes`);
    }
    process = processes[span.processID];
  }
  if (!isRecord(process)) return UNKNOWN_SERVICE;
  const name = process.serviceName;
  return typeof name === 'string' && name !== '' ? name : UNKNOWN_SERVICE;
}

/** Jaeger's `[{ key, type, value }]` tags as attributes, typed by `type` (else by the value). */
function tagsOf(tags: unknown): Record<string, SpanAttributeValue> {
  if (tags === undefined || tags === null) return {};
  if (!Array.isArray(tags)) throw new TraceFileError('tags is not an array');
  const entries = new Map<string, SpanAttributeValue>();
  for (const [index, tag] of tags.entries()) {
    if (!isRecord(tag) || typeof tag.key !== 'string') {
      throw new TraceFileError(`tag ${index + 1} has no key`);
    }
    const value = tagValue(tag.type, tag.value);
    if (value !== undefined) entries.set(tag.key, value);
  }
  return Object.fromEntries(entries);
}

function tagValue(type: unknown, value: unknown): SpanAttributeValue | undefined {
  if (typeof type === 'string') {
    switch (type.toLowerCase()) {
      case 'bool':
        return value === true || value === 'true';
      case 'int64':
      case 'float64': {
        if (typeof value === 'number') return value;
        const number =
          typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
        return Number.isNaN(number) ? scalarOf(value) : number;
      }
      default:
        break;
    }
  }
  return scalarOf(value);
}

function scalarOf(value: unknown): SpanAttributeValue | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}
