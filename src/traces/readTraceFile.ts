import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { detectTraceFormat, TRACE_FORMAT_NAMES } from './detectTraceFormat.js';
import { jaegerExportSpans, jaegerJsonSpans } from './formats/jaegerJson.js';
import { otlpJsonSpans, otlpResourceSpans } from './formats/otlpJson.js';
import { zipkinJsonSpans, zipkinSpan } from './formats/zipkinJson.js';
import { TraceFileError } from './TraceFileError.js';
import type { TraceFormat, TraceSpan } from './TraceSpan.js';

/** Options of {@link readTraceSpans}. */
export interface ReadTraceSpansOptions {
  /** The file's format; detected from its first JSON value when not given. */
  readonly format?: TraceFormat;
}

/**
 * About how many spans a yielded batch holds (one line's or one element's spans are not split).
 * Small, so a batch's span objects die young: a batch of 4096 outlived enough of the parser's
 * garbage to be promoted to the old generation, where it piled up between full collections. On
 * 1 GiB of OTLP/JSON lines (2 M spans, scripts/traces-memory.ts), reading alone peaked at
 * 804 MiB RSS with 4096 and 433–444 MiB with 256; the whole command at 1,345–1,363 MiB in 5 runs
 * with 4096, and with 256 at 947–967 MiB in 5 runs of 7 (1,327–1,358 MiB in 2, on a busy machine).
 */
const BATCH_SPANS = 256;

/**
 * The longest first line read whole to decide between JSON lines and one document. A longer first
 * line is read as a stream of JSON documents, which also takes a JSON-lines file with huge lines.
 */
const PEEK_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** How the file's text is read: one JSON value a line, or JSON documents streamed element-wise. */
type Layout = 'lines' | 'document' | 'empty';

/**
 * Reads the spans of a trace file, a batch at a time, streaming it: the file is never held whole,
 * only one line (JSON lines) or one element of its top-level array (one document) at a time.
 *
 * The file is OTLP/JSON (an `ExportTraceServiceRequest`), Jaeger JSON (`{ data: [trace, …] }`
 * or one trace) or Zipkin v2 JSON (an array of spans), in one of two layouts:
 * - **JSON lines**, one value a line, as the OpenTelemetry collector's file exporter writes
 *   OTLP/JSON, read with `node:readline`;
 * - **one document**, however it is spread over lines, streamed with `@streamparser/json` one
 *   `resourceSpans` element, `data` trace or Zipkin span at a time (several documents one after
 *   another are read in turn).
 *
 * The layout is decided from the start of the file: when its first non-blank line alone parses as
 * a JSON value, the file is JSON lines (a file of one line included); otherwise, when that line
 * is not JSON by itself or is longer than 16 MiB, it is one document. A name ending in `.gz` is
 * gunzipped on the way. Without `format`, the format is detected from the first value
 * ({@link detectTraceFormat}); with one, a file of another format is refused.
 *
 * Times given as JSON numbers rather than OTLP's decimal strings are only as exact as a double
 * (about 0.25 µs in 2025, in nanoseconds since the epoch).
 * @throws {TraceFileError} one line naming the file and the reason: `traces.jsonl: line 7:
 *   malformed JSON (…)`, `traces.json: malformed JSON (…)`, `x.json: cannot read (ENOENT: …)`,
 *   `x.json: not a trace file: expected OTLP/JSON, Jaeger JSON or Zipkin v2 JSON`,
 *   `x.json: expected OTLP/JSON, found Jaeger JSON`, `x.json: no spans`, or a span's own
 *   problem (`x.json: line 3: resourceSpans[0]: span 2 of trace 4bf9…: no spanId`).
 * @example
 * ```ts
 * for await (const batch of readTraceSpans('traces.jsonl')) {
 *   for (const span of batch) count(span);
 * }
 * ```
 */
export async function* readTraceSpans(
  path: string,
  options: Readonly<ReadTraceSpansOptions> = {},
): AsyncGenerator<readonly TraceSpan[]> {
  const source = openSource(path);
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    const { layout, peeked } = await peekLayout(chunks, path);
    const text = replay(peeked, chunks, path);
    let spanCount = 0;
    if (layout !== 'empty') {
      const batches =
        layout === 'lines'
          ? jsonLinesSpans(text, path, options.format)
          : documentSpans(text, path, options.format);
      for await (const batch of batches) {
        spanCount += batch.length;
        yield batch;
      }
    }
    if (spanCount === 0) throw new TraceFileError(`${path}: no spans`);
  } finally {
    source.destroy();
  }
}

