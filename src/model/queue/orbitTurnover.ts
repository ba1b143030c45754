import type { OrbitClass } from './OrbitClass.js';
import { backoffOf } from './orbitMix.js';

/**
 * A healthy state of the orbit law is one the service stays in for at least this many of its
 * orbit's turnovers ({@link orbitTurnover}). The stationary law of a state describes it only
 * where its requests come and go many times over before it ends: a well left sooner is part of
 * the passage to the storm, not a state (the dispersed law, which holds the queue
 * at its stationary law for each orbit level, shows such shallow wells at level 0 above the load
 * where the joint chain has none: at μ = 100, m = 50, k = 5, μT = 10, backoffs of 100 ms, 80/s
 * is left within 0.86 s, 1.7 turnovers).
 */
export const MIN_TURNOVERS = 5;

/**
 * The orbit's turnover time, seconds: the longest a request of any class that retries spends
 * waiting to retry if it uses every retry (Σ_{r ≤ k} mean backoff before retry r), over the
 * classes with arrivals; 0 where none retries.
 */
export function orbitTurnover(classes: readonly OrbitClass[]): number {
  let longest = 0;
  for (const entry of classes) {
    if (!(entry.arrivalRate > 0)) continue;
    let wait = 0;
    for (let r = 1; r <= entry.retryLimit; r++) wait += backoffOf(entry, r);
    longest = Math.max(longest, wait);
  }
  return longest;
}

/**
 * Whether a state left after `escapeTime` seconds on average lasts long enough to be one (at
 * least {@link MIN_TURNOVERS} turnovers); a state with no escape time known is kept.
 */
export function lastsAsState(escapeTime: number | undefined, turnover: number): boolean {
  return escapeTime === undefined || escapeTime >= MIN_TURNOVERS * turnover;
}
