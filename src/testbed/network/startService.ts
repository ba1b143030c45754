import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { AdmissionGate } from '../../mesh/AdmissionGate.js';
import type { RandomSource } from '../../model/random.js';
import { type CallProgram, drawPath, runProgram } from './callProgram.js';
import { type Downstream, EXTERNAL_HEADER } from './Downstream.js';
import { listenOnLoopback } from './listenOnLoopback.js';

/** Options of {@link startService}. */
export interface TestbedServiceOptions {
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
  /** The class header; default `x-priority`. */
  readonly header?: string;
  /** Monotonic clock, ms; default `performance.now`. */
  readonly now?: () => number;
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
  /** Attempts turned away at admission (m present), answered 503 at once. */
  readonly rejected: ClassCounts;
  /** Accepted attempts whose work was done but a call to a child failed (answered 503). */
  readonly failed: ClassCounts;
  /** Accepted attempts answered 200. */
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

/** A running testbed service. */
export interface TestbedService {
  readonly name: string;
  /** `http://127.0.0.1:PORT` */
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

/** A request inside the service: admitted, maybe waiting for the worker. */
interface Job {
  readonly classIndex: number;
  readonly branch: string | undefined;
  readonly res: ServerResponse;
  started: boolean;
}

/**
 * One testbed service: a `node:http` server on 127.0.0.1 (port 0) whose handler is the model's
 * station — admission ({@link AdmissionGate} with c = 1, m = `queue`) in front of the service's
 * **own work only**, a timer of an exponentially distributed time with mean 1/μ:
 *
 * 1. a request that finds m requests in the system is answered 503 at once;
 * 2. otherwise it waits (FIFO) for the one worker, which "works" for the drawn time;
 * 3. the worker is released, and only then does the request make its calls to its children
 *    (through {@link Downstream}, which retries them at this hop);
 * 4. it answers 200 if every call succeeded, else 503 — so its caller may retry it, re-running
 *    the subtree (nested retries).
 *
 * Time spent waiting for children is not counted by the admission: a request waiting on a child
 * holds no worker and no place among the m, exactly as the analysis's capacity is the service's
 * own work (docs/testbed.md, "Admission").
 * @example
 * ```ts
 * const service = await startService({ name: 'geo', capacity: 50, queue: 50,
 *   classes: ['high', 'low'], program: { steps: [], branches: [] }, random: seededRandom(1) });
 * ```
 */
export async function startService(
  options: Readonly<TestbedServiceOptions>,
): Promise<TestbedService> {
  const { name, capacity, classes, program, random } = options;
  if (!(Number.isFinite(capacity) && capacity > 0)) {
    throw new RangeError(
      `capacity of ${name} should be a positive number (requests/s), got ${capacity}`,
    );
  }
  const header = (options.header ?? 'x-priority').toLowerCase();
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

  const reply = (res: ServerResponse, status: number, reason: string) => {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'text/plain', 'x-testbed-reason': reason });
    res.end(reason);
  };

  const callChild = (className: string) => (to: string) => {
    calls++;
    if (downstream === undefined) return Promise.resolve(false);
    return downstream.call(to, className, { path: drawPath(childPrograms.get(to), random) });
  };

  const afterWork = async (job: Job) => {
    const className = classes[job.classIndex] as string;
    let ok: boolean;
    try {
      ok = await runProgram(program, className, job.branch, callChild(className));
    } catch {
      ok = false;
    }
    if (closed) return;
    if (ok) succeeded[job.classIndex]++;
    else failed[job.classIndex]++;
    reply(job.res, ok ? 200 : 503, ok ? 'ok' : 'call failed');
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

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const raw = req.headers[header];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
    const p = (value === undefined ? undefined : classIndex.get(value)) ?? lowest;
    arrivals[p]++;
    if (req.headers[EXTERNAL_HEADER] !== undefined) external[p]++;
    const path = (req.url ?? '/').split('?')[0] as string;
    const segment = path.replace(/^\/+|\/+$/g, '');
    const job: Job = {
      classIndex: p,
      branch: segment === '' ? undefined : decodeURIComponent(segment),
      res,
      started: false,
    };
    const admission = gate.enter(job);
    if (admission === 'rejected') {
      rejected[p]++;
      reply(res, 503, 'admission');
      return;
    }
    if (admission === 'run') {
      work(job);
      return;
    }
    // Waiting: if the caller goes away first, give its place back.
    res.once('close', () => {
      if (!job.started) gate.cancel(job);
    });
  });
  const url = await listenOnLoopback(server);

  return {
    name,
    url,
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
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