/**
 * Every span of a trace file, in one array: {@link readTraceSpans} collected, for small files and
 * tests.
 * @throws {TraceFileError} as {@link readTraceSpans}.
 */
export async function readTraceFileSpans(
  path: string,
  options: Readonly<ReadTraceSpansOptions> = {},
): Promise<TraceSpan[]> {
  const spans: TraceSpan[] = [];
  // A loop, not push(...batch): one line's spans (never split) may be more than a call's arguments.
  for await (const batch of readTraceSpans(path, options))
    for (const span of batch) spans.push(span);
  return spans;
}

function openSource(path: string): Readable {
  const file = createReadStream(path);
  if (!path.endsWith('.gz')) return file;
  // pipeline hands a read error on to the gunzip stream, so the reader sees either.
  return pipeline(file, createGunzip(), () => {});
}

async function nextChunk(chunks: AsyncIterator<Buffer>, path: string): Promise<Buffer | undefined> {
  try {
    const next = await chunks.next();
    return next.done ? undefined : next.value;
  } catch (error) {
    throw new TraceFileError(`${path}: cannot read (${systemReason(error)})`, { cause: error });
  }
}

function systemReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  // fs messages start with their code (`ENOENT: no such file…`); zlib's do not.
  return typeof code === 'string' && !error.message.startsWith(code)
    ? `${code}: ${error.message}`
    : error.message;
}

/** The peeked bytes, then the rest of the file. */
async function* replay(
  peeked: readonly Buffer[],
  chunks: AsyncIterator<Buffer>,
  path: string,
): AsyncGenerator<Buffer> {
  yield* peeked;
  for (;;) {
    const chunk = await nextChunk(chunks, path);
    if (chunk === undefined) return;
    yield chunk;
  }
}

/**
 * Reads the start of the file, as far as it takes to decide its layout: its first non-blank line
 * and whether anything but whitespace follows it. Returns what it read, to be replayed.
 */
