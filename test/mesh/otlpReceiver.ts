import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BinaryReader, type WireType } from '@bufbuild/protobuf/wire';

/** A span as the receiver decoded it from an OTLP/HTTP protobuf export. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly startNanos: bigint;
  readonly endNanos: bigint;
  readonly attributes: Record<string, string | number | boolean>;
  readonly events: readonly string[];
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  readonly status: number;
}

/** A real OTLP/HTTP trace receiver on 127.0.0.1 (port 0) that decodes what exporters send. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`, the endpoint to give an exporter. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** The content types of the requests received. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    contentTypes.push(String(req.headers['content-type']));
    spans.push(...decodeExportTraceServiceRequest(Buffer.concat(chunks)));
    // An empty ExportTraceServiceResponse: full success.
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// The decoder below reads the fields of opentelemetry/proto (collector/trace/v1, trace/v1,
// resource/v1, common/v1) by their field numbers; it is independent of the exporter's encoder.

/** Calls `field(number, wireType)` for each field of the message in `bytes`. */
function fields(
  bytes: Uint8Array,
  field: (reader: BinaryReader, no: number, wt: WireType) => boolean,
) {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, wt] = reader.tag();
    if (!field(reader, no, wt)) reader.skip(wt, no);
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; } */
export function decodeExportTraceServiceRequest(bytes: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  fields(bytes, (reader, no) => {
    if (no !== 1) return false;
    spans.push(...resourceSpans(reader.bytes()));
    return true;
  });
  return spans;
}

/** ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; } */
function resourceSpans(bytes: Uint8Array): ReceivedSpan[] {
  let service = '';
  const scoped: Uint8Array[] = [];
  fields(bytes, (reader, no) => {
    if (no === 1) {
      // Resource { repeated KeyValue attributes = 1; }
      fields(reader.bytes(), (r, n) => {
        if (n !== 1) return false;
        const [key, value] = keyValue(r.bytes());
        if (key === 'service.name') service = String(value);
        return true;
      });
      return true;
    }
    if (no === 2) {
      scoped.push(reader.bytes());
      return true;
    }
    return false;
  });
  const spans: ReceivedSpan[] = [];
  for (const scope of scoped) {
    // ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
    fields(scope, (reader, no) => {
      if (no !== 2) return false;
      spans.push(span(reader.bytes(), service));
      return true;
    });
  }
  return spans;
}

/** Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, times 7 and 8 (fixed64), attributes 9, events 11, status 15. */
function span(bytes: Uint8Array, service: string): ReceivedSpan {
  const out = {
    service,
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    startNanos: 0n,
    endNanos: 0n,
    attributes: {} as Record<string, string | number | boolean>,
    events: [] as string[],
    status: 0,
  };
  fields(bytes, (reader, no) => {
    switch (no) {
      case 1:
        out.traceId = hex(reader.bytes());
        return true;
      case 2:
        out.spanId = hex(reader.bytes());
        return true;
      case 4:
        out.parentSpanId = hex(reader.bytes());
        return true;
      case 5:
        out.name = reader.string();
        return true;
      case 6:
        out.kind = reader.int32();
        return true;
      case 7:
        out.startNanos = BigInt(reader.fixed64());
        return true;
      case 8:
        out.endNanos = BigInt(reader.fixed64());
        return true;
      case 9: {
        const [key, value] = keyValue(reader.bytes());
        out.attributes[key] = value;
        return true;
      }
      case 11:
        // Event { fixed64 time_unix_nano = 1; string name = 2; … }
        fields(reader.bytes(), (r, n) => {
          if (n !== 2) return false;
          out.events.push(r.string());
          return true;
        });
        return true;
      case 15:
        // Status { string message = 2; StatusCode code = 3; }
        fields(reader.bytes(), (r, n) => {
          if (n !== 3) return false;
          out.status = r.int32();
          return true;
        });
        return true;
      default:
        return false;
    }
  });
  return out;
}

/** KeyValue { string key = 1; AnyValue value = 2; } with AnyValue's string 1, bool 2, int 3, double 4. */
function keyValue(bytes: Uint8Array): [string, string | number | boolean] {
  let key = '';
  let value: string | number | boolean = '';
  fields(bytes, (reader, no) => {
    if (no === 1) {
      key = reader.string();
      return true;
    }
    if (no !== 2) return false;
    fields(reader.bytes(), (r, n) => {
      if (n === 1) value = r.string();
      else if (n === 2) value = r.bool();
      else if (n === 3) value = Number(r.int64());
      else if (n === 4) value = r.double();
      else return false;
      return true;
    });
    return true;
  });
  return [key, value];
}
