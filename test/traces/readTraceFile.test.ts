import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTraceFileSpans, readTraceSpans } from '../../src/traces/readTraceFile.js';
import { TraceFileError } from '../../src/traces/TraceFileError.js';
import type { TraceFormat, TraceSpan } from '../../src/traces/TraceSpan.js';
import { comparable, expectGoldTrace, fixturePath } from './formats/checkoutTrace.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

let directory = '';
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'difftry-traces-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Writes a file into the test's temporary directory and returns its path. */
function write(name: string, content: string | Buffer): string {
  const path = join(directory, name);
  writeFileSync(path, content);
  return path;
}

/** An OTLP span numbered `n` (its id is n in hex), of service `svc`. */
function otlpSpan(n: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: TRACE,
    spanId: n.toString(16).padStart(16, '1'),
    parentSpanId: '',
    name: 'op',
    kind: 2,
    startTimeUnixNano: String(1764950400_000_000_000n + BigInt(n) * 1000n),
    endTimeUnixNano: String(1764950400_000_000_000n + BigInt(n) * 1000n + 500n),
    attributes: [{ key: 'difftry.class', value: { stringValue: n % 2 ? 'gold' : 'bronze' } }],
    ...fields,
  };
}

/** An OTLP request of one resource (`svc`) holding `spans`. */
function otlpRequest(...spans: unknown[]): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [{ spans }],
      },
    ],
  };
}

/** A Zipkin span numbered `n`. */
function zipkinSpan(n: number): Record<string, unknown> {
  return {
    traceId: TRACE,
    id: n.toString(16).padStart(16, '1'),
    kind: 'SERVER',
    name: 'op',
    timestamp: 1764950400_000_000 + n,
    duration: 5,
    localEndpoint: { serviceName: 'svc' },
    tags: { 'difftry.class': 'gold', 'http.response.status_code': '200' },
  };
}

/** Reads a file batch by batch. */
async function batchesOf(path: string, format?: TraceFormat): Promise<(readonly TraceSpan[])[]> {
  const batches: (readonly TraceSpan[])[] = [];
  for await (const batch of readTraceSpans(path, format === undefined ? {} : { format })) {
    batches.push(batch);
  }
  return batches;
}

/** The TraceFileError reading `path` throws. */
async function errorOf(path: string, format?: TraceFormat): Promise<TraceFileError> {
  try {
    await readTraceFileSpans(path, format === undefined ? {} : { format });
  } catch (error) {
    if (error instanceof TraceFileError) {
      expect(error.code).toBe('DIFFTRY_TRACES_INVALID');
      expect(error.message).not.toContain('\n');
      return error;
    }
    throw error;
  }
  throw new Error(`read ${path} without error`);
}

describe('readTraceFileSpans', () => {
  it('reads the checkout fixture in every format and layout alike', async () => {
    const names = [
      'checkout.otlp.json',
      'checkout.otlp.jsonl',
      'checkout.jaeger.json',
      'checkout.zipkin.json',
    ];
    const read = await Promise.all(names.map((name) => readTraceFileSpans(fixturePath(name))));
    for (const spans of read) {
      expect(spans).toHaveLength(21);
      expectGoldTrace(spans);
    }
    const reference = comparable(read[0] ?? []);
    for (const spans of read.slice(1)) expect(comparable(spans)).toEqual(reference);
  });

  it('reads a file in the format it is told, and gunzips a .gz file', async () => {
    const spans = await readTraceFileSpans(fixturePath('checkout.jaeger.json'), {
      format: 'jaeger-json',
    });
    expect(spans).toHaveLength(21);
    for (const name of ['checkout.otlp.jsonl', 'checkout.zipkin.json']) {
      const path = write(`${name}.gz`, gzipSync(readFileSync(fixturePath(name))));
      const unzipped = await readTraceFileSpans(path);
      expect(comparable(unzipped)).toEqual(comparable(spans));
    }
  });

  it('reads JSON lines with blank lines, CRLF, a byte-order mark, and any format a line', async () => {
    const lines = [otlpRequest(otlpSpan(1)), otlpRequest(otlpSpan(2), otlpSpan(3))];
    const path = write(
      'crlf.jsonl',
      `\uFEFF\r\n${lines.map((line) => JSON.stringify(line)).join('\r\n\r\n')}\r\n`,
    );
    expect((await readTraceFileSpans(path)).map((span) => span.spanId)).toEqual([
      '1111111111111111',
      '1111111111111112',
      '1111111111111113',
    ]);
    const jaeger = JSON.parse(readFileSync(fixturePath('checkout.jaeger.json'), 'utf8')) as {
      data: unknown[];
    };
    const traces = write(
      'traces.jaeger.jsonl',
      jaeger.data.map((t) => JSON.stringify(t)).join('\n'),
    );
    expect(comparable(await readTraceFileSpans(traces))).toEqual(
      comparable(await readTraceFileSpans(fixturePath('checkout.jaeger.json'))),
    );
    const zipkin = write(
      'spans.zipkin.jsonl',
      `${JSON.stringify([zipkinSpan(1), zipkinSpan(2)])}\n${JSON.stringify(zipkinSpan(3))}\n`,
    );
    expect(await readTraceFileSpans(zipkin)).toHaveLength(3);
  });

  it('reads a document on one line, and documents one after another', async () => {
    const oneLine = write(
      'one-line.json',
      JSON.stringify(JSON.parse(readFileSync(fixturePath('checkout.jaeger.json'), 'utf8'))),
    );
    expect(await readTraceFileSpans(oneLine)).toHaveLength(21);
    const pretty = JSON.stringify(otlpRequest(otlpSpan(1), otlpSpan(2)), null, 2);
    const twice = write('twice.json', `${pretty}\n${pretty}\n`);
    expect(await readTraceFileSpans(twice)).toHaveLength(4);
    const bareTrace = write(
      'bare-trace.json',
      JSON.stringify(
        { traceID: TRACE, processes: { p1: { serviceName: 'svc' } } },
        null,
        2,
      ).replace(
        /\n}$/,
        ',\n"spans": [{"spanID": "a1", "startTime": 5, "duration": 1, "processID": "p1"}]\n}',
      ),
    );
    expect(await readTraceFileSpans(bareTrace)).toEqual([
      expect.objectContaining({ traceId: TRACE, spanId: 'a1', service: 'svc', start: 5e-6 }),
    ]);
  });
});

