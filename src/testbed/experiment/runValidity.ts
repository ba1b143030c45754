/**
 * What the live Figure 5 (src/experiments/figure5/testbedFigure5.ts) and `difftry testbed run`
 * share at the testbed's level: when a run is a valid measurement, the default retry delay, and
 * the settings of a single run.
 */
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import { MIN_GAPS_FOR_VERDICT } from '../load/poissonCheck.js';
import type { TestbedMeasurement } from './measureTestbed.js';

/**
 * Why a run is not a valid measurement of the model's setting, or undefined when it is: its
 * precondition, open-loop Poisson arrivals, failed (a stream's achieved gaps failed the Poisson
 * check: the load generator's thread was held up and sent in bursts), or the services' event
 * loop stalled longer than `maxStallMs` (then every service stopped at once, a vacation the
 * M/M/1/m station does not have) — both happen when the machine is shared and busy — or a
 * request sent in the window was still unfinished when the drain's grace ran out (its outcome
 * is unknown, so the window's rejection is too).
 */
export function invalidRun(
  measurement: TestbedMeasurement,
  maxStallMs: number,
): string | undefined {
  // A stream too short to judge (fewer than MIN_GAPS_FOR_VERDICT gaps) does not count against it.
  const bursty = measurement.streams.filter(
    (s) => s.poisson.gaps >= MIN_GAPS_FOR_VERDICT && !s.poisson.poisson,
  );
  if (bursty.length > 0) {
    return `sends not Poisson (${bursty.map((s) => `${s.className}: ${s.poisson.verdict}`).join('; ')})`;
  }
  if (measurement.unfinished > 0) {
    return `${measurement.unfinished} request(s) sent in the window still unfinished after the ${measurement.graceS} s drain`;
  }
  const stall = measurement.eventLoopDelay.maxMs;
  if (stall > maxStallMs) {
    return `the services' event loop stalled for ${stall.toFixed(0)} ms (limit ${maxStallMs} ms)`;
  }
  return undefined;
}

/** The default retry delay: exponential with mean 500 ms, 35× the frontend's mean work at scale 0.5. */
export const TESTBED_BACKOFF: BackoffDescription = Object.freeze({ kind: 'random', meanMs: 500 });

/**
 * A single testbed run's settings when none are given (`difftry testbed run`, and the web UI's
 * Testbed view that starts one): rates × 0.5, 8 s warm-up, a 30 s window, seed 1.
 */
export const TESTBED_RUN_SETTINGS = Object.freeze({
  scale: 0.5,
  warmupS: 8,
  durationS: 30,
  seed: 1,
});
