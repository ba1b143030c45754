import { type SidecarTracing, serviceTracing } from '../../mesh/sidecarTracing.js';
import { OtlpJsonLinesFile } from './OtlpJsonLinesExporter.js';

/**
 * The testbed's tracing: one tracer provider per service (its `service.name`), each exporting its
 * spans in batches to one OTLP/JSON-lines file — the services' server spans, and the attempts
 * the runtime's adapters and the sidecars record (docs/traces.md, "The loop closed").
 */
export class TestbedTracing {
  readonly #file: OtlpJsonLinesFile;
  /** Each service's, made once (a promise: two calls at once share one provider). */
  readonly #tracings = new Map<string, Promise<SidecarTracing>>();

  private constructor(file: OtlpJsonLinesFile) {
    this.#file = file;
  }

  /** Tracing into `path` (created or emptied). */
  static open(path: string): TestbedTracing {
    return new TestbedTracing(new OtlpJsonLinesFile(path));
  }

  /** The tracing of `service`: its own provider, the process's context manager and propagator. */
  of(service: string): Promise<SidecarTracing> {
    let tracing = this.#tracings.get(service);
    if (tracing === undefined) {
      tracing = serviceTracing(service, this.#file.exporter(), {
        maxQueueSize: 65_536,
        maxExportBatchSize: 1024,
        scheduledDelayMillis: 1000,
      });
      this.#tracings.set(service, tracing);
      // One that failed is not kept: the caller has the error, and close() shuts down the rest.
      tracing.catch(() => this.#tracings.delete(service));
    }
    return tracing;
  }

  /** Exports every span still held and closes the file; returns the lines written. */
  async close(): Promise<number> {
    await Promise.all(
      [...this.#tracings.values()].map(async (tracing) => (await tracing).shutdown()),
    );
    await this.#file.close();
    return this.#file.lines;
  }
}