describe('readTraceSpans streams', () => {
  it('reads 20,000 JSON lines in several batches', async () => {
    const lines: string[] = [];
    for (let n = 0; n < 20_000; n += 1) lines.push(JSON.stringify(otlpRequest(otlpSpan(n))));
    const path = write('many.jsonl', `${lines.join('\n')}\n`);
    const batches = await batchesOf(path);
    expect(batches.length).toBeGreaterThan(1);
    expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThan(10_000);
    const spans = batches.flat();
    expect(spans).toHaveLength(20_000);
    expect(spans[19_999]).toMatchObject({
      spanId: (19_999).toString(16).padStart(16, '1'),
      start: 1764950400.019999,
      attributes: { 'difftry.class': 'gold' },
    });
  });

  it('reads a large pretty-printed document in several batches, element by element', async () => {
    const resourceSpans = [];
    for (let resource = 0; resource < 100; resource += 1) {
      const spans = [];
      for (let n = 0; n < 100; n += 1) spans.push(otlpSpan(resource * 100 + n));
      resourceSpans.push((otlpRequest(...spans).resourceSpans as unknown[])[0]);
    }
    const otlp = write('large.otlp.json', JSON.stringify({ resourceSpans }, null, 2));
    const otlpBatches = await batchesOf(otlp);
    expect(otlpBatches.length).toBeGreaterThan(1);
    expect(Math.max(...otlpBatches.map((batch) => batch.length))).toBeLessThan(10_000);
    expect(otlpBatches.flat()).toHaveLength(10_000);

    const zipkinSpans = [];
    for (let n = 0; n < 10_000; n += 1) zipkinSpans.push(zipkinSpan(n));
    const zipkin = write('large.zipkin.json', JSON.stringify(zipkinSpans, null, 1));
    const zipkinBatches = await batchesOf(zipkin);
    expect(zipkinBatches.length).toBeGreaterThan(1);
    expect(zipkinBatches.flat().map((span) => span.spanId)).toEqual(
      zipkinSpans.map((span) => span.id),
    );
  });

  it('streams a first line longer than 16 MiB as a document, not one line held whole', async () => {
    const spans = [];
    for (let n = 0; n < 80_000; n += 1) spans.push(zipkinSpan(n));
    const first = JSON.stringify(spans);
    expect(first.length).toBeGreaterThan(16 * 1024 * 1024);
    const path = write('huge-line.zipkin.jsonl', `${first}\n${JSON.stringify([zipkinSpan(1)])}\n`);
    const batches = await batchesOf(path);
    // Read as one line, the first line's 80,000 spans would come in one batch.
    expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThan(10_000);
    expect(batches.flat()).toHaveLength(80_001);
  });

  it('stops reading when the caller stops', async () => {
    const lines: string[] = [];
    for (let n = 0; n < 10_000; n += 1) lines.push(JSON.stringify(otlpRequest(otlpSpan(n))));
    const path = write('stop.jsonl', lines.join('\n'));
    let batches = 0;
    for await (const batch of readTraceSpans(path)) {
      expect(batch.length).toBeGreaterThan(0);
      batches += 1;
      break;
    }
    expect(batches).toBe(1);
  });
});

