import type * as Api from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { hostSidecarTracing, type SidecarTracing } from '../../mesh/sidecarTracing.js';
import { OtlpJsonLinesFile } from './OtlpJsonLinesExporter.js';

/**
 * The testbed's tracing: one tracer provider per service (its `service.name`), each exporting its
 * spans in batches to one OTLP/JSON-lines file — the services' server spans, and the attempts
 * the runtime's adapters and the sidecars record (docs/traces.md, "The loop closed").
 */
export class TestbedTracing {
  readonly #file: OtlpJsonLinesFile;
  readonly #providers = new Map<string, NodeTracerProvider>();
  readonly #tracings = new Map<string, SidecarTracing>();

  private constructor(file: OtlpJsonLinesFile) {
    this.#file = file;
  }

  /** Tracing into `path` (created or emptied). */
  static open(path: string): TestbedTracing {
    return new TestbedTracing(new OtlpJsonLinesFile(path));
  }

  get path(): string {
    return this.#file.path;
  }

  /** The tracing of `service`: its own provider, the process's context manager and propagator. */
  async of(service: string): Promise<SidecarTracing> {
    const known = this.#tracings.get(service);
    if (known !== undefined) return known;
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      spanProcessors: [
        new BatchSpanProcessor(this.#file.exporter(), {
          maxQueueSize: 65_536,
          maxExportBatchSize: 1024,
          scheduledDelayMillis: 1000,
        }),
      ],
    });
    this.#providers.set(service, provider);
    const tracing = await hostSidecarTracing({ tracerProvider: provider as Api.TracerProvider });
    this.#tracings.set(service, tracing);
    return tracing;
  }

  /** Exports every span still held and closes the file; returns the lines written. */
  async close(): Promise<number> {
    await Promise.all([...this.#providers.values()].map((provider) => provider.shutdown()));
    await this.#file.close();
    return this.#file.lines;
  }
}
