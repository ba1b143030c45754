import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { AdmissionGate } from '../../mesh/AdmissionGate.js';
import type { SidecarTracing } from '../../mesh/sidecarTracing.js';
import type { RandomSource } from '../../model/random.js';
import { type CallProgram, drawPath, runProgram } from './callProgram.js';
import type { Downstream } from './Downstream.js';

/** What a testbed service is, whatever it speaks: the station's parameters. */
export interface ServiceStationOptions {
  readonly name: string;
  /** μ, requests per second: the mean of the simulated work is 1/μ. */
  readonly capacity: number;
  /** m: the most requests in the system (working plus waiting); an integer ≥ 1. */
  readonly queue: number;
  /** Class names, highest first; a request with an unknown or missing class is the last one's. */
  readonly classes: readonly string[];
  /** What the service calls after its own work. */
  readonly program: CallProgram;
  /** The programs of the services it calls, to draw their endpoints (by name). */
  readonly childPrograms?: ReadonlyMap<string, CallProgram>;
  /** Service times and endpoint draws; seed it. */
  readonly random: RandomSource;
  /** Monotonic clock, ms; default `performance.now`. */
  readonly now?: () => number;
}

/** Options of a testbed service's front-end (`startService`, `startGrpcService`). */
export interface TestbedServiceOptions extends ServiceStationOptions {
  /** The class header (HTTP) or metadata key (gRPC); default `x-priority`. */
  readonly header?: string;
  /** Where the service's server spans go (HTTP front-end), when the testbed traces. */
  readonly tracing?: SidecarTracing;
}

/** Per-class counts, indexed like the service's classes. */
export type ClassCounts = readonly number[];

/** What a service counted in the measurement window. */
export interface ServiceWindowStats {
  readonly name: string;
  /** Length of the window, seconds. */
  readonly windowS: number;
  /** Attempts that reached the service, per class (accepted or not). */
  readonly arrivals: ClassCounts;
  /** Of those, attempts marked external (the load generator's, through the ingress). */
  readonly external: ClassCounts;
  /** Attempts turned away at admission (m present), answered at once (503, RESOURCE_EXHAUSTED). */
  readonly rejected: ClassCounts;
  /** Accepted attempts whose work was done but a call to a child failed (503, UNAVAILABLE). */
  readonly failed: ClassCounts;
  /** Accepted attempts answered with success (200, OK). */
  readonly succeeded: ClassCounts;
  /** Units of work finished in the window. */
  readonly jobs: number;
  /** Their real durations, summed, ms: the worker's busy time (what the capacity is). */
  readonly busyMs: number;
  /** The durations drawn for them, summed, ms (busyMs / drawnMs is the timers' stretch). */
  readonly drawnMs: number;
  /** Logical calls made to children (each retried by the downstream at its hop). */
  readonly calls: number;
}

/** A running testbed service, whatever it speaks. */
export interface TestbedService {
  readonly name: string;
  /** `http://127.0.0.1:PORT` (HTTP) or `grpc://127.0.0.1:PORT` (gRPC). */
  readonly url: string;
  /** Sets how the service calls its children (before any request needs one). */
  useDownstream(downstream: Downstream): void;
  /** Starts a measurement window: zeroes the counters, then counts. */
  startWindow(): void;
  /** What was counted since {@link startWindow} (the window runs on until the next one). */
  stats(): ServiceWindowStats;
  /** Requests in the system now (working plus waiting). */
  inSystem(): number;
  /** Stops listening, drops connections, cancels work in progress. */
  close(): Promise<void>;
}

/** One attempt as a front-end read it off the wire. */
export interface StationRequest {
  /** The class the attempt names (any case); missing or unknown: the lowest class. */
  readonly className: string | undefined;
  /** The endpoint (branch) it names; undefined: none. */
  readonly branch: string | undefined;
  /** Marked external (the load generator's). */
  readonly external: boolean;
  /** The request's trace context (its server span), passed on to its calls; when tracing. */
  readonly trace?: unknown;
}