async function peekLayout(
  chunks: AsyncIterator<Buffer>,
  path: string,
): Promise<{ layout: Layout; peeked: Buffer[] }> {
  const peeked: Buffer[] = [];
  let size = 0;
  let lineStart = 0; // where the line being scanned starts, in bytes from the start
  let contentStart = -1; // its first byte that is not whitespace, or -1
  let firstLineEnd = -1; // where the first non-blank line ends, once found
  let more = false; // whether something but whitespace follows that line
  for (;;) {
    let chunk = await nextChunk(chunks, path);
    if (chunk === undefined) break;
    if (size === 0 && chunk.subarray(0, 3).equals(UTF8_BOM)) chunk = chunk.subarray(3);
    peeked.push(chunk);
    for (let index = 0; index < chunk.length && !more; index += 1) {
      const byte = chunk[index] as number;
      if (firstLineEnd >= 0) {
        more = !isWhitespace(byte);
      } else if (byte === NEWLINE) {
        if (contentStart >= 0) firstLineEnd = size + index;
        else lineStart = size + index + 1;
      } else if (contentStart < 0 && !isWhitespace(byte)) {
        contentStart = size + index;
      }
    }
    size += chunk.length;
    if (more) break;
    if (firstLineEnd < 0 && size - lineStart > PEEK_LINE_BYTES) {
      return { layout: 'document', peeked };
    }
  }
  if (contentStart < 0) return { layout: 'empty', peeked };
  const firstLine = Buffer.concat(peeked, size)
    .subarray(contentStart, firstLineEnd >= 0 ? firstLineEnd : size)
    .toString('utf8');
  // A file of one line is JSON lines, so a malformed one is reported with its line number.
  return { layout: !more || parses(firstLine) ? 'lines' : 'document', peeked };
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Yields the spans of a JSON-lines file, line by line, in batches. */
async function* jsonLinesSpans(
  text: AsyncIterable<Buffer>,
  path: string,
  format: TraceFormat | undefined,
): AsyncGenerator<TraceSpan[]> {
  const input = Readable.from(text);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineFormat: TraceFormat | undefined;
  let batch: TraceSpan[] = [];
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (line.trim() === '') continue;
      const where = `${path}: line ${lineNumber}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new TraceFileError(`${where}: malformed JSON (${(error as Error).message})`, {
          cause: error,
        });
      }
      lineFormat ??= formatOf(value, format, path);
      const valueFormat = lineFormat;
      for (const span of convert(where, () => valueSpans(valueFormat, value))) batch.push(span);
      if (batch.length >= BATCH_SPANS) {
        yield batch;
        batch = [];
      }
    }
  } finally {
    lines.close();
    input.destroy();
  }
  if (batch.length > 0) yield batch;
}

/** The spans of one whole JSON value (a line) of a file of `format`. */
function valueSpans(format: TraceFormat, value: unknown): TraceSpan[] {
  switch (format) {
    case 'otlp-json':
      return otlpJsonSpans(value);
    case 'jaeger-json':
      return jaegerExportSpans(value);
    case 'zipkin-json':
      return Array.isArray(value) ? zipkinJsonSpans(value) : present(zipkinSpan(value));
  }
}

/**
 * The format of a file from its first value: the detected one, checked against `expected` when
 * given. A value that looks like no format is read as `expected`, whose converter then says
 * what is wrong with it.
 */
function formatOf(value: unknown, expected: TraceFormat | undefined, path: string): TraceFormat {
  const detected = detectTraceFormat(value);
  if (expected !== undefined) {
    if (detected !== undefined && detected !== expected) throw mismatch(path, expected, detected);
    return expected;
  }
  if (detected === undefined) throw notATraceFile(path);
  return detected;
}

function mismatch(path: string, expected: TraceFormat, found: TraceFormat): TraceFileError {
  return new TraceFileError(
    `${path}: expected ${TRACE_FORMAT_NAMES[expected]}, found ${TRACE_FORMAT_NAMES[found]}`,
  );
}

function notATraceFile(path: string): TraceFileError {
  return new TraceFileError(
    `${path}: not a trace file: expected OTLP/JSON, Jaeger JSON or Zipkin v2 JSON`,
  );
}

/** Runs a converter, naming the place (`file: line 3`, `file`) in front of its error. */
function convert(where: string, spansOf: () => TraceSpan[]): TraceSpan[] {
  try {
    return spansOf();
  } catch (error) {
    if (!(error instanceof TraceFileError)) throw error;
    throw new TraceFileError(`${where}: ${error.message}`, { cause: error });
  }
}

/**
 * A value the document parser found: an element of a top-level `resourceSpans` or `data` array
 * or of a top-level array, or a whole bare Jaeger trace (`{ traceID, spans, processes }`).
 */
interface FoundValue {
  readonly container: 'resourceSpans' | 'data' | 'array' | 'trace';
  /** The element's index in its array. */
  readonly index: number;
  readonly value: unknown;
}

/** The paths a document parser emits, by the kind of its top-level value. */
const OBJECT_PATHS = ['$.resourceSpans.*', '$.data.*', '$.traceID', '$.spans', '$.processes'];
const ARRAY_PATHS = ['$.*'];

/**
 * One top-level JSON document being parsed: its own token parser, which emits each element of
 * the top-level array or of `resourceSpans`/`data` and then drops it (`keepStack: false`), so
 * only one element is held at a time.
 */
class DocumentInProgress {
  readonly parser: TokenParser;
  /** A bare Jaeger trace's fields, kept until the document ends. */
  private readonly traceFields: Record<string, unknown> = {};
  /** The names of the top-level keys seen that hold arrays of elements. */
  private readonly containers = new Set<string>();
  private depth = 0;
  private previousToken: TokenType | undefined;

  constructor(
    private readonly isArray: boolean,
    found: FoundValue[],
  ) {
    this.parser = new TokenParser({
      paths: isArray ? ARRAY_PATHS : OBJECT_PATHS,
      keepStack: false,
    });
    this.parser.onValue = ({ value, key, stack }) => {
      if (isArray) {
        found.push({ container: 'array', index: key as number, value });
      } else if (stack.length === 2) {
        const container = stack[1]?.key === 'resourceSpans' ? 'resourceSpans' : 'data';
        found.push({ container, index: key as number, value });
      } else {
        this.traceFields[key as string] = value;
      }
    };
  }

  /** Notes a token the parser is given, to learn the top-level keys. */
  observe(token: TokenType, value: unknown): void {
    if (
      token === TokenType.STRING &&
      this.depth === 1 &&
      !this.isArray &&
      (this.previousToken === TokenType.LEFT_BRACE || this.previousToken === TokenType.COMMA)
    ) {
      this.containers.add(String(value));
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth += 1;
    if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth -= 1;
    this.previousToken = token;
  }

  /**
   * At the document's end, the value that stands for it when nothing was found inside it: a bare
   * Jaeger trace, or an empty container, for the format to be detected from.
   */
  remainder(): unknown {
    if (this.isArray) return [];
    const value: Record<string, unknown> = { ...this.traceFields };
    if (this.containers.has('resourceSpans')) value.resourceSpans = [];
    if (this.containers.has('data')) value.data = [];
    return value;
  }

  /** The bare Jaeger trace the document held, if it held one. */
  trace(): Record<string, unknown> | undefined {
    return Array.isArray(this.traceFields.spans) ? this.traceFields : undefined;
  }
}

/** Yields the spans of one JSON document (or several in turn), element by element, in batches. */
async function* documentSpans(
  text: AsyncIterable<Buffer>,
  path: string,
  expected: TraceFormat | undefined,
): AsyncGenerator<TraceSpan[]> {
  const found: FoundValue[] = [];
  let document: DocumentInProgress | undefined;
  let format: TraceFormat | undefined;
  const tokenizer = new Tokenizer();
  tokenizer.onToken = (info) => {
    if (document === undefined) {
      if (info.token !== TokenType.LEFT_BRACE && info.token !== TokenType.LEFT_BRACKET) {
        throw notATraceFile(path);
      }
      document = new DocumentInProgress(info.token === TokenType.LEFT_BRACKET, found);
    }
    document.observe(info.token, info.value);
    document.parser.write(info);
    if (document.parser.isEnded) {
      const trace = document.trace();
      if (trace !== undefined) found.push({ container: 'trace', index: 0, value: trace });
      else if (format === undefined && found.length === 0) {
        // Nothing inside to convert: still say which format the document was, or that it is none.
        format = formatOf(document.remainder(), expected, path);
      }
      document = undefined;
    }
  };
  const write = (input: Buffer | undefined) => {
    try {
      if (input === undefined) tokenizer.end();
      else tokenizer.write(input);
    } catch (error) {
      if (error instanceof TraceFileError) throw error;
      throw new TraceFileError(`${path}: malformed JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
  };
  let batch: TraceSpan[] = [];
  for await (const chunk of text) {
    write(chunk);
    for (const value of found.splice(0)) {
      format ??= formatOf(firstValueOf(value), expected, path);
      for (const span of foundSpans(value, format, path)) batch.push(span);
    }
    if (batch.length >= BATCH_SPANS) {
      yield batch;
      batch = [];
    }
  }
  write(undefined);
  if (document !== undefined) {
    throw new TraceFileError(`${path}: malformed JSON (the file ends inside a value)`);
  }
  for (const value of found.splice(0)) {
    format ??= formatOf(firstValueOf(value), expected, path);
    for (const span of foundSpans(value, format, path)) batch.push(span);
  }
  if (batch.length > 0) yield batch;
}

