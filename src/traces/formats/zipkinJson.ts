import { TraceFileError } from '../TraceFileError.js';
import type { SpanAttributeValue, SpanKind, TraceSpan } from '../TraceSpan.js';
import {
  epochSeconds,
  idOf,
  integerDigits,
  isHttpServerError,
  isRecord,
  spanProblem,
  UNKNOWN_SERVICE,
} from './spanValues.js';

/** Zipkin's span kinds; a span without one (a local span) is internal. */
const KINDS: Readonly<Record<string, SpanKind>> = {
  CLIENT: 'client',
  SERVER: 'server',
  PRODUCER: 'producer',
  CONSUMER: 'consumer',
};

/**
 * The tags, all strings in Zipkin, that OpenTelemetry defines as integers: read as numbers when
 * they look like one, so they compare with the same attributes from OTLP and Jaeger.
 */
const NUMERIC_TAGS: ReadonlySet<string> = new Set([
  'http.request.resend_count',
  'http.response.status_code',
  'http.status_code',
  'rpc.grpc.status_code',
]);

/** The suffix of the span id given to the server half of a shared (B3 single-host) span. */
export const SHARED_SERVER_SUFFIX = ':server';

/**
 * The spans of a Zipkin v2 JSON array (what `/api/v2/trace/{id}` returns and `/api/v2/spans`
 * accepts): `[{ traceId, id, parentId?, kind?, name, timestamp, duration, localEndpoint, tags? }]`.
 * @throws {TraceFileError} as {@link zipkinSpan}, the span named by its position from 1.
 * @see https://zipkin.io/zipkin-api/#/default/post_spans
 * @example
 * ```ts
 * const spans = zipkinJsonSpans(JSON.parse(text));
 * ```
 */
export function zipkinJsonSpans(spans: unknown): TraceSpan[] {
  if (!Array.isArray(spans)) throw new TraceFileError('expected an array of Zipkin spans');
  const read: TraceSpan[] = [];
  spans.forEach((span: unknown, index) => {
    const one = zipkinSpan(span, index);
    if (one !== undefined) read.push(one);
  });
  return read;
}

/**
 * One Zipkin v2 span. Times are `timestamp` and `duration`, in microseconds; the service is
 * `localEndpoint.serviceName` (`unknown_service` without one); the kind is `kind` (internal
 * without one). Tags become string attributes, except the few OpenTelemetry defines as integers
 * (`http.response.status_code`, `http.status_code`, `http.request.resend_count`,
 * `rpc.grpc.status_code`), which become numbers. A span is an error when it has an `error` tag (of
 * any value), `otel.status_code` = ERROR, or is a server span with an HTTP status ≥ 500.
 *
 * A span without a `timestamp` is a fragment (Zipkin v2 lets a reporter send a span's annotations
 * apart from the span, merged by id in the server): it is skipped, and `undefined` returned. One
 * without a `duration` (not finished when reported) ends where it starts. The callee a client
 * span names in `remoteEndpoint.serviceName` becomes `peer.service`, unless a tag says it.
 *
 * A shared server span (`shared: true`, B3's single-host spans: the server reuses the client's
 * span id) gets the id `${id}:server` and the client span as its parent, so the two stay
 * distinct. Spans the server then started name the shared id as their parent, so they hang off
 * the client span, as Zipkin itself draws them.
 * @param index where the span sits in its array, from 0; only names it in errors.
 * @throws {TraceFileError} naming the span that is missing a field or has the wrong shape
 *   (`span 3 of trace 4bf9…: no id`); no file name, which the reader adds.
 */
export function zipkinSpan(span: unknown, index = 0): TraceSpan | undefined {
  const position = index + 1;
  if (!isRecord(span)) throw spanProblem(position, undefined, 'not an object');
  const traceId = idOf(span.traceId);
  const fail = (reason: string) => spanProblem(position, traceId, reason);
  if (traceId === undefined) throw fail('no traceId');
  const id = idOf(span.id);
  if (id === undefined) throw fail('no id');
  const kind = kindOf(span.kind);
  if (kind === undefined) throw fail(`kind ${JSON.stringify(span.kind)} is not a span kind`);
  if (span.timestamp === undefined || span.timestamp === null) return undefined;
  const startMicros = integerDigits(span.timestamp);
  if (startMicros === undefined) throw fail('timestamp is not an integer (microseconds)');
  const durationMicros =
    span.duration === undefined || span.duration === null ? '0' : integerDigits(span.duration);
  if (durationMicros === undefined) throw fail('duration is not an integer (microseconds)');
  if (span.tags !== undefined && span.tags !== null && !isRecord(span.tags)) {
    throw fail('tags is not an object');
  }
  const attributes = tagsOf(span.tags ?? {});
  const remote = span.remoteEndpoint;
  const remoteName = isRecord(remote) ? remote.serviceName : undefined;
  if (
    typeof remoteName === 'string' &&
    remoteName !== '' &&
    !Object.hasOwn(attributes, 'peer.service')
  ) {
    attributes['peer.service'] = remoteName;
  }
  const sharedServer = span.shared === true && kind === 'server';
  const parentSpanId = sharedServer ? id : idOf(span.parentId);
  const endMicros = (BigInt(startMicros) + BigInt(durationMicros)).toString();
  const localEndpoint = span.localEndpoint;
  const serviceName = isRecord(localEndpoint) ? localEndpoint.serviceName : undefined;
  return {
    traceId,
    spanId: sharedServer ? `${id}${SHARED_SERVER_SUFFIX}` : id,
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    service: typeof serviceName === 'string' && serviceName !== '' ? serviceName : UNKNOWN_SERVICE,
    kind,
    start: epochSeconds(startMicros, 6),
    end: epochSeconds(endMicros, 6),
    attributes,
    error:
      Object.hasOwn(attributes, 'error') ||
      attributes['otel.status_code'] === 'ERROR' ||
      isHttpServerError(kind, attributes),
  };
}

function kindOf(kind: unknown): SpanKind | undefined {
  if (kind === undefined || kind === null) return 'internal';
  return typeof kind === 'string' && Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
}

function tagsOf(tags: Record<string, unknown>): Record<string, SpanAttributeValue> {
  const entries: [string, SpanAttributeValue][] = [];
  for (const [key, value] of Object.entries(tags)) {
    if (typeof value === 'string') {
      entries.push([key, NUMERIC_TAGS.has(key) && /^-?\d+$/.test(value) ? Number(value) : value]);
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      // Not Zipkin's model, but some writers send them; keep what was written.
      entries.push([key, value]);
    }
  }
  return Object.fromEntries(entries);
}
