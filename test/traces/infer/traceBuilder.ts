import { SpanStore } from '../../../src/traces/SpanStore.js';
import { DEFAULT_CLASS_SOURCE, spanReading } from '../../../src/traces/spanReading.js';
import type { SpanAttributeValue, SpanKind, TraceSpan } from '../../../src/traces/TraceSpan.js';

/** Builds traces span by span for the inference tests. */
export class TraceBuilder {
  readonly spans: TraceSpan[] = [];
  private next = 0;

  span(
    traceId: string,
    parent: string | undefined,
    service: string,
    kind: SpanKind,
    start: number,
    end: number,
    attributes: Record<string, SpanAttributeValue> = {},
    error = false,
  ): string {
    const spanId = `s${this.next++}`;
    this.spans.push({
      traceId,
      spanId,
      ...(parent === undefined ? {} : { parentSpanId: parent }),
      service,
      kind,
      start,
      end,
      attributes,
      error,
    });
    return spanId;
  }

  /** A client span of `caller` under `parent` and the server span of `callee` under it. */
  call(
    traceId: string,
    parent: string,
    caller: string,
    callee: string,
    start: number,
    end: number,
    attributes: Record<string, SpanAttributeValue> = {},
    error = false,
  ): string {
    const client = this.span(traceId, parent, caller, 'client', start, end, attributes, error);
    return this.span(traceId, client, callee, 'server', start + 1e-4, end - 1e-4, {}, error);
  }

  store(): SpanStore {
    const store = new SpanStore();
    for (const span of this.spans) store.add(span, spanReading(span, DEFAULT_CLASS_SOURCE));
    return store;
  }
}
