import type { SpanKind, TraceSpan } from './TraceSpan.js';

const KINDS: readonly SpanKind[] = ['server', 'client', 'internal', 'producer', 'consumer'];
const KIND_CODE = new Map(KINDS.map((kind, code) => [kind, code]));
/** How `rejected` stores a {@link SpanReading}'s. */
export const REJECTED_CODE = Object.freeze({ no: 0, 'by-status': 1, yes: 2 });

/** No value: a parent, class, resend count or peer the span does not have. */
export const NONE = -1;

/** What of a span's attributes the store keeps: read once, as the span arrives. */
export interface SpanReading {
  /** The request class the span carries itself (not inherited), or undefined. */
  readonly className: string | undefined;
  /** `http.request.resend_count` (or `rpc` equivalent): 0 first attempt, 1 first retry, … */
  readonly resendCount: number | undefined;
  /** The callee a client span names (`peer.service`, `server.address`), or undefined. */
  readonly peer: string | undefined;
  /**
   * Whether a server span records a rejection at admission: `yes` (it says so), `by-status` (its
   * status is a rejection's: a rejection if it made no calls), `no`.
   */
  readonly rejected: 'yes' | 'by-status' | 'no';
}

/** Grows a typed array to at least `size` elements, doubling. */
function grown<T extends Float64Array | Int32Array | Int16Array | Uint8Array>(
  array: T,
  size: number,
  make: (length: number) => T,
): T {
  if (size <= array.length) return array;
  let length = array.length;
  while (length < size) length *= 2;
  const next = make(length);
  next.set(array);
  return next;
}

/**
 * The spans of one or more trace files, kept compactly (a few typed columns per span and one map
 * entry for its id) so that a file of millions of spans can be read as a stream: only what the
 * inference needs is stored, never the span objects. A span is index `i`; its parent is an index
 * too ({@link NONE} for a root), assigned when either the span or a child naming it arrives, so
 * order in the file does not matter. A parent that never arrives stays absent (`present` 0): the
 * child's parent is outside the data.
 */
export class SpanStore {
  private readonly ids = new Map<string, number>();
  private readonly serviceIds = new Map<string, number>();
  private readonly classIds = new Map<string, number>();
  /** Service names, by id. */
  readonly services: string[] = [];
  /** Class names, by id, in the order first seen. */
  readonly classes: string[] = [];
  /** Spans read (each counted once), and spans read again under an id already present. */
  spanCount = 0;
  duplicates = 0;
  private size = 0;
  present = new Uint8Array(1024);
  service = new Int32Array(1024);
  kind = new Uint8Array(1024);
  start = new Float64Array(1024);
  end = new Float64Array(1024);
  parent = new Int32Array(1024);
  classId = new Int16Array(1024);
  resend = new Int16Array(1024);
  peer = new Int32Array(1024);
  error = new Uint8Array(1024);
  rejected = new Uint8Array(1024);

  /** Number of indices given out: spans read and parents only named. */
  get length(): number {
    return this.size;
  }

  /** Adds a span; `reading` is what its attributes say (see {@link SpanReading}). */
  add(span: TraceSpan, reading: SpanReading): void {
    const index = this.indexOf(span.traceId, span.spanId);
    if (this.present[index] === 1) {
      this.duplicates++;
      return;
    }
    // The parent's index first: giving out a new one may grow (replace) the columns, and
    // `this.parent[index] = this.indexOf(…)` would write into the array it replaced.
    const parent =
      span.parentSpanId === undefined || span.parentSpanId === ''
        ? NONE
        : this.indexOf(span.traceId, span.parentSpanId);
    this.spanCount++;
    this.present[index] = 1;
    this.service[index] = this.intern(this.serviceIds, this.services, span.service);
    this.kind[index] = KIND_CODE.get(span.kind) ?? (KIND_CODE.get('internal') as number);
    this.start[index] = span.start;
    this.end[index] = Math.max(span.end, span.start);
    this.parent[index] = parent;
    this.classId[index] =
      reading.className === undefined
        ? NONE
        : this.intern(this.classIds, this.classes, reading.className);
    this.resend[index] =
      reading.resendCount === undefined ? NONE : Math.min(reading.resendCount, 32_767);
    this.peer[index] =
      reading.peer === undefined ? NONE : this.intern(this.serviceIds, this.services, reading.peer);
    this.error[index] = span.error ? 1 : 0;
    this.rejected[index] = REJECTED_CODE[reading.rejected];
  }

  /** The kind of span `i`. */
  kindOf(i: number): SpanKind {
    return KINDS[this.kind[i] as number] as SpanKind;
  }

  /** Whether span `i` was read (not only named as a parent). */
  has(i: number): boolean {
    return i >= 0 && this.present[i] === 1;
  }

  private indexOf(traceId: string, spanId: string): number {
    const key = `${traceId}/${spanId}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const index = this.size++;
    this.ids.set(key, index);
    this.ensure(this.size);
    this.present[index] = 0;
    this.parent[index] = NONE;
    return index;
  }

  private intern(ids: Map<string, number>, names: string[], name: string): number {
    const known = ids.get(name);
    if (known !== undefined) return known;
    ids.set(name, names.length);
    names.push(name);
    return names.length - 1;
  }

  private ensure(size: number): void {
    this.present = grown(this.present, size, (n) => new Uint8Array(n));
    this.service = grown(this.service, size, (n) => new Int32Array(n));
    this.kind = grown(this.kind, size, (n) => new Uint8Array(n));
    this.start = grown(this.start, size, (n) => new Float64Array(n));
    this.end = grown(this.end, size, (n) => new Float64Array(n));
    this.parent = grown(this.parent, size, (n) => new Int32Array(n));
    this.classId = grown(this.classId, size, (n) => new Int16Array(n));
    this.resend = grown(this.resend, size, (n) => new Int16Array(n));
    this.peer = grown(this.peer, size, (n) => new Int32Array(n));
    this.error = grown(this.error, size, (n) => new Uint8Array(n));
    this.rejected = grown(this.rejected, size, (n) => new Uint8Array(n));
  }
}