describe('readTraceSpans refuses', () => {
  it('a malformed JSON line, naming its line', async () => {
    const lines = Array.from({ length: 9 }, (_, n) => JSON.stringify(otlpRequest(otlpSpan(n))));
    lines[6] = '{"resourceSpans": [';
    const path = write('traces.jsonl', lines.join('\n'));
    expect((await errorOf(path)).message).toMatch(
      new RegExp(`^${path}: line 7: malformed JSON \\(.+\\)$`),
    );
    const single = write('single-line.json', '{"resourceSpans": [}');
    expect((await errorOf(single)).message).toMatch(
      new RegExp(`^${single}: line 1: malformed JSON \\(.+\\)$`),
    );
  });

  it('a malformed document', async () => {
    const pretty = JSON.stringify(otlpRequest(otlpSpan(1)), null, 2);
    const truncated = write('truncated.json', pretty.slice(0, -10));
    expect((await errorOf(truncated)).message).toBe(
      `${truncated}: malformed JSON (the file ends inside a value)`,
    );
    const garbled = write('garbled.json', pretty.replace('"scopeSpans"', 'scopeSpans'));
    expect((await errorOf(garbled)).message).toMatch(
      new RegExp(`^${garbled}: malformed JSON \\(Unexpected "s" .+\\)$`),
    );
  });

  it('a file of no known format', async () => {
    const expected = 'not a trace file: expected OTLP/JSON, Jaeger JSON or Zipkin v2 JSON';
    for (const [name, content] of [
      ['object.json', '{"foo": 1}\n'],
      ['pretty.json', '{\n  "foo": [1, 2]\n}\n'],
      ['numbers.jsonl', '1\n2\n'],
      ['array.json', '[\n  {"id": 1}\n]\n'],
      ['string.json', '"resourceSpans"\n"x"'],
    ] as const) {
      const path = write(name, content);
      expect((await errorOf(path)).message, name).toBe(`${path}: ${expected}`);
    }
  });

  it('a file without spans', async () => {
    for (const [name, content] of [
      ['empty.json', ''],
      ['blank.jsonl', '\n  \r\n\t\n'],
      ['no-resource-spans.json', '{"resourceSpans": []}'],
      ['no-resource-spans-pretty.json', '{\n  "resourceSpans": []\n}\n'],
      ['no-traces.json', '{\n  "data": [],\n  "total": 0\n}'],
      [
        'no-scope-spans.jsonl',
        `${JSON.stringify(otlpRequest())}\n${JSON.stringify(otlpRequest())}`,
      ],
    ] as const) {
      const path = write(name, content);
      expect((await errorOf(path)).message, name).toBe(`${path}: no spans`);
    }
  });

  it('a file it cannot read', async () => {
    const missing = join(directory, 'missing.json');
    expect((await errorOf(missing)).message).toBe(
      `${missing}: cannot read (ENOENT: no such file or directory, open '${missing}')`,
    );
    const folder = join(directory, 'folder.json');
    mkdirSync(folder);
    expect((await errorOf(folder)).message).toMatch(
      new RegExp(`^${folder}: cannot read \\(EISDIR`),
    );
    const notGzip = write('not-gzip.json.gz', '{"resourceSpans": []}');
    expect((await errorOf(notGzip)).message).toBe(
      `${notGzip}: cannot read (Z_DATA_ERROR: incorrect header check)`,
    );
  });

  it('a file of another format than the one asked for', async () => {
    const jaeger = fixturePath('checkout.jaeger.json');
    expect((await errorOf(jaeger, 'otlp-json')).message).toBe(
      `${jaeger}: expected OTLP/JSON, found Jaeger JSON`,
    );
    const lines = fixturePath('checkout.otlp.jsonl');
    expect((await errorOf(lines, 'zipkin-json')).message).toBe(
      `${lines}: expected Zipkin v2 JSON, found OTLP/JSON`,
    );
    const zipkin = fixturePath('checkout.zipkin.json');
    expect((await errorOf(zipkin, 'jaeger-json')).message).toBe(
      `${zipkin}: expected Jaeger JSON, found Zipkin v2 JSON`,
    );
  });

  it('a line of another format than the first', async () => {
    const path = write(
      'mixed.jsonl',
      `${JSON.stringify(otlpRequest(otlpSpan(1)))}\n${JSON.stringify([zipkinSpan(2)])}\n`,
    );
    expect((await errorOf(path)).message).toBe(
      `${path}: line 2: expected an OTLP/JSON object with a resourceSpans array`,
    );
  });

  it('a span without its id, naming the line or element and the span', async () => {
    const noId = otlpSpan(2, { spanId: undefined });
    const lines = write(
      'no-span-id.jsonl',
      `${JSON.stringify(otlpRequest(otlpSpan(1)))}\n${JSON.stringify(otlpRequest(noId))}\n`,
    );
    expect((await errorOf(lines)).message).toBe(
      `${lines}: line 2: resourceSpans[0]: span 1 of trace ${TRACE}: no spanId`,
    );
    const resourceSpans = [otlpRequest(otlpSpan(1)), otlpRequest(otlpSpan(3), noId)].map(
      (request) => (request.resourceSpans as unknown[])[0],
    );
    const document = write('no-span-id.json', JSON.stringify({ resourceSpans }, null, 2));
    expect((await errorOf(document)).message).toBe(
      `${document}: resourceSpans[1]: span 2 of trace ${TRACE}: no spanId`,
    );
    const zipkin = write(
      'no-id.zipkin.json',
      JSON.stringify([zipkinSpan(1), zipkinSpan(2), { ...zipkinSpan(3), id: undefined }], null, 2),
    );
    expect((await errorOf(zipkin)).message).toBe(`${zipkin}: span 3 of trace ${TRACE}: no id`);
  });
});
