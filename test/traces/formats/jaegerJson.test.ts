import { describe, expect, it } from 'vitest';
import { jaegerExportSpans, jaegerJsonSpans } from '../../../src/traces/formats/jaegerJson.js';
import { TraceFileError } from '../../../src/traces/TraceFileError.js';
import { expectGoldTrace, fixture, THIRD_TRACE_ERRORS } from './checkoutTrace.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A well-formed Jaeger span, with `fields` laid over it. */
function span(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceID: TRACE,
    spanID: '00f067aa0ba902b7',
    operationName: 'GET /',
    references: [],
    startTime: 1764950400000000,
    duration: 250000,
    tags: [],
    processID: 'p1',
    warnings: null,
    ...fields,
  };
}

function trace(spans: unknown[]): Record<string, unknown> {
  return { traceID: TRACE, spans, processes: { p1: { serviceName: 'svc', tags: [] } } };
}

function only(fields: Record<string, unknown>) {
  const spans = jaegerJsonSpans(trace([span(fields)]));
  expect(spans).toHaveLength(1);
  return spans[0] as (typeof spans)[number];
}

function tagged(...tags: [string, string, unknown][]) {
  return only({ tags: tags.map(([key, type, value]) => ({ key, type, value })) });
}

function errorOf(convert: () => unknown): TraceFileError {
  try {
    convert();
  } catch (error) {
    if (error instanceof TraceFileError) {
      expect(error.code).toBe('DIFFTRY_TRACES_INVALID');
      return error;
    }
    throw error;
  }
  throw new Error('converted without error');
}

describe('jaegerJsonSpans', () => {
  it('reads the checkout fixture: ids, parents, services, kinds, times, errors', () => {
    const exported = fixture('checkout.jaeger.json') as { data: unknown[] };
    const spans = exported.data.flatMap(jaegerJsonSpans);
    expect(spans).toHaveLength(21);
    expectGoldTrace(spans);
    expect(jaegerExportSpans(exported)).toEqual(spans);
    const third = spans.filter((candidate) => candidate.traceId.startsWith('a3ce'));
    expect(
      third
        .filter((candidate) => candidate.error)
        .map((candidate) => candidate.spanId)
        .sort(),
    ).toEqual(THIRD_TRACE_ERRORS);
  });

  it('reads times in microseconds, exactly', () => {
    const read = only({ startTime: 1764950400123456, duration: 999999 });
    expect(read.start).toBe(1764950400.123456);
    expect(read.end).toBe(1764950401.123455);
    expect(only({ startTime: '1764950400000001', duration: '2' }).end).toBe(1764950400.000003);
  });

  it('reads the kind from span.kind, internal otherwise', () => {
    const kind = (value: unknown) => tagged(['span.kind', 'string', value]).kind;
    expect(['server', 'client', 'producer', 'consumer', 'internal', 'gateway'].map(kind)).toEqual([
      'server',
      'client',
      'producer',
      'consumer',
      'internal',
      'internal',
    ]);
    expect(only({}).kind).toBe('internal');
  });

  it('takes the first CHILD_OF reference as the parent, else the first reference', () => {
    const follows = { refType: 'FOLLOWS_FROM', traceID: TRACE, spanID: 'f0110b5' };
    const child = { refType: 'CHILD_OF', traceID: TRACE, spanID: 'C41LD' };
    expect(only({ references: [follows, child] }).parentSpanId).toBe('c41ld');
    expect(only({ references: [follows] }).parentSpanId).toBe('f0110b5');
    expect(only({ references: [] }).parentSpanId).toBeUndefined();
    expect(only({ parentSpanID: 'abc' }).parentSpanId).toBe('abc');
    expect(only({ parentSpanID: '0' }).parentSpanId).toBeUndefined();
  });

  it('types tags as attributes', () => {
    const read = tagged(
      ['s', 'string', 'x'],
      ['b', 'bool', true],
      ['bs', 'bool', 'false'],
      ['i', 'int64', 42],
      ['is', 'int64', '43'],
      ['f', 'float64', 0.5],
      ['bin', 'binary', 'AAE='],
      ['untyped', undefined as unknown as string, 7],
    );
    expect(read.attributes).toEqual({
      s: 'x',
      b: true,
      bs: false,
      i: 42,
      is: 43,
      f: 0.5,
      bin: 'AAE=',
      untyped: 7,
    });
  });

  it('marks errors: error = true, otel.status_code = ERROR, or a server HTTP status ≥ 500', () => {
    expect(tagged(['error', 'bool', true]).error).toBe(true);
    expect(tagged(['error', 'string', 'true']).error).toBe(true);
    expect(tagged(['error', 'bool', false]).error).toBe(false);
    expect(tagged(['otel.status_code', 'string', 'ERROR']).error).toBe(true);
    expect(tagged(['otel.status_code', 'string', 'OK']).error).toBe(false);
    const server = ['span.kind', 'string', 'server'] as [string, string, unknown];
    expect(tagged(server, ['http.status_code', 'int64', 502]).error).toBe(true);
    expect(tagged(server, ['http.response.status_code', 'int64', 404]).error).toBe(false);
    expect(
      tagged(['span.kind', 'string', 'client'], ['http.status_code', 'int64', 502]).error,
    ).toBe(false);
  });

  it("names the service from the span's process, shared or embedded", () => {
    expect(only({}).service).toBe('svc');
    expect(only({ processID: undefined, process: { serviceName: 'inline' } }).service).toBe(
      'inline',
    );
    expect(only({ processID: undefined }).service).toBe('unknown_service');
    expect(errorOf(() => only({ processID: 'p9' })).message).toBe(
      `span 1 of trace ${TRACE}: process p9 is not among the trace's processes`,
    );
  });

  it("takes the trace's id for a span without its own", () => {
    expect(only({ traceID: undefined }).traceId).toBe(TRACE);
  });

  it('names what is wrong with a span, and where', () => {
    const second = (fields: Record<string, unknown>) =>
      errorOf(() => jaegerJsonSpans(trace([span(), span(fields)]))).message;
    expect(second({ spanID: undefined })).toBe(`span 2 of trace ${TRACE}: no spanID`);
    expect(second({ startTime: undefined })).toBe(
      `span 2 of trace ${TRACE}: no startTime (an integer, microseconds)`,
    );
    expect(second({ duration: -1 })).toContain('no duration');
    expect(second({ tags: [{ type: 'string', value: 'x' }] })).toContain('tag 1 has no key');
    expect(second({ tags: {} })).toContain('tags is not an array');
    expect(errorOf(() => jaegerJsonSpans({ traceID: TRACE })).message).toBe(
      'expected a Jaeger trace with a spans array',
    );
    expect(
      errorOf(() => jaegerExportSpans({ data: [trace([span()]), trace([span({ spanID: '' })])] }))
        .message,
    ).toBe(`data[1]: span 1 of trace ${TRACE}: no spanID`);
  });
});