/**
 * How an attempt ended: `ok` (work done, every call succeeded), `rejected` (m present at
 * admission, answered at once), `failed` (work done, a call to a child failed after its hop's
 * retries).
 */
export type StationOutcome = 'ok' | 'rejected' | 'failed';

/** An admitted attempt, as its front-end holds it. */
export interface StationTicket {
  /** It waits for the worker (its front-end should cancel it if the caller goes away). */
  readonly waiting: boolean;
  /** Gives its place back if it is still waiting (the caller went away); else nothing. */
  cancel(): void;
}

/** The transport-free station of a testbed service; its front-end reads requests and answers. */
export interface ServiceStation
  extends Pick<TestbedService, 'name' | 'useDownstream' | 'startWindow' | 'stats' | 'inSystem'> {
  /**
   * Offers one attempt: `answer` is called once with its outcome (at once for a rejection), never
   * after {@link close}.
   */
  offer(request: StationRequest, answer: (outcome: StationOutcome) => void): StationTicket;
  /** The class a request naming `className` is served as (unknown or missing: the lowest). */
  classOf(className: string | undefined): string;
  /** Cancels work in progress; no attempt is answered after it. */
  close(): void;
}

/**
 * A front-end's service over its station: the station's window, counts and downstream, the
 * front-end's address and shutdown (which closes the station first).
 */
export function stationService(
  station: ServiceStation,
  url: string,
  shutdown: () => Promise<void>,
): TestbedService {
  return {
    name: station.name,
    url,
    useDownstream: (downstream) => station.useDownstream(downstream),
    startWindow: () => station.startWindow(),
    stats: () => station.stats(),
    inSystem: () => station.inSystem(),
    close() {
      station.close();
      return shutdown();
    },
  };
}

/** A request inside the station: admitted, maybe waiting for the worker. */
interface Job {
  readonly classIndex: number;
  readonly branch: string | undefined;
  readonly trace: unknown;
  readonly answer: (outcome: StationOutcome) => void;
  started: boolean;
}

/**
 * The branch a request's path names: `/search` → `search` (percent-decoded, slashes trimmed, any
 * query dropped); `/` or empty → undefined (no branch). Both front-ends read it the same way.
 */
export function branchOfPath(path: string): string | undefined {
  const segment = (path.split('?')[0] as string).replace(/^\/+|\/+$/g, '');
  return segment === '' ? undefined : decodeURIComponent(segment);
}

const DONE: StationTicket = Object.freeze({ waiting: false, cancel: () => {} });

/**
 * The model's station of one testbed service, without a transport: admission
 * ({@link AdmissionGate} with c = 1, m = `queue`) in front of the service's **own work only**, a
 * timer of an exponentially distributed time with mean 1/μ:
 *
 * 1. an attempt that finds m requests in the system is answered `rejected` at once;
 * 2. otherwise it waits (FIFO) for the one worker, which "works" for the drawn time;
 * 3. the worker is released, and only then does the attempt make its calls to its children
 *    (through {@link Downstream}, which retries them at this hop);
 * 4. it is answered `ok` if every call succeeded, else `failed` — so its caller may retry it,
 *    re-running the subtree (nested retries).
 *
 * Time spent waiting for children is not counted by the admission: an attempt waiting on a child
 * holds no worker and no place among the m, exactly as the analysis's capacity is the service's
 * own work (docs/testbed.md, "Admission"). Every count of the window ({@link ServiceWindowStats})
 * is kept here, so the HTTP and gRPC front-ends measure the same thing.
 * @throws RangeError for a capacity that is not a positive number, or a bad `queue`.
 * @example
 * ```ts
 * const station = serviceStation({ name: 'geo', capacity: 50, queue: 50,
 *   classes: ['high', 'low'], program: { steps: [], branches: [] }, random: seededRandom(1) });
 * station.offer({ className: 'high', branch: undefined, external: false }, (outcome) => …);
 * ```
 */
