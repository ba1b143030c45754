/**
 * Synthetic OTLP/JSON-lines traces of a small system whose true rates, capacities, call graph and
 * retries are known, for measuring `difftry from-traces` at scale (scripts/traces-memory.ts):
 * what it infers can be set against the truth, however large the file.
 *
 * The system ({@link SYNTHETIC_SYSTEM}): `frontend`, the entry, gets Poisson arrivals of two
 * classes; each request is served at `frontend`, then calls `cart` and, on a share of requests,
 * `catalog` in parallel; `cart` calls `db`. Every service is one FIFO server with exponential
 * service times. `cart` turns an attempt away (HTTP 503, at once, without serving it) with a
 * per-class probability, and `frontend` retries it up to the retry limit, each retry carrying
 * `http.request.resend_count`.
 *
 * The file is what the OpenTelemetry collector's file exporter writes: one
 * `ExportTraceServiceRequest` a line, each a batch of the spans that ended last (50–200 of them,
 * grouped by service into `resourceSpans`), so one trace's spans are spread over consecutive
 * lines and a line holds parts of many traces.
 *
 * Pure: the lines come from a generator, which the caller writes wherever it likes; it holds only
 * the requests in flight and the batch being filled.
 */
import { type RandomSource, seededRandom } from '../../model/random.js';
import {
  SYNTHETIC_SYSTEM,
  type SyntheticClass,
  type SyntheticService,
  type SyntheticSystem,
} from './syntheticSystem.js';

/** Options of {@link syntheticOtlpLines}. */
export interface SyntheticOtlpOptions {
  /** About how many bytes to write: arrivals stop once this many are out, then in-flight requests finish. */
  readonly targetBytes: number;
  readonly seed: number;
  /** Default {@link SYNTHETIC_SYSTEM}. */
  readonly system?: SyntheticSystem;
  /** Wait between a rejected attempt and its retry, seconds (default 0: at once). */
  readonly backoffSeconds?: number;
  /** Spans per line, drawn uniformly from [min, max] for each line (default [50, 200]). */
  readonly spansPerLine?: readonly [number, number];
  /** The time of the first arrival, whole seconds since the Unix epoch (default 2026-01-01). */
  readonly startEpochSeconds?: number;
}

/** What a run of {@link syntheticOtlpLines} wrote, returned when it is done. */
export interface SyntheticOtlpTotals {
  /** Bytes and lines yielded (UTF-8; every line ends in a newline). */
  readonly bytes: number;
  readonly lines: number;
  readonly spans: number;
  readonly spansByService: Readonly<Record<string, number>>;
  /** Entry requests per class. */
  readonly requests: Readonly<Record<string, number>>;
  /** Calls to `cart` and attempts made on them, per class, and the most retries one call made. */
  readonly cartCalls: Readonly<Record<string, number>>;
  readonly cartAttempts: Readonly<Record<string, number>>;
  readonly cartMostRetries: Readonly<Record<string, number>>;
  /** Simulated seconds from the first arrival to the last. */
  readonly arrivalSeconds: number;
}

const TWO_POW_32 = 4294967296;
const SCOPE = '{"name":"@opentelemetry/instrumentation-http","version":"0.57.0"}';

/** A scheduled action of the simulation. */
interface Event {
  readonly time: number;
  readonly sequence: number;
  readonly run: () => void;
}

/** A binary min-heap of events by time, then by scheduling order (so runs are reproducible). */
class Events {
  private readonly heap: Event[] = [];
  private sequence = 0;

  get size(): number {
    return this.heap.length;
  }

  push(time: number, run: () => void): void {
    const heap = this.heap;
    const event = { time, sequence: this.sequence++, run };
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(event, heap[parent] as Event)) break;
      heap[i] = heap[parent] as Event;
      i = parent;
    }
    heap[i] = event;
  }

  pop(): Event | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length && before(heap[right] as Event, heap[left] as Event) ? right : left;
      if (!before(heap[child] as Event, last)) break;
      heap[i] = heap[child] as Event;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

function before(a: Event, b: Event): boolean {
  return a.time < b.time || (a.time === b.time && a.sequence < b.sequence);
}

/** One FIFO server: a request waits its turn, is served for its service time, then goes on. */
class Station {
  private busy = false;
  private readonly waiting: { readonly service: number; readonly done: () => void }[] = [];

  constructor(private readonly events: Events) {}

  /** A request arrives now (`time`): `done` runs when its service ends. */
  arrive(time: number, service: number, done: () => void): void {
    if (this.busy) {
      this.waiting.push({ service, done });
      return;
    }
    this.busy = true;
    this.events.push(time + service, () => this.finish(time + service, done));
  }

