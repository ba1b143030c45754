/**
 * The runtime's overhead per successful call, against named peers measured in the same run:
 *
 * 1. `retry(fn, { policy })` against a direct `await fn()`, cockatiel's `retry(handleAll, …)` and
 *    `p-retry` (target: no slower than cockatiel), in ns per call; and against itself with
 *    `telemetry: false`, which skips the check for an OpenTelemetry SDK (issue 28's target: the
 *    check, with none registered, costs at most 5 %);
 * 2. `difftryInterceptor` (with a per-try timeout, as the sidecar runs it) against undici's own
 *    `interceptors.retry` and against no interceptor, on a dispatch that answers 200 at once (on a
 *    microtask, no socket), in ns per call: the interceptor's own cost per call;
 * 3. `difftryFetch` against plain `fetch` (keep-alive) to a loopback `node:http` server, in µs per
 *    request.
 *
 * Contenders are timed in alternating batches, so a drift of the machine's speed touches them
 * alike; each figure is the median of its batches, after a warm-up. On Node 20, once difftry's
 * request context (an `AsyncLocalStorage`) has run, every promise in the process pays its hooks,
 * the direct call included: all contenders are timed after that point.
 *
 * Run alone with `npx tsx bench/retry.ts`.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { retry as cockatielRetry, ExponentialBackoff, handleAll } from 'cockatiel';
import pRetry from 'p-retry';
import { type Dispatcher, interceptors } from 'undici';
import { retryPolicy } from '../src/policy/retry/RetryPolicy.js';
import { fixedTimeout } from '../src/policy/timeouts/TimeoutStrategy.js';
import { difftryFetch } from '../src/runtime/fetch.js';
import { retry } from '../src/runtime/retry.js';
import { difftryInterceptor } from '../src/runtime/undici.js';
import { median, report } from './harness.js';

/** Calls per timed batch of the in-process contenders, and timed batches per contender. */
const CALL_BATCH = 20_000;
const CALL_RUNS = 9;
/** Loopback requests: warm-up, then timed batches (2,000 requests per contender). */
const HTTP_WARMUP = 200;
const HTTP_BATCH = 400;
const HTTP_RUNS = 5;

/** A contender: performs `count` successful calls and returns the sum of their results. */
type Contender = (count: number) => Promise<number>;

/**
 * The median time per call of each contender, nanoseconds: `runs` rounds, each timing one batch
 * of every contender in a rotating order, after a warm-up batch each. Every batch must return
 * `expected(count)`, so no call can be skipped or optimised away.
 */
async function medianNanosPerCall(
  contenders: Readonly<Record<string, Contender>>,
  options: { batch: number; runs: number; warmup: number; expected: (count: number) => number },
): Promise<Record<string, number>> {
  const names = Object.keys(contenders);
  const samples = new Map<string, number[]>(names.map((name) => [name, []]));
  const check = (name: string, count: number, sum: number) => {
    if (sum !== options.expected(count)) {
      throw new Error(`${name}: checksum ${sum}, expected ${options.expected(count)}`);
    }
  };
  for (const name of names) {
    check(name, options.warmup, await (contenders[name] as Contender)(options.warmup));
  }
  for (let run = 0; run < options.runs; run++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(run + i) % names.length] as string;
      const start = process.hrtime.bigint();
      const sum = await (contenders[name] as Contender)(options.batch);
      const elapsed = Number(process.hrtime.bigint() - start);
      check(name, options.batch, sum);
      samples.get(name)?.push(elapsed / options.batch);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples.get(name) ?? [])]));
}

