import type { TraceFormat } from './TraceSpan.js';

/** How each format is called in messages. */
export const TRACE_FORMAT_NAMES: Readonly<Record<TraceFormat, string>> = {
  'otlp-json': 'OTLP/JSON',
  'jaeger-json': 'Jaeger JSON',
  'zipkin-json': 'Zipkin v2 JSON',
};

/**
 * The format of a trace file, judged from its first JSON value (a whole document, or the first
 * line of a JSON-lines file); undefined when it looks like none of them.
 *
 * - an object with a `resourceSpans` array: `otlp-json` (an OTLP `ExportTraceServiceRequest`);
 * - an object with a `data` array of objects with `spans` arrays (Jaeger's UI and API export), or
 *   one such trace alone, `{ traceID, spans, processes }`: `jaeger-json`;
 * - an array whose first element has `traceId` and `id`, or one such span alone (a line of a
 *   JSON-lines file): `zipkin-json`.
 * @example
 * ```ts
 * detectTraceFormat({ resourceSpans: [] }); // 'otlp-json'
 * detectTraceFormat([{ traceId: 'a1', id: 'b2' }]); // 'zipkin-json'
 * ```
 */
export function detectTraceFormat(firstValue: unknown): TraceFormat | undefined {
  if (Array.isArray(firstValue)) {
    return isZipkinSpan(firstValue[0]) ? 'zipkin-json' : undefined;
  }
  if (!isObject(firstValue)) return undefined;
  if (Array.isArray(firstValue.resourceSpans)) return 'otlp-json';
  if (Array.isArray(firstValue.data)) {
    return firstValue.data.every(isJaegerTrace) ? 'jaeger-json' : undefined;
  }
  if (isJaegerTrace(firstValue) && 'traceID' in firstValue && 'processes' in firstValue) {
    return 'jaeger-json';
  }
  return isZipkinSpan(firstValue) ? 'zipkin-json' : undefined;
}

function isJaegerTrace(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.spans);
}

function isZipkinSpan(value: unknown): boolean {
  return isObject(value) && typeof value.traceId === 'string' && typeof value.id === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
