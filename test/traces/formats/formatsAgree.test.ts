import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jaegerExportSpans } from '../../../src/traces/formats/jaegerJson.js';
import { otlpJsonSpans } from '../../../src/traces/formats/otlpJson.js';
import { zipkinJsonSpans } from '../../../src/traces/formats/zipkinJson.js';
import { comparable, fixture, fixturePath } from './checkoutTrace.js';

describe('the checkout fixtures in every format', () => {
  it('give the same spans: ids, parents, services, kinds, times, shared attributes, errors', () => {
    const otlp = otlpJsonSpans(fixture('checkout.otlp.json'));
    const otlpLines = readFileSync(fixturePath('checkout.otlp.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .flatMap((line) => otlpJsonSpans(JSON.parse(line)));
    const jaeger = jaegerExportSpans(fixture('checkout.jaeger.json'));
    const zipkin = zipkinJsonSpans(fixture('checkout.zipkin.json'));
    const reference = comparable(otlp);
    expect(reference).toHaveLength(21);
    expect(new Set(reference.map((span) => span.spanId)).size).toBe(21);
    expect(comparable(otlpLines)).toEqual(reference);
    expect(comparable(jaeger)).toEqual(reference);
    expect(comparable(zipkin)).toEqual(reference);
  });

  it('hold three traces, two gold and one bronze, each one checkout with a retried cart call', () => {
    const spans = otlpJsonSpans(fixture('checkout.otlp.json'));
    const classes = new Map(spans.map((span) => [span.traceId, span.attributes['difftry.class']]));
    expect([...classes.values()].sort()).toEqual(['bronze', 'gold', 'gold']);
    for (const traceId of classes.keys()) {
      const trace = spans.filter((span) => span.traceId === traceId);
      const services = trace.map((span) => `${span.service}/${span.kind}`).sort();
      expect(services).toEqual([
        'cart/server',
        'cart/server',
        'frontend/client',
        'frontend/client',
        'frontend/client',
        'frontend/server',
        'payment/server',
      ]);
      const retries = trace.filter((span) => span.attributes['http.request.resend_count'] === 1);
      expect(retries.map((span) => span.attributes['peer.service'])).toEqual(['cart']);
    }
  });
});
