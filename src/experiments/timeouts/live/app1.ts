import { errors, Pool } from 'undici';
import type { Clock } from '../../../policy/Clock.js';
import type { TimeoutStrategy } from '../../../policy/timeouts/TimeoutStrategy.js';
import {
  attemptTimeoutMs,
  checkMaxAttempts,
  DEFAULT_MAX_ATTEMPTS,
  startRequest,
} from '../attemptPlan.js';
import { CompensatedSum } from '../CompensatedSum.js';
import { recomputeTimeMs } from '../recomputeTime.js';
import type { TimeoutScenario } from '../scenarios.js';
import { type TimeoutEvaluation, TimeoutTally } from '../TimeoutTally.js';
import { checkTimeScale, SLEEP_HEADER } from './app2.js';

/** A live evaluation: the virtual one's figures, and what the transport added to them. */
export interface LiveTimeoutEvaluation extends TimeoutEvaluation {
  /**
   * Mean real ms per attempt of the measured requests beyond the designed time (App2's sleep
   * for an answered attempt, the timeout for a timed-out one): loopback HTTP, timer lateness,
   * reconnecting after an abort, the strategy's own computing, event-loop contention.
   */
  readonly overheadMs: number;
  /**
   * That overhead in Time Fraction: Σ overhead (scenario time) / Σ curve. `timeFraction −
   * overheadFraction` is what the strategy's live decisions cost by design.
   */
  readonly overheadFraction: number;
}

/** Options of {@link runApp1}. */
export interface App1Options {
  /** App2's URL ({@link App2.url}). */
  readonly url: string;
  readonly scenario: TimeoutScenario;
  /** A fresh strategy; it thinks in the scenario's own (unscaled) milliseconds. */
  readonly strategy: TimeoutStrategy;
  /** App2's time scale: real time = scenario time × timeScale. */
  readonly timeScale: number;
  /** Attempts per request, the last without a timeout; default 20. */
  readonly maxAttempts?: number;
  /** The real clock measuring attempts, ms; default `performance.now`. */
  readonly now?: Clock;
  /** Called with the fraction of requests done after each request. */
  readonly onProgress?: (fraction: number) => void;
}

/**
 * App1, the client of the live timeout evaluation: sends the scenario's requests to App2 one
 * after another, each attempt a real HTTP request with its own `AbortSignal` that a real timer
 * fires at the attempt's timeout; the rules are the virtual harness's (`evaluateTimeouts`): the
 * next attempt starts at once after a timeout, a diagnostic request's first attempt and the
 * last attempt allowed run without a timeout.
 *
 * The strategy lives in scenario time: its timeouts are scaled down by `timeScale` before they
 * are armed, and the latencies it observes scaled back up, so one configuration serves every
 * time scale. The figures returned are in scenario time as well (total time = real time /
 * timeScale), so they compare with the virtual run's; what the loopback, HTTP and timers add
 * shows up in them.
 * @throws Error when App2 answers anything but 200, or an attempt fails other than by its timeout.
 */
export async function runApp1(options: Readonly<App1Options>): Promise<LiveTimeoutEvaluation> {
  const { url, scenario, strategy, onProgress } = options;
  const timeScale = checkTimeScale(options.timeScale);
  const maxAttempts = checkMaxAttempts(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const now = options.now ?? (() => performance.now());
  const pool = new Pool(new URL(url).origin, { connections: 4, pipelining: 1 });
  const tally = new TimeoutTally(scenario.name);
  const overheadMs = new CompensatedSum();
  let recomputeAtStart: number | undefined;
  try {
    for (let request = 0; request < scenario.requests; request++) {
      const measured = request >= scenario.initRequests;
      if (request === scenario.initRequests) recomputeAtStart = recomputeTimeMs(strategy);
      const requestStarted = now();
      let designedMs = 0;
      const { diagnostic, timeouts } = startRequest(strategy);
      for (let attempt = 0; ; attempt++) {
        const timeoutMs = attemptTimeoutMs(timeouts, attempt, { diagnostic, maxAttempts });
        const answer = await sendAttempt(pool, url, request, attempt, timeoutMs, timeScale, now);
        const timedOut = answer === undefined;
        const latencyMs = timedOut ? Number.NaN : answer.realMs / timeScale;
        designedMs += timedOut ? (timeoutMs as number) * timeScale : answer.sleepMs;
        if (measured) tally.attempt(timeoutMs, timedOut, latencyMs);
        if (timedOut) {
          // Censored at the timeout, as in virtual time; the timer's lateness is in the total.
          timeouts.observe('timeout', timeoutMs as number);
          continue;
        }
        timeouts.observe('success', latencyMs);
        if (measured) {
          const elapsedMs = now() - requestStarted;
          overheadMs.add(elapsedMs - designedMs);
          tally.request(elapsedMs / timeScale, scenario.curve(request), {
            diagnostic,
            capped: timeoutMs === undefined && !(diagnostic && attempt === 0),
          });
        }
        break;
      }
      onProgress?.((request + 1) / scenario.requests);
    }
  } finally {
    await pool.destroy();
  }
  const recomputeAtEnd = recomputeTimeMs(strategy);
  const result = tally.result(
    recomputeAtEnd === undefined ? undefined : recomputeAtEnd - (recomputeAtStart ?? 0),
  );
  return {
    ...result,
    overheadMs: overheadMs.value / result.attempts,
    overheadFraction: overheadMs.value / timeScale / 1000 / result.curveIntegralS,
  };
}

/**
 * One attempt: its real latency and App2's designed sleep (ms), or `undefined` when its timeout
 * (scenario ms, scaled here) fired first.
 */
async function sendAttempt(
  pool: Pool,
  url: string,
  request: number,
  attempt: number,
  timeoutMs: number | undefined,
  timeScale: number,
  now: Clock,
): Promise<{ realMs: number; sleepMs: number } | undefined> {
  const abort = new AbortController();
  const timer =
    timeoutMs === undefined ? undefined : setTimeout(() => abort.abort(), timeoutMs * timeScale);
  const started = now();
  try {
    const response = await pool.request({
      method: 'GET',
      path: `${new URL(url).pathname}?request=${request}&attempt=${attempt}`,
      signal: abort.signal,
    });
    const body = await response.body.text();
    if (response.statusCode !== 200) {
      throw new Error(
        `App2 answered ${response.statusCode} to request ${request}, attempt ${attempt}: ${body}`,
      );
    }
    return { realMs: now() - started, sleepMs: Number(response.headers[SLEEP_HEADER]) };
  } catch (error) {
    if (abort.signal.aborted && (error instanceof errors.RequestAbortedError || isAbort(error))) {
      return undefined;
    }
    throw new Error(`request ${request}, attempt ${attempt} to App2 failed`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function isAbort(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'RequestAbortedError')
  );
}