/** Per successful call: direct, difftry `retry()`, cockatiel and p-retry. */
export async function retryOverhead(): Promise<void> {
  let counter = 0;
  // The work: an async function returning a number, as a remote call's wrapper would be.
  const fn = async (): Promise<number> => counter++ & 0xff;
  // Each batch resets the counter, so its results sum to a known value.
  const expected = (count: number) => {
    let sum = 0;
    for (let i = 0; i < count; i++) sum += i & 0xff;
    return sum;
  };
  const policy = retryPolicy({ classes: { default: { retries: 5 } } });
  const cockatiel = cockatielRetry(handleAll, {
    maxAttempts: 5,
    backoff: new ExponentialBackoff(),
  });
  const loop =
    (call: () => Promise<number>): Contender =>
    async (count) => {
      counter = 0;
      let sum = 0;
      for (let i = 0; i < count; i++) sum += await call();
      return sum;
    };
  const settings = { batch: CALL_BATCH, runs: CALL_RUNS, warmup: CALL_BATCH, expected };
  // The three close contenders alternate; p-retry, some twenty times slower and far richer in
  // garbage, runs in rounds of its own, so that collecting its garbage never lands on their time.
  const ns = {
    ...(await medianNanosPerCall(
      {
        direct: loop(() => fn()),
        difftry: loop(() => retry(fn, { policy })),
        'difftry, telemetry off': loop(() => retry(fn, { policy, telemetry: false })),
        cockatiel: loop(() => cockatiel.execute(fn)),
      },
      settings,
    )),
    ...(await medianNanosPerCall({ 'p-retry': loop(() => pRetry(fn, { retries: 5 })) }, settings)),
  };
  const direct = ns.direct as number;
  const difftry = ns.difftry as number;
  const cockatielNs = ns.cockatiel as number;
  const telemetryOff = ns['difftry, telemetry off'] as number;
  const pRetryNs = ns['p-retry'] as number;
  const signed = (value: number): string => `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(0)}`;
  const line = (ns: number): string =>
    `${ns.toFixed(0).padStart(6)} ns/call  (${signed(ns - direct)} ns over direct)`;
  // Overheads below the noise of the timing make a meaningless ratio.
  const overheadRatio =
    cockatielNs - direct > 0.05 * direct
      ? `${((difftry - direct) / (cockatielNs - direct)).toFixed(2)}×`
      : 'n/a (cockatiel within noise of direct)';
  report(`Retry wrapper, successful call (median of ${CALL_RUNS} × ${CALL_BATCH} calls)`, [
    ['direct await fn()', `${direct.toFixed(0).padStart(6)} ns/call`],
    ['difftry retry(fn, { policy })', line(difftry)],
    ['peer: cockatiel retry(handleAll, 5 attempts)', line(cockatielNs)],
    ['peer: p-retry (retries: 5)', line(pRetryNs)],
    ['ratio difftry / cockatiel (≤ 1 is the target)', `${(difftry / cockatielNs).toFixed(2)}×`],
    ['ratio difftry / p-retry', `${(difftry / pRetryNs).toFixed(2)}×`],
    ['overhead ratio difftry / cockatiel', overheadRatio],
    ['difftry retry(fn, { policy, telemetry: false })', line(telemetryOff)],
    [
      'OpenTelemetry check, no SDK registered (≤ 5 % is the target)',
      `${signed(100 * (difftry / telemetryOff - 1))} % (${signed(difftry - telemetryOff)} ns/call)`,
    ],
  ]);
}

/** The controller the answering dispatch gives its handler. */
class InstantController implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

const OK_BODY = Buffer.from('ok');

/** A dispatch with no socket: answers every request 200 with a 2-byte body on a microtask. */
const instantDispatch: Dispatcher.Dispatch = (_opts, handler) => {
  const controller = new InstantController();
  handler.onRequestStart?.(controller, undefined);
  queueMicrotask(() => {
    handler.onResponseStart?.(controller, 200, { 'content-length': '2' }, 'OK');
    handler.onResponseData?.(controller, OK_BODY);
    handler.onResponseEnd?.(controller, {});
  });
  return true;
};

/** One call through `dispatch`: 1 if it was answered 200 with the whole body. */
function dispatchOnce(dispatch: Dispatcher.Dispatch): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let bytes = 0;
    dispatch(
      { origin: 'http://upstream', path: '/x', method: 'GET', headers: { 'x-priority': 'high' } },
      {
        // undici takes a handler for one of its new API only when it has onRequestStart.
        onRequestStart: () => {},
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          bytes += chunk.length;
        },
        onResponseEnd: () => resolve(status === 200 && bytes === 2 ? 1 : 0),
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}

