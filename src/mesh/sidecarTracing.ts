import type * as Api from '@opentelemetry/api';
import type { BufferConfig, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { otlpTracesUrl, type TelemetryConfig } from '../config/telemetrySchema.js';
import { loadApi, registeredOtel, type TelemetryProviders } from '../runtime/telemetry/otel.js';

/** The tracer a sidecar records its server spans with, and what its interceptors are given. */
export interface SidecarTracing {
  readonly api: typeof Api;
  readonly tracer: Api.Tracer;
  /** For the outbound interceptors (`telemetry` of the runtime's adapters). */
  readonly providers: TelemetryProviders;
  /** Exports what is left and stops (nothing for providers the host gave). */
  shutdown(): Promise<void>;
}

/**
 * The sidecar's tracing from its `telemetry` config: a tracer provider of its own (not
 * registered globally, so several sidecars in one process keep their own `service.name`),
 * whose spans go in batches to the OTLP/HTTP endpoint as protobuf with the official exporter.
 * The SDK is loaded only here, when a config asks for it. The process-wide context manager
 * (AsyncLocalStorage) and W3C trace-context propagator are registered if none is, since the
 * runtime carries each attempt's context through them.
 */
export async function startSidecarTracing(
  config: TelemetryConfig,
  service: string,
): Promise<SidecarTracing> {
  requireApi();
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  const exporter = new OTLPTraceExporter({
    url: otlpTracesUrl(config.otlp.endpoint),
    ...(config.otlp.headers === undefined ? {} : { headers: config.otlp.headers }),
  });
  return serviceTracing(config.serviceName ?? service, exporter);
}

/**
 * Tracing with a tracer provider of its own (not registered globally): `service.name` `service`,
 * its spans going in batches (`batch`, else the SDK's defaults) to `exporter`. The SDK is loaded
 * only here, when asked for. Shutting it down exports what is left.
 */
export async function serviceTracing(
  service: string,
  exporter: SpanExporter,
  batch?: BufferConfig,
): Promise<SidecarTracing> {
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor(exporter, batch)],
  });
  const tracing = await hostSidecarTracing({ tracerProvider: provider });
  return { ...tracing, shutdown: () => provider.shutdown() };
}

/** The sidecar's tracing with providers the host gives (the testbed, an application's own). */
export async function hostSidecarTracing(providers: TelemetryProviders): Promise<SidecarTracing> {
  const api = requireApi();
  await registerContextAndPropagation(api);
  const tracerProvider = (providers.tracerProvider ?? api.trace) as Api.TracerProvider;
  return {
    api,
    tracer: tracerProvider.getTracer('difftry'),
    providers,
    shutdown: async () => {},
  };
}

function requireApi(): typeof Api {
  const api = loadApi();
  if (api === null) {
    throw new Error('difftry: telemetry needs @opentelemetry/api, which is not installed');
  }
  return api;
}

async function registerContextAndPropagation(api: typeof Api): Promise<void> {
  const registered = registeredOtel();
  if (registered?.context === undefined) {
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  if (registered?.propagation === undefined) {
    const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
}