  private finish(time: number, done: () => void): void {
    done();
    const next = this.waiting.shift();
    if (next === undefined) {
      this.busy = false;
      return;
    }
    this.events.push(time + next.service, () => this.finish(time + next.service, next.done));
  }
}

/** A span as the generator writes it. */
interface OutSpan {
  readonly service: SyntheticService;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: 2 | 3;
  readonly start: number;
  readonly end: number;
  /** Its attributes, as the JSON array's elements. */
  readonly attributes: string;
  readonly status: number;
}

/** Counters by class or service name. */
type Tally = Record<string, number>;

/** The simulation and the batch being filled; {@link syntheticOtlpLines} drives it. */
class SyntheticRun {
  readonly events = new Events();
  readonly lines: string[] = [];
  now = 0;
  bytes = 0;
  lineCount = 0;
  spans = 0;
  lastArrival = 0;
  readonly spansByService: Tally = {};
  readonly requests: Tally = {};
  readonly cartCalls: Tally = {};
  readonly cartAttempts: Tally = {};
  readonly cartMostRetries: Tally = {};
  private readonly random: RandomSource;
  private readonly idRandom: RandomSource;
  private readonly system: SyntheticSystem;
  private readonly totalRate: number;
  private readonly stations: Record<SyntheticService, Station>;
  private readonly backoff: number;
  private readonly perLine: readonly [number, number];
  private readonly epoch: number;
  private batch = new Map<SyntheticService, string[]>();
  private batchSize = 0;
  private batchTarget: number;

  constructor(private readonly options: SyntheticOtlpOptions) {
    this.system = options.system ?? SYNTHETIC_SYSTEM;
    this.random = seededRandom(options.seed, 0);
    this.idRandom = seededRandom(options.seed, 1);
    this.totalRate = this.system.classes.reduce((sum, c) => sum + c.rate, 0);
    this.stations = {
      frontend: new Station(this.events),
      cart: new Station(this.events),
      catalog: new Station(this.events),
      db: new Station(this.events),
    };
    this.backoff = options.backoffSeconds ?? 0;
    this.perLine = options.spansPerLine ?? [50, 200];
    this.epoch = options.startEpochSeconds ?? 1_767_225_600;
    this.batchTarget = this.drawBatchTarget();
    for (const c of this.system.classes) {
      this.requests[c.name] = 0;
      this.cartCalls[c.name] = 0;
      this.cartAttempts[c.name] = 0;
      this.cartMostRetries[c.name] = 0;
    }
    this.events.push(0, () => this.arrival());
  }

  /** Runs the next event; false when there is none left (the last batch then flushed). */
  step(): boolean {
    const event = this.events.pop();
    if (event === undefined) {
      this.flush();
      return false;
    }
    this.now = event.time;
    event.run();
    return true;
  }

  private exponential(mean: number): number {
    return -Math.log(1 - this.random()) * mean;
  }

  private serviceTime(service: SyntheticService): number {
    return this.exponential(this.system.meanServiceSeconds[service]);
  }

  private hex(words: number): string {
    let id = '';
    for (let k = 0; k < words; k++) {
      id += Math.floor(this.idRandom() * TWO_POW_32)
        .toString(16)
        .padStart(8, '0');
    }
    return id;
  }

  private drawBatchTarget(): number {
    const [min, max] = this.perLine;
    return min + Math.floor(this.idRandom() * (max - min + 1));
  }

  /** A new entry request, then the next arrival; none once the target size is out. */
  private arrival(): void {
    if (this.bytes >= this.options.targetBytes) return;
    const t = this.now;
    this.lastArrival = t;
    let pick = this.random() * this.totalRate;
    let cls = this.system.classes[this.system.classes.length - 1] as SyntheticClass;
    for (const c of this.system.classes) {
      pick -= c.rate;
      if (pick < 0) {
        cls = c;
        break;
      }
    }
    this.requests[cls.name] = (this.requests[cls.name] as number) + 1;
    this.request(t, cls);
    this.events.push(t + this.exponential(1 / this.totalRate), () => this.arrival());
  }

