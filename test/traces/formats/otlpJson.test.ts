import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { otlpJsonSpans, otlpResourceSpans } from '../../../src/traces/formats/otlpJson.js';
import { TraceFileError } from '../../../src/traces/TraceFileError.js';
import {
  expectGoldTrace,
  fixture,
  fixturePath,
  GOLD_TRACE,
  THIRD_TRACE_ERRORS,
} from './checkoutTrace.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** One OTLP/JSON request of one resource (`service.name` `svc`) holding `spans`. */
function request(spans: unknown[], resourceAttributes?: unknown[]): unknown {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: resourceAttributes ?? [
            { key: 'service.name', value: { stringValue: 'svc' } },
          ],
        },
        scopeSpans: [{ scope: { name: 'test' }, spans }],
      },
    ],
  };
}

/** A well-formed span, with `fields` laid over it. */
function span(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: TRACE,
    spanId: '00f067aa0ba902b7',
    parentSpanId: '',
    name: 'GET /',
    kind: 2,
    startTimeUnixNano: '1764950400000000000',
    endTimeUnixNano: '1764950400250000000',
    attributes: [],
    status: {},
    ...fields,
  };
}

function only(fields: Record<string, unknown>) {
  const spans = otlpJsonSpans(request([span(fields)]));
  expect(spans).toHaveLength(1);
  return spans[0] as (typeof spans)[number];
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

describe('otlpJsonSpans', () => {
  it('reads the checkout fixture: ids (lower-cased), parents, services, kinds, times, errors', () => {
    const spans = otlpJsonSpans(fixture('checkout.otlp.json'));
    expect(spans).toHaveLength(21);
    expectGoldTrace(spans);
    const root = spans.find((candidate) => candidate.spanId === 'eee19b7ec3c1b174');
    expect(root?.traceId).toBe(GOLD_TRACE);
    expect(root && 'parentSpanId' in root).toBe(false);
    expect(root?.attributes['http.request.header.x-priority']).toEqual(['gold']);
    const third = spans.filter((candidate) => candidate.traceId.startsWith('a3ce'));
    expect(
      third
        .filter((candidate) => candidate.error)
        .map((candidate) => candidate.spanId)
        .sort(),
    ).toEqual(THIRD_TRACE_ERRORS);
  });

  it('reads each line of the JSON-lines fixture (enum kind names, instrumentationLibrarySpans)', () => {
    const lines = readFileSync(fixturePath('checkout.otlp.jsonl'), 'utf8').trim().split('\n');
    const spans = lines.flatMap((line) => otlpJsonSpans(JSON.parse(line)));
    expect(spans).toHaveLength(21);
    expectGoldTrace(spans);
    expect(lines[1]).toContain('instrumentationLibrarySpans');
    expect(spans.filter((candidate) => candidate.traceId === TRACE)).toHaveLength(7);
  });

  it('converts nanoseconds to seconds as the nearest double to the exact decimal', () => {
    const read = only({
      startTimeUnixNano: '1764950400718232981',
      endTimeUnixNano: '1764950401000000001',
    });
    // The nearest doubles, as the literals' shortest forms; Number(ns) / 1e9 would round twice
    // and give 1764950400.718233, a double further away.
    expect(read.start).toBe(1764950400.7182329);
    expect(Number('1764950400718232981') / 1e9).not.toBe(read.start);
    expect(read.end).toBe(1764950401);
    // Numbers are accepted too, as exact as the JSON parser left them.
    const numeric = only({ startTimeUnixNano: 1764950400500000000, endTimeUnixNano: 1764950401e9 });
    expect(numeric.start).toBeCloseTo(1764950400.5, 6);
    expect(numeric.end).toBe(1764950401);
    expect(only({ startTimeUnixNano: '5', endTimeUnixNano: '0' }).start).toBe(5e-9);
  });

  it('reads kinds as numbers or enum names, 0 and none as internal', () => {
    const kinds = [0, 1, 2, 3, 4, 5, undefined, 'SPAN_KIND_CONSUMER', 'SPAN_KIND_UNSPECIFIED'].map(
      (kind) => only({ kind }).kind,
    );
    expect(kinds).toEqual([
      'internal',
      'internal',
      'server',
      'client',
      'producer',
      'consumer',
      'internal',
      'consumer',
      'internal',
    ]);
    expect(errorOf(() => only({ kind: 9 })).message).toBe(
      `resourceSpans[0]: span 1 of trace ${TRACE}: kind 9 is not a span kind`,
    );
    expect(errorOf(() => only({ kind: 'SERVER' })).message).toContain('kind "SERVER"');
  });

  it('reads attribute values of every kind', () => {
    const read = only({
      attributes: [
        { key: 's', value: { stringValue: 'x' } },
        { key: 'i', value: { intValue: '42' } },
        { key: 'n', value: { intValue: 7 } },
        { key: 'd', value: { doubleValue: 0.5 } },
        { key: 'b', value: { boolValue: false } },
        { key: 'a', value: { arrayValue: { values: [{ stringValue: 'p' }, { intValue: '2' }] } } },
        { key: 'bytes', value: { bytesValue: 'AAE=' } },
        { key: 'kv', value: { kvlistValue: { values: [] } } },
        { key: 'empty', value: {} },
        { key: '__proto__', value: { stringValue: 'kept as a key' } },
      ],
    });
    expect(read.attributes).toEqual({
      s: 'x',
      i: 42,
      n: 7,
      d: 0.5,
      b: false,
      a: ['p', 2],
      bytes: 'AAE=',
      ['__proto__']: 'kept as a key',
    });
    expect(Object.getPrototypeOf(read.attributes)).toBe(Object.prototype);
  });

  it('marks errors: status ERROR by number or name, or a server span with HTTP status ≥ 500', () => {
    const status = (code: unknown) => only({ status: { code } }).error;
    expect([0, 1, 2, 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'].map(status)).toEqual([
      false,
      false,
      true,
      false,
      true,
    ]);
    const http = (kind: number, key: string, value: unknown) =>
      only({ kind, attributes: [{ key, value }] }).error;
    expect(http(2, 'http.response.status_code', { intValue: '503' })).toBe(true);
    expect(http(2, 'http.status_code', { intValue: 500 })).toBe(true);
    expect(http(2, 'http.response.status_code', { intValue: '499' })).toBe(false);
    // A client's 5xx is the callee's failure.
    expect(http(3, 'http.response.status_code', { intValue: '503' })).toBe(false);
  });

  it('reads parents, service names, and ids in any case', () => {
    const read = only({ traceId: TRACE.toUpperCase(), parentSpanId: 'AB00000000000001' });
    expect(read.traceId).toBe(TRACE);
    expect(read.parentSpanId).toBe('ab00000000000001');
    expect(read.service).toBe('svc');
    const [nameless] = otlpJsonSpans(request([span()], []));
    expect(nameless?.service).toBe('unknown_service');
    const [noResource] = otlpResourceSpans({ scopeSpans: [{ spans: [span()] }] });
    expect(noResource?.service).toBe('unknown_service');
    expect(otlpResourceSpans({ resource: {} })).toEqual([]);
  });

  it('names what is wrong with a span, and where', () => {
    const second = (fields: Record<string, unknown>) =>
      errorOf(() => otlpJsonSpans(request([span(), span(fields)]))).message;
    expect(second({ spanId: undefined })).toBe(
      `resourceSpans[0]: span 2 of trace ${TRACE}: no spanId`,
    );
    expect(second({ spanId: '' })).toContain('no spanId');
    expect(second({ traceId: undefined })).toBe('resourceSpans[0]: span 2: no traceId');
    expect(second({ startTimeUnixNano: undefined })).toBe(
      `resourceSpans[0]: span 2 of trace ${TRACE}: no startTimeUnixNano (an integer)`,
    );
    expect(second({ endTimeUnixNano: '12.5' })).toContain('no endTimeUnixNano');
    expect(second({ attributes: [{ value: { stringValue: 'x' } }] })).toContain(
      'attribute 1 has no key',
    );
    expect(second({ parentSpanId: 7 })).toContain('parentSpanId is not a string');
    expect(errorOf(() => otlpJsonSpans(request([span(), 'x']))).message).toBe(
      'resourceSpans[0]: span 2: not an object',
    );
    expect(errorOf(() => otlpResourceSpans({ scopeSpans: [{ spans: [{}] }] })).message).toBe(
      'span 1: no traceId',
    );
    expect(errorOf(() => otlpJsonSpans({ data: [] })).message).toBe(
      'expected an OTLP/JSON object with a resourceSpans array',
    );
    expect(errorOf(() => otlpResourceSpans({ scopeSpans: {} })).message).toBe(
      'scopeSpans is not an array',
    );
  });
});
