import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { retryPolicy } from '../../../src/policy/retry/RetryPolicy.js';
import { retry } from '../../../src/runtime/retry.js';
import { RETRY_METRICS } from '../../../src/runtime/telemetry/retryMeters.js';
import { type RegisteredOtel, registerOtel } from './otelHarness.js';

const policy = retryPolicy({
  classes: { gold: { retries: 3 }, bronze: { retries: 1 } },
  defaultClass: 'bronze',
  backoff: { kind: 'constant', delayMs: 1 },
});

/** A call that answers `statuses` in turn (200: success), as `classify` sees them. */
function answering(statuses: readonly number[]) {
  let i = 0;
  return {
    fn: async () => statuses[i++] ?? 200,
    classify: (status: number) =>
      status === 200 ? ({ kind: 'success' } as const) : ({ kind: 'status', status } as const),
  };
}

let otel: RegisteredOtel | undefined;
afterEach(async () => {
  await otel?.close();
  otel = undefined;
});

describe('retry() with an OpenTelemetry SDK registered', () => {
  it('makes a span per attempt, a child of the active span, with the decision as an event', async () => {
    otel = registerOtel();
    const { fn, classify } = answering([503, 503, 200]);
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('handler', async (parent) => {
      await retry(fn, { policy, className: 'gold', classify });
      parent.end();
    });
    const spans = otel.spans();
    const handler = spans.find((s) => s.name === 'handler');
    const attempts = spans.filter((s) => s.name === 'retry.attempt');
    expect(attempts).toHaveLength(3);
    for (const span of attempts) {
      expect(span.parentSpanContext?.spanId).toBe(handler?.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(handler?.spanContext().traceId);
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.attributes['difftry.class']).toBe('gold');
    }
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([
      undefined,
      1,
      2,
    ]);
    expect(attempts.map((s) => s.attributes['error.type'])).toEqual(['503', '503', undefined]);
    expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([
      503,
      503,
      undefined,
    ]);
    expect(attempts.map((s) => s.status.code)).toEqual([
      SpanStatusCode.ERROR,
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
    expect(attempts.map((s) => s.events.map((e) => e.name))).toEqual([
      ['difftry.retry'],
      ['difftry.retry'],
      [],
    ]);
    expect(attempts[0]?.events[0]?.attributes).toEqual({
      'difftry.retry.delay_ms': 1,
      'difftry.retry.from_server': false,
    });
  });

  it('says why a call gave up, and counts attempts, retries and give-ups by class', async () => {
    otel = registerOtel();
    const gold = answering([503, 503, 200]);
    await retry(gold.fn, { policy, className: 'gold', classify: gold.classify });
    const bronze = answering([503, 503, 503]);
    await retry(bronze.fn, { policy, className: 'bronze', classify: bronze.classify });
    const last = otel.spans().at(-1);
    expect(last?.attributes['difftry.class']).toBe('bronze');
    expect(last?.events.map((e) => [e.name, e.attributes])).toEqual([
      ['difftry.give_up', { 'difftry.give_up.reason': 'limit' }],
    ]);
    const counters = await otel.counters();
    const key = (attributes: Record<string, string>) => JSON.stringify(attributes);
    expect(counters.get(RETRY_METRICS.attempts)).toEqual(
      new Map([
        [key({ 'difftry.class': 'gold', 'difftry.outcome': 'status' }), 2],
        [key({ 'difftry.class': 'gold', 'difftry.outcome': 'success' }), 1],
        [key({ 'difftry.class': 'bronze', 'difftry.outcome': 'status' }), 2],
      ]),
    );
    expect(counters.get(RETRY_METRICS.retries)).toEqual(
      new Map([
        [key({ 'difftry.class': 'gold' }), 2],
        [key({ 'difftry.class': 'bronze' }), 1],
      ]),
    );
    expect(counters.get(RETRY_METRICS.giveUps)).toEqual(
      new Map([[key({ 'difftry.class': 'bronze', 'difftry.give_up.reason': 'limit' }), 1]]),
    );
  });

  it('records nothing for a call with telemetry: false, nor without an SDK', async () => {
    otel = registerOtel();
    const call = answering([503, 200]);
    await retry(call.fn, { policy, classify: call.classify, telemetry: false });
    expect(otel.spans()).toEqual([]);
    expect((await otel.counters()).size).toBe(0);
    await otel.close();
    otel = undefined;
    const again = answering([503, 200]);
    await expect(retry(again.fn, { policy, classify: again.classify })).resolves.toBe(200);
  });
});
