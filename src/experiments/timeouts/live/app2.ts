import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError } from '../../../core/InvalidArgumentError.js';
import type { AttemptNoise } from '../latencyNoise.js';
import type { TimeoutScenario } from '../scenarios.js';

/** The response header in which App2 says how long it meant to sleep (real ms). */
export const SLEEP_HEADER = 'x-sleep-ms';

/** Options of {@link startApp2}. */
export interface App2Options {
  readonly scenario: TimeoutScenario;
  /** The noise of every attempt, looked up by the request and attempt numbers App1 sends. */
  readonly noise: AttemptNoise;
  /** Every latency is multiplied by this (0.1: ten times faster than the scenario); in (0, 1000]. */
  readonly timeScale: number;
}

/** A running App2. */
export interface App2 {
  /** Where App1 sends its attempts: `GET {url}?request=I&attempt=A`. */
  readonly url: string;
  /** Attempts answered in full so far. */
  answered(): number;
  /** Attempts App1 gave up on (closed before the answer) so far. */
  abandoned(): number;
  /** Stops listening and drops every connection (pending sleeps are cancelled). */
  close(): Promise<void>;
}

/**
 * App2, the server of the live timeout evaluation: a `node:http` service on 127.0.0.1, port 0,
 * that answers `GET /?request=I&attempt=A` with `200 ok` after sleeping
 * curve(I) × noise(I, A) × timeScale seconds, the same latency the virtual-time harness gives
 * that attempt. An attempt App1 abandons (its timeout fired) cancels the sleep. A malformed
 * request gets a 400.
 * @example
 * ```ts
 * const app2 = await startApp2({ scenario, noise, timeScale: 0.1 });
 * try { … } finally { await app2.close(); }
 * ```
 */
export async function startApp2(options: Readonly<App2Options>): Promise<App2> {
  const { scenario, noise, timeScale } = options;
  checkTimeScale(timeScale);
  let answered = 0;
  let abandoned = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const query = new URL(req.url ?? '/', 'http://app2').searchParams;
    const request = Number(query.get('request'));
    const attempt = Number(query.get('attempt'));
    let sleepMs: number;
    try {
      sleepMs = scenario.curve(request) * noise(request, attempt) * 1000 * timeScale;
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : String(error));
      return;
    }
    const timer = setTimeout(() => {
      answered++;
      res.writeHead(200, { 'content-type': 'text/plain', [SLEEP_HEADER]: String(sleepMs) });
      res.end('ok');
    }, sleepMs);
    res.on('close', () => {
      if (!res.writableFinished) {
        clearTimeout(timer);
        abandoned++;
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    answered: () => answered,
    abandoned: () => abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Checks a time scale: a finite number in (0, 1000]. */
export function checkTimeScale(timeScale: number): number {
  if (!(Number.isFinite(timeScale) && timeScale > 0 && timeScale <= 1000)) {
    throw new InvalidArgumentError(`timeScale should be a number in (0, 1000], got ${timeScale}`);
  }
  return timeScale;
}