  /** A `frontend` request: its own service, then `cart` and maybe `catalog` in parallel. */
  private request(t: number, cls: SyntheticClass): void {
    const traceId = this.hex(4);
    const rootId = this.hex(2);
    const catalog = this.random() < this.system.catalogShare;
    this.stations.frontend.arrive(t, this.serviceTime('frontend'), () => {
      let pending = catalog ? 2 : 1;
      const join = () => {
        pending--;
        if (pending > 0) return;
        this.emit({
          service: 'frontend',
          traceId,
          spanId: rootId,
          parentSpanId: '',
          name: 'POST /checkout',
          kind: 2,
          start: t,
          end: this.now,
          attributes: serverAttributes(cls.name, '/checkout', 200, true),
          status: 200,
        });
      };
      this.cartCalls[cls.name] = (this.cartCalls[cls.name] as number) + 1;
      this.cartAttempt(traceId, rootId, cls, 0, join);
      if (catalog) this.leafCall('frontend', 'catalog', traceId, rootId, cls.name, join);
    });
  }

  /** Attempt `resend` (0: the first) of a call from `frontend` to `cart`, starting now. */
  private cartAttempt(
    traceId: string,
    parentId: string,
    cls: SyntheticClass,
    resend: number,
    done: () => void,
  ): void {
    const a = this.now;
    const delay = this.system.networkDelaySeconds;
    const clientId = this.hex(2);
    const serverId = this.hex(2);
    this.cartAttempts[cls.name] = (this.cartAttempts[cls.name] as number) + 1;
    this.cartMostRetries[cls.name] = Math.max(this.cartMostRetries[cls.name] as number, resend);
    const client = (status: number) =>
      this.emit({
        service: 'frontend',
        traceId,
        spanId: clientId,
        parentSpanId: parentId,
        name: 'POST',
        kind: 3,
        start: a,
        end: this.now,
        attributes: clientAttributes(cls.name, 'cart', status, resend),
        status,
      });
    const server = (start: number, status: number) =>
      this.emit({
        service: 'cart',
        traceId,
        spanId: serverId,
        parentSpanId: clientId,
        name: 'POST /cart',
        kind: 2,
        start,
        end: this.now,
        attributes: serverAttributes(cls.name, '/cart', status, false),
        status,
      });
    if (this.random() < cls.rejectProbability) {
      const rejectedAt = a + delay + this.system.rejectSeconds;
      this.events.push(rejectedAt, () => server(a + delay, 503));
      this.events.push(rejectedAt + delay, () => {
        client(503);
        if (resend >= this.system.retryLimit) {
          done();
          return;
        }
        this.events.push(this.now + this.backoff, () =>
          this.cartAttempt(traceId, parentId, cls, resend + 1, done),
        );
      });
      return;
    }
    this.events.push(a + delay, () => {
      this.stations.cart.arrive(this.now, this.serviceTime('cart'), () => {
        this.leafCall('cart', 'db', traceId, serverId, cls.name, () => {
          server(a + delay, 200);
          this.events.push(this.now + delay, () => {
            client(200);
            done();
          });
        });
      });
    });
  }

  /**
   * A call from `caller` (its span `parentId`) to a leaf service, starting now: the client span,
   * the callee's server span, then `done` when the answer is back.
   */
  private leafCall(
    caller: SyntheticService,
    callee: SyntheticService,
    traceId: string,
    parentId: string,
    className: string,
    done: () => void,
  ): void {
    const a = this.now;
    const delay = this.system.networkDelaySeconds;
    const clientId = this.hex(2);
    const serverId = this.hex(2);
    const route = `/${callee}`;
    this.events.push(a + delay, () => {
      this.stations[callee].arrive(this.now, this.serviceTime(callee), () => {
        this.emit({
          service: callee,
          traceId,
          spanId: serverId,
          parentSpanId: clientId,
          name: `GET ${route}`,
          kind: 2,
          start: a + delay,
          end: this.now,
          attributes: serverAttributes(className, route, 200, false),
          status: 200,
        });
        this.events.push(this.now + delay, () => {
          this.emit({
            service: caller,
            traceId,
            spanId: clientId,
            parentSpanId: parentId,
            name: 'GET',
            kind: 3,
            start: a,
            end: this.now,
            attributes: clientAttributes(className, callee, 200, 0),
            status: 200,
          });
          done();
        });
      });
    });
  }

  /** Adds a span that has just ended to the batch, and writes the batch out once it is full. */
  private emit(span: OutSpan): void {
    const list = this.batch.get(span.service);
    const json = this.spanJson(span);
    if (list === undefined) this.batch.set(span.service, [json]);
    else list.push(json);
    this.spans++;
    this.spansByService[span.service] = (this.spansByService[span.service] ?? 0) + 1;
    this.batchSize++;
    if (this.batchSize >= this.batchTarget) this.flush();
  }

