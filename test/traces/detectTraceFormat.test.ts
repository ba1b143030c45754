import { describe, expect, it } from 'vitest';
import { detectTraceFormat } from '../../src/traces/detectTraceFormat.js';
import { fixture } from './formats/checkoutTrace.js';

describe('detectTraceFormat', () => {
  it('knows each checkout fixture', () => {
    expect(detectTraceFormat(fixture('checkout.otlp.json'))).toBe('otlp-json');
    expect(detectTraceFormat(fixture('checkout.jaeger.json'))).toBe('jaeger-json');
    expect(detectTraceFormat(fixture('checkout.zipkin.json'))).toBe('zipkin-json');
  });

  it('knows OTLP/JSON by its resourceSpans array', () => {
    expect(detectTraceFormat({ resourceSpans: [] })).toBe('otlp-json');
    expect(detectTraceFormat({ resourceSpans: {} })).toBeUndefined();
  });

  it('knows Jaeger JSON by its data array of traces, or one trace alone', () => {
    expect(detectTraceFormat({ data: [{ traceID: 'a', spans: [], processes: {} }] })).toBe(
      'jaeger-json',
    );
    expect(detectTraceFormat({ data: [], total: 0 })).toBe('jaeger-json');
    expect(detectTraceFormat({ data: [{ rows: [] }] })).toBeUndefined();
    expect(detectTraceFormat({ traceID: 'a', spans: [], processes: {} })).toBe('jaeger-json');
    expect(detectTraceFormat({ spans: [] })).toBeUndefined();
  });

  it('knows Zipkin v2 JSON by an array of spans with traceId and id, or one span alone', () => {
    expect(detectTraceFormat([{ traceId: 'a', id: 'b' }])).toBe('zipkin-json');
    expect(detectTraceFormat({ traceId: 'a', id: 'b', name: 'get' })).toBe('zipkin-json');
    expect(detectTraceFormat([{ traceId: 'a' }])).toBeUndefined();
    expect(detectTraceFormat([])).toBeUndefined();
  });

  it('knows nothing else', () => {
    for (const value of [null, 1, 'x', true, {}, { spans: 3 }, [[]], [1]]) {
      expect(detectTraceFormat(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});