/** The value a found element stands for, in the shape {@link detectTraceFormat} judges. */
function firstValueOf({ container, value }: FoundValue): unknown {
  switch (container) {
    case 'resourceSpans':
      return { resourceSpans: [value] };
    case 'data':
      return { data: [value] };
    case 'array':
      return [value];
    case 'trace':
      return value;
  }
}

/** The format a found element belongs to, whatever the first one was. */
const CONTAINER_FORMATS: Readonly<Record<FoundValue['container'], TraceFormat>> = {
  resourceSpans: 'otlp-json',
  data: 'jaeger-json',
  trace: 'jaeger-json',
  array: 'zipkin-json',
};

function foundSpans(found: FoundValue, format: TraceFormat, path: string): TraceSpan[] {
  const actual = CONTAINER_FORMATS[found.container];
  if (actual !== format) throw mismatch(path, format, actual);
  switch (found.container) {
    case 'resourceSpans':
      return convert(`${path}: resourceSpans[${found.index}]`, () =>
        otlpResourceSpans(found.value),
      );
    case 'data':
      return convert(`${path}: data[${found.index}]`, () => jaegerJsonSpans(found.value));
    case 'trace':
      return convert(path, () => jaegerJsonSpans(found.value));
    case 'array':
      return convert(path, () => present(zipkinSpan(found.value, found.index)));
  }
}

/** A span as a list: none where the converter skipped it (a Zipkin fragment). */
function present(span: TraceSpan | undefined): TraceSpan[] {
  return span === undefined ? [] : [span];
}