  /** Writes the batch as one line: an `ExportTraceServiceRequest`, one `resourceSpans` a service. */
  flush(): void {
    if (this.batchSize === 0) return;
    const resources: string[] = [];
    for (const [service, spans] of this.batch) {
      resources.push(
        `{"resource":{"attributes":[${stringAttribute('service.name', service)},${stringAttribute('telemetry.sdk.language', 'nodejs')}]},"scopeSpans":[{"scope":${SCOPE},"spans":[${spans.join(',')}]}]}`,
      );
    }
    const line = `{"resourceSpans":[${resources.join(',')}]}\n`;
    this.lines.push(line);
    this.bytes += line.length; // ASCII only: characters are bytes
    this.lineCount++;
    this.batch = new Map();
    this.batchSize = 0;
    this.batchTarget = this.drawBatchTarget();
  }

  private spanJson(span: OutSpan): string {
    const status = span.status >= 500 ? `{"code":2,"message":"HTTP ${span.status}"}` : '{}';
    return `{"traceId":"${span.traceId}","spanId":"${span.spanId}","parentSpanId":"${span.parentSpanId}","name":"${span.name}","kind":${span.kind},"startTimeUnixNano":"${this.nanos(span.start)}","endTimeUnixNano":"${this.nanos(span.end)}","attributes":[${span.attributes}],"status":${status}}`;
  }

  /** Simulated seconds as nanoseconds since the epoch, exact, as OTLP/JSON's decimal string. */
  private nanos(seconds: number): string {
    const ns = Math.round(seconds * 1e9);
    const whole = Math.floor(ns / 1e9);
    return `${this.epoch + whole}${String(ns - whole * 1e9).padStart(9, '0')}`;
  }
}

function stringAttribute(key: string, value: string): string {
  return `{"key":"${key}","value":{"stringValue":"${value}"}}`;
}

function intAttribute(key: string, value: number): string {
  return `{"key":"${key}","value":{"intValue":"${value}"}}`;
}

/**
 * A server span's attributes: the entry names its class (`difftry.class`), a downstream service
 * only through the request header OpenTelemetry records (`http.request.header.x-priority`).
 */
function serverAttributes(className: string, route: string, status: number, entry: boolean) {
  const cls = entry
    ? stringAttribute('difftry.class', className)
    : `{"key":"http.request.header.x-priority","value":{"arrayValue":{"values":[{"stringValue":"${className}"}]}}}`;
  return [
    cls,
    stringAttribute(
      'http.request.method',
      route === '/checkout' || route === '/cart' ? 'POST' : 'GET',
    ),
    stringAttribute('http.route', route),
    intAttribute('http.response.status_code', status),
  ].join(',');
}

/** A client span's attributes; a retry carries `http.request.resend_count`. */
function clientAttributes(className: string, callee: string, status: number, resend: number) {
  return [
    stringAttribute('difftry.class', className),
    stringAttribute('http.request.method', callee === 'cart' ? 'POST' : 'GET'),
    stringAttribute('peer.service', callee),
    stringAttribute('server.address', callee),
    intAttribute('http.response.status_code', status),
    ...(resend >= 1 ? [intAttribute('http.request.resend_count', resend)] : []),
  ].join(',');
}

/**
 * The lines of a synthetic OTLP/JSON-lines file of about `targetBytes` (each ending in a
 * newline), and, when done, what was written. Arrivals stop once `targetBytes` are out; the
 * requests then in flight finish, so every trace in the file is whole and the file ends a little
 * past the target (a few KiB). The same options give the same lines.
 * @example
 * ```ts
 * const lines = syntheticOtlpLines({ targetBytes: 1 << 20, seed: 1 });
 * for (let next = lines.next(); !next.done; next = lines.next()) write(next.value);
 * ```
 */
export function* syntheticOtlpLines(
  options: SyntheticOtlpOptions,
): Generator<string, SyntheticOtlpTotals, undefined> {
  if (!(options.targetBytes > 0)) throw new RangeError('targetBytes should be positive');
  const run = new SyntheticRun(options);
  let more = true;
  while (more) {
    more = run.step();
    if (run.lines.length > 0) {
      const lines = run.lines.splice(0);
      for (const line of lines) yield line;
    }
  }
  return {
    bytes: run.bytes,
    lines: run.lineCount,
    spans: run.spans,
    spansByService: { ...run.spansByService },
    requests: { ...run.requests },
    cartCalls: { ...run.cartCalls },
    cartAttempts: { ...run.cartAttempts },
    cartMostRetries: { ...run.cartMostRetries },
    arrivalSeconds: run.lastArrival,
  };
}
