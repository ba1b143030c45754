import { context, metrics, propagation, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type CollectionResult,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** A reader the test collects from on demand. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The official SDK, registered globally as an application would, with in-memory outputs. */
export interface RegisteredOtel {
  /** Ended spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** Each counter's points: attributes as JSON → value. */
  counters(): Promise<Map<string, Map<string, number>>>;
  close(): Promise<void>;
}

export function registerOtel(): RegisteredOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  tracerProvider.register();
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    async counters() {
      const { resourceMetrics }: CollectionResult = await reader.collect();
      const out = new Map<string, Map<string, number>>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          const points = new Map<string, number>();
          for (const point of metric.dataPoints) {
            points.set(JSON.stringify(point.attributes), point.value as number);
          }
          out.set(metric.descriptor.name, points);
        }
      }
      return out;
    },
    async close() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
      propagation.disable();
    },
  };
}
