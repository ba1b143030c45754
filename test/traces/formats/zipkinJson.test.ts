import { describe, expect, it } from 'vitest';
import { zipkinJsonSpans, zipkinSpan } from '../../../src/traces/formats/zipkinJson.js';
import { TraceFileError } from '../../../src/traces/TraceFileError.js';
import type { TraceSpan } from '../../../src/traces/TraceSpan.js';
import { expectGoldTrace, fixture, THIRD_TRACE_ERRORS } from './checkoutTrace.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** One span that the converter keeps (it skips fragments without a timestamp). */
function spanOf(value: unknown, index?: number): TraceSpan {
  const read = zipkinSpan(value, index);
  if (read === undefined) throw new Error('the span was skipped');
  return read;
}

/** A well-formed Zipkin v2 span, with `fields` laid over it. */
function span(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: TRACE,
    id: '00f067aa0ba902b7',
    kind: 'SERVER',
    name: 'get /',
    timestamp: 1764950400000000,
    duration: 250000,
    localEndpoint: { serviceName: 'svc' },
    tags: {},
    ...fields,
  };
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

describe('zipkinJsonSpans', () => {
  it('reads the checkout fixture: ids, parents, services, kinds, times, errors', () => {
    const spans = zipkinJsonSpans(fixture('checkout.zipkin.json'));
    expect(spans).toHaveLength(21);
    expectGoldTrace(spans);
    const third = spans.filter((candidate) => candidate.traceId.startsWith('a3ce'));
    expect(
      third
        .filter((candidate) => candidate.error)
        .map((candidate) => candidate.spanId)
        .sort(),
    ).toEqual(THIRD_TRACE_ERRORS);
  });

  it('reads times in microseconds, exactly', () => {
    const read = spanOf(span({ timestamp: 1764950400123456, duration: 999999 }));
    expect(read.start).toBe(1764950400.123456);
    expect(read.end).toBe(1764950401.123455);
  });

  it('reads kinds, internal without one', () => {
    const kinds = ['CLIENT', 'SERVER', 'PRODUCER', 'CONSUMER', undefined].map(
      (kind) => spanOf(span({ kind })).kind,
    );
    expect(kinds).toEqual(['client', 'server', 'producer', 'consumer', 'internal']);
    expect(errorOf(() => spanOf(span({ kind: 'server' }), 4)).message).toBe(
      `span 5 of trace ${TRACE}: kind "server" is not a span kind`,
    );
  });

  it('reads the numeric tags OpenTelemetry defines as integers as numbers, others as strings', () => {
    const read = spanOf(
      span({
        tags: {
          'http.request.resend_count': '1',
          'http.response.status_code': '200',
          'http.status_code': '200',
          'rpc.grpc.status_code': '8',
          'difftry.attempt': '2',
          'difftry.class': 'gold',
          'http.route': '/cart',
        },
      }),
    );
    expect(read.attributes).toEqual({
      'http.request.resend_count': 1,
      'http.response.status_code': 200,
      'http.status_code': 200,
      'rpc.grpc.status_code': 8,
      'difftry.attempt': '2',
      'difftry.class': 'gold',
      'http.route': '/cart',
    });
    const odd = spanOf(span({ tags: { 'http.status_code': 'n/a' } }));
    expect(odd.attributes['http.status_code']).toBe('n/a');
  });

  it('marks errors: any error tag, otel.status_code = ERROR, or a server HTTP status ≥ 500', () => {
    const error = (tags: Record<string, string>, kind = 'SERVER') =>
      spanOf(span({ kind, tags })).error;
    expect(error({ error: '' })).toBe(true);
    expect(error({ error: 'timeout' }, 'CLIENT')).toBe(true);
    expect(error({ 'otel.status_code': 'ERROR' })).toBe(true);
    expect(error({ 'http.status_code': '503' })).toBe(true);
    expect(error({ 'http.response.status_code': '500' })).toBe(true);
    expect(error({ 'http.status_code': '503' }, 'CLIENT')).toBe(false);
    expect(error({ 'http.status_code': '404' })).toBe(false);
  });

  it('gives a shared server span its own id, with the client span as its parent', () => {
    const [client, server] = zipkinJsonSpans([
      span({ id: 'abc', parentId: 'root1', kind: 'CLIENT', localEndpoint: { serviceName: 'a' } }),
      span({ id: 'abc', parentId: 'root1', kind: 'SERVER', shared: true }),
    ]);
    expect(client).toMatchObject({ spanId: 'abc', parentSpanId: 'root1', kind: 'client' });
    expect(server).toMatchObject({ spanId: 'abc:server', parentSpanId: 'abc', service: 'svc' });
    // Only a server span is split: a shared client span keeps its id.
    expect(spanOf(span({ kind: 'CLIENT', shared: true })).spanId).toBe('00f067aa0ba902b7');
  });

  it('reads parents, services and ids', () => {
    const read = spanOf(span({ parentId: 'ABC', traceId: TRACE.toUpperCase() }));
    expect(read).toMatchObject({ parentSpanId: 'abc', traceId: TRACE, service: 'svc' });
    expect('parentSpanId' in spanOf(span())).toBe(false);
    expect(spanOf(span({ localEndpoint: undefined })).service).toBe('unknown_service');
  });

  it('skips a fragment without a timestamp, ends an unfinished span where it starts', () => {
    expect(zipkinSpan(span({ timestamp: undefined, kind: undefined }))).toBeUndefined();
    expect(zipkinJsonSpans([span(), span({ timestamp: undefined, id: 'f' })])).toHaveLength(1);
    const open = spanOf(span({ duration: undefined }));
    expect(open.end).toBe(open.start);
  });

  it('takes a client span’s remote service as peer.service, unless a tag names one', () => {
    const remote = { remoteEndpoint: { serviceName: 'cassandra' }, kind: 'CLIENT' };
    expect(spanOf(span(remote)).attributes['peer.service']).toBe('cassandra');
    expect(
      spanOf(span({ ...remote, tags: { 'peer.service': 'db' } })).attributes['peer.service'],
    ).toBe('db');
  });

  it('names what is wrong with a span, and where', () => {
    const second = (fields: Record<string, unknown>) =>
      errorOf(() => zipkinJsonSpans([span(), span(fields)])).message;
    expect(second({ id: undefined })).toBe(`span 2 of trace ${TRACE}: no id`);
    expect(second({ traceId: 7 })).toBe('span 2: no traceId');
    expect(second({ timestamp: 'soon' })).toBe(
      `span 2 of trace ${TRACE}: timestamp is not an integer (microseconds)`,
    );
    expect(second({ duration: 1.5 })).toContain('duration is not an integer');
    expect(second({ tags: ['x'] })).toContain('tags is not an object');
    expect(errorOf(() => zipkinJsonSpans({ spans: [] })).message).toBe(
      'expected an array of Zipkin spans',
    );
    expect(errorOf(() => spanOf(null)).message).toBe('span 1: not an object');
  });
});
