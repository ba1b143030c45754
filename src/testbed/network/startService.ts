import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { startServerSpan } from '../../mesh/serverSpan.js';
import { EXTERNAL_HEADER } from './Downstream.js';
import { listenOnLoopback } from './listenOnLoopback.js';
import {
  branchOfPath,
  type StationOutcome,
  serviceStation,
  stationService,
  type TestbedService,
  type TestbedServiceOptions,
} from './serviceStation.js';

export type {
  ClassCounts,
  ServiceWindowStats,
  TestbedService,
  TestbedServiceOptions,
} from './serviceStation.js';

/** The HTTP answer of each outcome: status and reason (also sent as `x-testbed-reason`). */
const ANSWERS: Readonly<Record<StationOutcome, readonly [number, string]>> = {
  ok: [200, 'ok'],
  rejected: [503, 'admission'],
  failed: [503, 'call failed'],
};

/**
 * One testbed service over HTTP: a `node:http` server on 127.0.0.1 (port 0) in front of the
 * model's station ({@link serviceStation}: admission with c = 1 and m = `queue` around the
 * service's own work, a timer of mean 1/μ, then the calls to its children through its
 * {@link Downstream}). `GET /BRANCH` with the class header `x-priority`: a request that finds m
 * present is answered 503 at once (`x-testbed-reason: admission`); after the work, 200 if every
 * call succeeded, else 503 (`call failed`) — so its caller may retry it, re-running the subtree.
 * A waiting request whose caller goes away gives its place back.
 * @example
 * ```ts
 * const service = await startService({ name: 'geo', capacity: 50, queue: 50,
 *   classes: ['high', 'low'], program: { steps: [], branches: [] }, random: seededRandom(1) });
 * ```
 */
export async function startService(
  options: Readonly<TestbedServiceOptions>,
): Promise<TestbedService> {
  const station = serviceStation(options);
  const header = (options.header ?? 'x-priority').toLowerCase();

  const reply = (res: ServerResponse, outcome: StationOutcome) => {
    if (res.writableEnded || res.destroyed) return;
    const [status, reason] = ANSWERS[outcome];
    res.writeHead(status, { 'content-type': 'text/plain', 'x-testbed-reason': reason });
    res.end(reason);
  };

  const { tracing } = options;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const raw = req.headers[header];
    const className = Array.isArray(raw) ? raw[0] : raw;
    // Traced: a server span from arrival to answer, a child of the caller's attempt.
    const span =
      tracing === undefined
        ? undefined
        : startServerSpan(
            tracing,
            req.method ?? 'GET',
            req.url ?? '/',
            station.classOf(className),
            req.headers,
          );
    const ticket = station.offer(
      {
        className,
        branch: branchOfPath(req.url ?? '/'),
        external: req.headers[EXTERNAL_HEADER] !== undefined,
        ...(span === undefined ? {} : { trace: span.context }),
      },
      (outcome) => {
        span?.end(ANSWERS[outcome][0], outcome === 'rejected');
        reply(res, outcome);
      },
    );
    // Waiting: if the caller goes away first, give its place back.
    if (ticket.waiting) res.once('close', () => ticket.cancel());
  });
  const url = await listenOnLoopback(server);

  return stationService(
    station,
    url,
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
}
