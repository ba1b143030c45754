import { readTraceSpans } from './readTraceFile.js';
import { SpanStore } from './SpanStore.js';
import { type ClassSource, DEFAULT_CLASS_SOURCE, spanReading } from './spanReading.js';
import type { TraceFormat } from './TraceSpan.js';

/** Options of {@link storeTraceFiles}. */
export interface StoreTraceFilesOptions {
  /** The files' format; default: found from each file's first value. */
  readonly format?: TraceFormat;
  /** Where a span's class is read from. */
  readonly classSource?: ClassSource;
  /** Called after each batch with the file being read and the spans read so far. */
  readonly onProgress?: (file: string, spans: number) => void;
}

/**
 * Reads trace files as streams into one {@link SpanStore}: batch by batch, keeping only what the
 * inference needs of each span, so a file of any size is never held whole.
 *
 * @throws {TraceFileError} naming the file and the reason, on the first file that cannot be read.
 */
export async function storeTraceFiles(
  paths: readonly string[],
  options: StoreTraceFilesOptions = {},
): Promise<SpanStore> {
  const store = new SpanStore();
  const source = options.classSource ?? DEFAULT_CLASS_SOURCE;
  for (const path of paths) {
    const reading =
      options.format === undefined
        ? readTraceSpans(path)
        : readTraceSpans(path, { format: options.format });
    for await (const batch of reading) {
      for (const span of batch) store.add(span, spanReading(span, source));
      options.onProgress?.(path, store.spanCount);
    }
  }
  return store;
}
