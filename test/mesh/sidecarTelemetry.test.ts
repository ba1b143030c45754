import { context, propagation } from '@opentelemetry/api';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import { inferNetwork } from '../../src/traces/infer/inferNetwork.js';
import { SpanStore } from '../../src/traces/SpanStore.js';
import { DEFAULT_CLASS_SOURCE, spanReading } from '../../src/traces/spanReading.js';
import type { SpanKind, TraceSpan } from '../../src/traces/TraceSpan.js';
import { reply } from '../runtime/loopback.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlpReceiver.js';
import {
  app,
  closeAll,
  REQUEST_TIMEOUT_MS,
  send,
  sidecar,
  TEST_TIMEOUT_MS,
} from './sidecarFixtures.js';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await closeAll();
  await receiver?.close();
  receiver = undefined;
  context.disable();
  propagation.disable();
});

const KINDS: Record<number, SpanKind> = { 1: 'internal', 2: 'server', 3: 'client' };

/** A received span as `difftry from-traces` reads one. */
function asTraceSpan(span: ReceivedSpan): TraceSpan {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === '' ? {} : { parentSpanId: span.parentSpanId }),
    service: span.service,
    kind: KINDS[span.kind] ?? 'internal',
    start: Number(span.startNanos) / 1e9,
    end: Number(span.endNanos) / 1e9,
    attributes: span.attributes,
    error: span.status === 2,
  };
}

describe('sidecar telemetry: spans exported over OTLP/HTTP protobuf', () => {
  it(
    'records server spans and attempt spans, linked through traceparent, for from-traces',
    async () => {
      receiver = await startOtlpReceiver();
      const telemetry = { otlp: { endpoint: receiver.endpoint } };
      // cart's application refuses its first request with 503, then answers.
      const cartApp = await app((_req, res, index) => reply(res, index === 0 ? 503 : 200, 'ok'));
      const cart = await sidecar({
        service: 'cart',
        inbound: { listen: '127.0.0.1:0', app: cartApp.origin, concurrency: 1, capacity: 10 },
        telemetry,
      });
      // frontend's application calls cart through its sidecar, passing its trace context on
      // (what an instrumented application does).
      let frontendOut = '';
      const frontendApp = await app((req, res) => {
        const traceparent = req.headers.traceparent;
        request(`${frontendOut}/cart/items`, {
          headers: traceparent === undefined ? {} : { traceparent: String(traceparent) },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        }).then(
          async (answer) => {
            await answer.body.text();
            reply(res, answer.statusCode, 'done');
          },
          () => reply(res, 502, 'failed'),
        );
      });
      const frontend = await sidecar({
        service: 'frontend',
        inbound: { listen: '127.0.0.1:0', app: frontendApp.origin, concurrency: 1, capacity: 10 },
        outbound: {
          listen: '127.0.0.1:0',
          upstreams: [{ name: 'cart', url: cart.inboundUrl as string, prefix: '/cart' }],
        },
        telemetry,
      });
      frontendOut = frontend.outboundUrl as string;

      for (let i = 0; i < 3; i++) {
        const answer = await send(`${frontend.inboundUrl}/checkout`);
        expect(answer.status).toBe(200);
      }
      // Closing flushes the batches to the receiver.
      await closeAll();

      expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
      const spans = receiver.spans;
      const of = (service: string, kind: number) =>
        spans.filter((s) => s.service === service && s.kind === kind);
      const frontendServer = of('frontend', 2);
      const attempts = of('frontend', 3);
      const cartServer = of('cart', 2);
      expect(frontendServer).toHaveLength(3);
      // The first call to cart was refused once and retried: 4 attempts, 4 requests at cart.
      expect(attempts).toHaveLength(4);
      expect(cartServer).toHaveLength(4);
      expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([
        undefined,
        1,
        undefined,
        undefined,
      ]);
      expect(attempts[0]?.events).toEqual(['difftry.retry']);
      expect(frontendServer[0]?.attributes).toMatchObject({
        'http.request.method': 'GET',
        'url.path': '/checkout',
        'difftry.class': 'low',
        'http.response.status_code': 200,
      });
      // Each attempt is a child of its request's server span; each cart span of its attempt.
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      for (const attempt of attempts) {
        expect(byId.get(attempt.parentSpanId)?.service).toBe('frontend');
        expect(byId.get(attempt.parentSpanId)?.kind).toBe(2);
      }
      expect(cartServer.map((s) => byId.get(s.parentSpanId)?.spanId).sort()).toEqual(
        attempts.map((s) => s.spanId).sort(),
      );
      expect(cartServer.map((s) => s.attributes['http.response.status_code']).sort()).toEqual([
        200, 200, 200, 503,
      ]);

      // What from-traces makes of them: frontend calls cart once a request, with a retry seen.
      const store = new SpanStore();
      for (const span of spans.map(asTraceSpan)) {
        store.add(span, spanReading(span, DEFAULT_CLASS_SOURCE));
      }
      const { network, evidence } = inferNetwork(store);
      expect(network.services.map((s) => s.name)).toEqual(['frontend', 'cart']);
      expect(network.services[0]?.calls).toEqual([{ to: 'cart' }]);
      expect(evidence.hops).toEqual([
        {
          callee: 'cart',
          className: 'low',
          calls: 3,
          attempts: 4,
          failedAttempts: 1,
          maxRetries: 1,
        },
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it('refuses a telemetry section it cannot use, naming the field', () => {
    const bad = (telemetry: unknown) => () =>
      parseSidecarConfig(
        JSON.stringify({
          service: 'a',
          classes: [{ name: 'c', retries: 1 }],
          inbound: { listen: '127.0.0.1:0', app: 'http://127.0.0.1:1', capacity: 1 },
          telemetry,
        }),
        'sidecar.json',
      );
    expect(bad({ otlp: { endpoint: 'collector:4318' } })).toThrow(/telemetry\.otlp\.endpoint/);
    expect(bad({ otlp: { endpoint: 'http://c:4318', protocol: 'grpc' } })).toThrow(
      /telemetry\.otlp\.protocol: .*http\/protobuf/,
    );
    expect(bad({ zipkin: {} })).toThrow(/telemetry/);
  });
});
