import { createWriteStream, type WriteStream } from 'node:fs';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * A file of OTLP/JSON lines, as the OpenTelemetry collector's file exporter writes one: each
 * export is one `ExportTraceServiceRequest` as JSON on a line of its own. Several exporters (one
 * per service's tracer provider) may share it; each line is written whole.
 */
export class OtlpJsonLinesFile {
  readonly #stream: WriteStream;
  #lines = 0;

  constructor(readonly path: string) {
    this.#stream = createWriteStream(path, { flags: 'w' });
  }

  /** Lines written so far. */
  get lines(): number {
    return this.#lines;
  }

  /** An exporter writing to this file. */
  exporter(): SpanExporter {
    return new OtlpJsonLinesExporter(this);
  }

  write(spans: ReadableSpan[]): void {
    const bytes = JsonTraceSerializer.serializeRequest(spans);
    if (bytes === undefined) return;
    this.#stream.write(bytes);
    this.#stream.write('\n');
    this.#lines++;
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
  }
}

/** The exporter of one tracer provider into an {@link OtlpJsonLinesFile}. */
class OtlpJsonLinesExporter implements SpanExporter {
  constructor(private readonly file: OtlpJsonLinesFile) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      this.file.write(spans);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }

  async shutdown(): Promise<void> {}
}