/** Per call through an undici interceptor: none, difftry's, undici's own retry interceptor. */
async function interceptorOverhead(): Promise<void> {
  const difftry = difftryInterceptor({
    classes: { high: { retries: 5 }, low: { retries: 1 } },
    timeout: fixedTimeout(1000),
  })(instantDispatch);
  const undiciRetry = interceptors.retry({ maxRetries: 5 })(instantDispatch);
  const loop =
    (dispatch: Dispatcher.Dispatch): Contender =>
    async (count) => {
      let served = 0;
      for (let i = 0; i < count; i++) served += await dispatchOnce(dispatch);
      return served;
    };
  const ns = await medianNanosPerCall(
    { none: loop(instantDispatch), difftry: loop(difftry), undici: loop(undiciRetry) },
    { batch: CALL_BATCH, runs: CALL_RUNS, warmup: CALL_BATCH, expected: (count) => count },
  );
  const none = ns.none as number;
  const line = (value: number): string =>
    `${value.toFixed(0).padStart(6)} ns/call  (+${(value - none).toFixed(0)} ns over none)`;
  report(
    `undici interceptor, a dispatch answering 200 at once (median of ${CALL_RUNS} × ${CALL_BATCH} calls)`,
    [
      ['no interceptor', `${none.toFixed(0).padStart(6)} ns/call`],
      ['difftryInterceptor (classes, 1 s per-try timeout)', line(ns.difftry as number)],
      ['peer: undici interceptors.retry (maxRetries: 5)', line(ns.undici as number)],
      [
        'ratio difftry / undici retry',
        `${((ns.difftry as number) / (ns.undici as number)).toFixed(2)}×`,
      ],
      [
        'overhead ratio difftry / undici retry (≤ 1 is the target)',
        `${(((ns.difftry as number) - none) / ((ns.undici as number) - none)).toFixed(2)}×`,
      ],
    ],
  );
}

/** Per request to a loopback server: plain `fetch` and `difftryFetch` (same keep-alive pool). */
async function fetchOverhead(): Promise<void> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    response.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const fetchWithRetries = difftryFetch({
      classes: { high: { retries: 5 }, low: { retries: 1 } },
    });
    const loop =
      (call: (url: string) => Promise<Response>): Contender =>
      async (count) => {
        let served = 0;
        for (let i = 0; i < count; i++) {
          const response = await call(url);
          if (response.status === 200 && (await response.text()) === 'ok') served++;
        }
        return served;
      };
    const ns = await medianNanosPerCall(
      { fetch: loop((to) => fetch(to)), difftryFetch: loop((to) => fetchWithRetries(to)) },
      { batch: HTTP_BATCH, runs: HTTP_RUNS, warmup: HTTP_WARMUP, expected: (count) => count },
    );
    const plain = (ns.fetch as number) / 1000;
    const wrapped = (ns.difftryFetch as number) / 1000;
    report(
      `fetch to a loopback node:http server, 200 'ok' (median of ${HTTP_RUNS} × ${HTTP_BATCH} sequential requests)`,
      [
        ['peer: fetch (keep-alive)', `${plain.toFixed(1)} µs/request`],
        ['difftryFetch', `${wrapped.toFixed(1)} µs/request`],
        [
          'added by difftryFetch',
          `${wrapped < plain ? '−' : '+'}${Math.abs(wrapped - plain).toFixed(1)} µs/request`,
        ],
        ['ratio difftryFetch / fetch', `${(wrapped / plain).toFixed(2)}×`],
      ],
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** The runtime's overhead: retry wrappers and interceptors in process, and fetch over loopback. */
export async function run(): Promise<void> {
  await retryOverhead();
  await interceptorOverhead();
  await fetchOverhead();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
