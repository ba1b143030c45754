import * as grpc from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { difftryFetch } from '../../../src/runtime/fetch.js';
import { difftryGrpcInterceptor, retryPolicy } from '../../../src/runtime/grpc.js';
import { difftryInterceptor } from '../../../src/runtime/undici.js';
import { jsonMethod } from '../grpcJsonMethod.js';
import { type LoopbackServer, reply, startServer } from '../loopback.js';
import { type RegisteredOtel, registerOtel } from './otelHarness.js';

const CLASSES = {
  classes: { gold: { retries: 2 } },
  backoff: { kind: 'constant', delayMs: 1 },
} as const;

/** W3C traceparent: version-traceid-spanid-flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

let otel: RegisteredOtel | undefined;
let server: LoopbackServer | undefined;
afterEach(async () => {
  await otel?.close();
  await server?.close();
  otel = undefined;
  server = undefined;
});

/** The server answers 503 to the first request, then 200. */
async function flakyServer(): Promise<LoopbackServer> {
  return startServer((_req, res, index) => reply(res, index === 0 ? 503 : 200, 'ok'));
}

/**
 * Checks the attempt spans of an HTTP call that failed once with 503 and then succeeded, and
 * that each request carried its own attempt's context as `traceparent`.
 */
function expectHttpAttempts(spans: ReadableSpan[], received: LoopbackServer): void {
  const attempts = spans.filter((s) => s.name === 'GET');
  expect(attempts).toHaveLength(2);
  const port = Number(new URL(received.url).port);
  for (const span of attempts) {
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': port,
      'difftry.class': 'gold',
    });
    expect(String(span.attributes['url.full'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/items$/);
  }
  expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 200]);
  expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
  expect(attempts.map((s) => s.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
  expect(attempts[0]?.events.map((e) => e.name)).toEqual(['difftry.retry']);
  // Each request names its own attempt's span as the parent the server should use.
  const sent = received.requests.map((r) => TRACEPARENT.exec(String(r.headers.traceparent)));
  expect(sent.map((m) => m?.[2])).toEqual(attempts.map((s) => s.spanContext().spanId));
  expect(sent.map((m) => m?.[1])).toEqual(attempts.map((s) => s.spanContext().traceId));
}

describe('the adapters with an OpenTelemetry SDK registered', () => {
  it('difftryFetch: a client span per attempt, HTTP conventions, traceparent per attempt', async () => {
    otel = registerOtel();
    server = await flakyServer();
    const fetchWithRetries = difftryFetch({ ...CLASSES, defaultClass: 'gold' });
    const response = await fetchWithRetries(`${server.url}/items`);
    expect(response.status).toBe(200);
    await response.text();
    expectHttpAttempts(otel.spans(), server);
  });

  it('difftryInterceptor: the same through undici', async () => {
    otel = registerOtel();
    server = await flakyServer();
    const agent = new Agent().compose(difftryInterceptor({ ...CLASSES, defaultClass: 'gold' }));
    try {
      const { statusCode, body } = await request(`${server.url}/items`, { dispatcher: agent });
      expect(statusCode).toBe(200);
      await body.text();
    } finally {
      await agent.close();
    }
    expectHttpAttempts(otel.spans(), server);
  });

  it('the gRPC interceptor: RPC conventions, the status code, traceparent in metadata', async () => {
    otel = registerOtel();
    const seen: string[] = [];
    let calls = 0;
    const grpcServer = new grpc.Server();
    const definition = {
      call: jsonMethod('/difftry.test.Echo/Call'),
    } satisfies grpc.ServiceDefinition;
    grpcServer.addService(definition, {
      call(call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
        seen.push(String(call.metadata.get('traceparent')[0]));
        if (calls++ === 0) callback({ code: grpc.status.UNAVAILABLE, details: 'busy' });
        else callback(null, { ok: true });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    const Client = grpc.makeGenericClientConstructor(definition, 'Echo');
    const policy = retryPolicy({ ...CLASSES, defaultClass: 'gold' });
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      interceptors: [difftryGrpcInterceptor({ policy })],
    });
    try {
      await new Promise((resolve, reject) =>
        client.call({}, (error: unknown, value: unknown) =>
          error ? reject(error) : resolve(value),
        ),
      );
    } finally {
      client.close();
      grpcServer.forceShutdown();
    }
    const attempts = otel.spans().filter((s) => s.name === 'difftry.test.Echo/Call');
    expect(attempts).toHaveLength(2);
    for (const span of attempts) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.attributes).toMatchObject({
        'rpc.system': 'grpc',
        'rpc.service': 'difftry.test.Echo',
        'rpc.method': 'Call',
        'difftry.class': 'gold',
        'server.address': '127.0.0.1',
        'server.port': port,
      });
    }
    expect(attempts.map((s) => s.attributes['rpc.grpc.status_code'])).toEqual([14, undefined]);
    expect(attempts.map((s) => s.attributes['error.type'])).toEqual(['UNAVAILABLE', undefined]);
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(seen.map((t) => TRACEPARENT.exec(t)?.[2])).toEqual(
      attempts.map((s) => s.spanContext().spanId),
    );
  });
});

describe('the adapters with providers of their own', () => {
  it('record into the given tracer provider, under its service.name, and nothing globally', async () => {
    otel = registerOtel();
    server = await flakyServer();
    const exporter = new InMemorySpanExporter();
    const own = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'checkout' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const fetchWithRetries = difftryFetch({
      ...CLASSES,
      defaultClass: 'gold',
      telemetry: { tracerProvider: own },
    });
    const response = await fetchWithRetries(`${server.url}/items`);
    await response.text();
    const spans = exporter.getFinishedSpans();
    await own.shutdown();
    expect(spans.map((s) => s.name)).toEqual(['GET', 'GET']);
    expect(spans.every((s) => s.resource.attributes['service.name'] === 'checkout')).toBe(true);
    expect(otel.spans()).toEqual([]);
  });

  it('record nothing with telemetry: false, whatever is registered', async () => {
    otel = registerOtel();
    server = await flakyServer();
    const fetchWithRetries = difftryFetch({ ...CLASSES, defaultClass: 'gold', telemetry: false });
    await (await fetchWithRetries(`${server.url}/items`)).text();
    expect(otel.spans()).toEqual([]);
    expect(server.requests.map((r) => r.headers.traceparent)).toEqual([undefined, undefined]);
  });
});