export function serviceStation(options: Readonly<ServiceStationOptions>): ServiceStation {
  const { name, capacity, classes, program, random } = options;
  if (!(Number.isFinite(capacity) && capacity > 0)) {
    throw new InvalidArgumentError(
      `capacity of ${name} should be a positive number (requests/s), got ${capacity}`,
    );
  }
  const now = options.now ?? (() => performance.now());
  const childPrograms = options.childPrograms ?? new Map<string, CallProgram>();
  const gate = new AdmissionGate<Job>(1, options.queue);
  const meanMs = 1000 / capacity;
  const classIndex = new Map(classes.map((c, i) => [c.toLowerCase(), i]));
  const lowest = classes.length - 1;
  const zeros = () => classes.map(() => 0);

  let downstream: Downstream | undefined;
  let windowStart = now();
  let arrivals = zeros();
  let external = zeros();
  let rejected = zeros();
  let failed = zeros();
  let succeeded = zeros();
  let jobs = 0;
  let busyMs = 0;
  let drawnMs = 0;
  let calls = 0;
  let closed = false;
  const timers = new Set<NodeJS.Timeout>();

  const callChild = (className: string, trace: unknown) => (to: string) => {
    calls++;
    if (downstream === undefined) return Promise.resolve(false);
    const path = drawPath(childPrograms.get(to), random);
    return downstream.call(to, className, trace === undefined ? { path } : { path, trace });
  };

  const afterWork = async (job: Job) => {
    const className = classes[job.classIndex] as string;
    let ok: boolean;
    try {
      ok = await runProgram(program, className, job.branch, callChild(className, job.trace));
    } catch {
      ok = false;
    }
    if (closed) return;
    if (ok) succeeded[job.classIndex]++;
    else failed[job.classIndex]++;
    job.answer(ok ? 'ok' : 'failed');
  };

  const work = (job: Job) => {
    job.started = true;
    const started = now();
    // Inversion of the exponential law; Node's timers have whole-millisecond resolution, and a
    // busy event loop fires them late, so the real duration is measured, not assumed.
    const drawn = -meanMs * Math.log1p(-random());
    const timer = setTimeout(() => {
      timers.delete(timer);
      const ended = now();
      jobs++;
      busyMs += ended - started;
      drawnMs += drawn;
      const next = gate.leave();
      if (next !== undefined) work(next);
      void afterWork(job);
    }, drawn);
    timers.add(timer);
  };

  const indexOf = (className: string | undefined): number => {
    const value = className?.trim().toLowerCase();
    return (value === undefined ? undefined : classIndex.get(value)) ?? lowest;
  };

  return {
    name,
    classOf: (className) => classes[indexOf(className)] as string,
    offer(request, answer) {
      const p = indexOf(request.className);
      arrivals[p]++;
      if (request.external) external[p]++;
      const job: Job = {
        classIndex: p,
        branch: request.branch,
        trace: request.trace,
        answer,
        started: false,
      };
      const admission = gate.enter(job);
      if (admission === 'rejected') {
        rejected[p]++;
        answer('rejected');
        return DONE;
      }
      if (admission === 'run') {
        work(job);
        return DONE;
      }
      return {
        waiting: true,
        cancel: () => {
          if (!job.started) gate.cancel(job);
        },
      };
    },
    useDownstream(d) {
      downstream = d;
    },
    startWindow() {
      windowStart = now();
      arrivals = zeros();
      external = zeros();
      rejected = zeros();
      failed = zeros();
      succeeded = zeros();
      jobs = 0;
      busyMs = 0;
      drawnMs = 0;
      calls = 0;
    },
    stats: () => ({
      name,
      windowS: (now() - windowStart) / 1000,
      arrivals: [...arrivals],
      external: [...external],
      rejected: [...rejected],
      failed: [...failed],
      succeeded: [...succeeded],
      jobs,
      busyMs,
      drawnMs,
      calls,
    }),
    inSystem: () => gate.inSystem,
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
