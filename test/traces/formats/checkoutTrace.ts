import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TraceSpan } from '../../../src/traces/TraceSpan.js';

/**
 * The fixtures in test/fixtures/traces/ (`checkout.otlp.json`, `checkout.otlp.jsonl`,
 * `checkout.jaeger.json`, `checkout.zipkin.json`) hold the same small system in each format:
 * three traces (gold, bronze, gold) of a `frontend` SERVER span that calls `cart`, which fails
 * with 503, `payment` in parallel, and `cart` again (the retry, `http.request.resend_count` 1).
 * In the third trace `payment` fails with 500. Times are whole microseconds, so every format
 * says them alike.
 */
export const FIXTURES = new URL('../../fixtures/traces/', import.meta.url);

/** A fixture's path. */
export function fixturePath(name: string): string {
  return new URL(name, FIXTURES).pathname;
}

/** A fixture file, parsed. */
export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(fixturePath(name), 'utf8'));
}

/** The first trace's id (gold; the OTLP/JSON document writes it in upper case). */
export const GOLD_TRACE = '5b8efff798038103d269b633813fc60c';

/** The attributes every format records alike; the others (`span.kind`, `error`, …) differ. */
export const SHARED_ATTRIBUTES = [
  'difftry.class',
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'http.request.resend_count',
  'peer.service',
] as const;

/** The first trace's spans as every format must read them, written out by hand. */
export const GOLD_SPANS: readonly TraceSpan[] = [
  {
    traceId: GOLD_TRACE,
    spanId: 'eee19b7ec3c1b174',
    service: 'frontend',
    kind: 'server',
    start: 1764950400.0001,
    end: 1764950400.0901,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'http.route': '/checkout',
      'http.response.status_code': 200,
    },
    error: false,
  },
  {
    traceId: GOLD_TRACE,
    spanId: 'b7ad6b7169203331',
    parentSpanId: 'eee19b7ec3c1b174',
    service: 'frontend',
    kind: 'client',
    start: 1764950400.001,
    end: 1764950400.021,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'peer.service': 'cart',
      'http.response.status_code': 503,
    },
    error: true,
  },
  {
    traceId: GOLD_TRACE,
    spanId: 'a1b2c3d4e5f60718',
    parentSpanId: 'b7ad6b7169203331',
    service: 'cart',
    kind: 'server',
    start: 1764950400.0015,
    end: 1764950400.02,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'http.route': '/cart',
      'http.response.status_code': 503,
    },
    error: true,
  },
  {
    traceId: GOLD_TRACE,
    spanId: 'f00dbabe12345678',
    parentSpanId: 'eee19b7ec3c1b174',
    service: 'frontend',
    kind: 'client',
    start: 1764950400.0012,
    end: 1764950400.0612,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'peer.service': 'payment',
      'http.response.status_code': 200,
    },
    error: false,
  },
  {
    traceId: GOLD_TRACE,
    spanId: '9a8b7c6d5e4f3a2b',
    parentSpanId: 'f00dbabe12345678',
    service: 'payment',
    kind: 'server',
    start: 1764950400.0017,
    end: 1764950400.0607,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'http.route': '/pay',
      'http.response.status_code': 200,
    },
    error: false,
  },
  {
    traceId: GOLD_TRACE,
    spanId: 'c0ffee0ddba11001',
    parentSpanId: 'eee19b7ec3c1b174',
    service: 'frontend',
    kind: 'client',
    start: 1764950400.031,
    end: 1764950400.046,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'peer.service': 'cart',
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    },
    error: false,
  },
  {
    traceId: GOLD_TRACE,
    spanId: 'd15ea5e0b0a710c2',
    parentSpanId: 'c0ffee0ddba11001',
    service: 'cart',
    kind: 'server',
    start: 1764950400.0314,
    end: 1764950400.0456,
    attributes: {
      'difftry.class': 'gold',
      'http.request.method': 'POST',
      'http.route': '/cart',
      'http.response.status_code': 200,
    },
    error: false,
  },
];

/** The spans of the third trace that record a failure: both cart calls' first try, and payment's. */
export const THIRD_TRACE_ERRORS = [
  '92a3b4c5d6e7f809',
  'a3b4c5d6e7f8091a',
  'd6e7f8091a2b3c4d',
  'e7f8091a2b3c4d5e',
];

/** A span with only the attributes every format shares, for comparing formats. */
export function sharedView(span: TraceSpan): TraceSpan {
  const attributes = Object.fromEntries(
    SHARED_ATTRIBUTES.filter((key) => key in span.attributes).map((key) => [
      key,
      span.attributes[key],
    ]),
  );
  return { ...span, attributes };
}

/** The spans sorted by span id, with only the shared attributes. */
export function comparable(spans: readonly TraceSpan[]): TraceSpan[] {
  return spans.map(sharedView).sort((a, b) => (a.spanId < b.spanId ? -1 : 1));
}

/**
 * Asserts that `spans` hold the first trace as {@link GOLD_SPANS} says, span by span: ids,
 * parents, services, kinds, times (exact: each is the double nearest its decimal), the shared
 * attributes and the error flags.
 */
export function expectGoldTrace(spans: readonly TraceSpan[]): void {
  const gold = comparable(spans.filter((span) => span.traceId === GOLD_TRACE));
  expect(gold).toEqual(comparable(GOLD_SPANS));
  for (const span of gold) {
    const expected = GOLD_SPANS.find((candidate) => candidate.spanId === span.spanId);
    // Durations to a microsecond's fraction: the doubles near 1.8e9 s are 0.24 µs apart.
    expect(span.end - span.start).toBeCloseTo((expected?.end ?? 0) - (expected?.start ?? 0), 6);
  }
}
