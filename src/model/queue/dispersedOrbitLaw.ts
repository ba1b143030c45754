import { mm1mQueueLaw } from '../phi/mm1m.js';
import { netCountVariance } from './netCountVariance.js';
import type { OrbitClass } from './OrbitClass.js';
import { mixAt, type OrbitMix } from './orbitMix.js';

/** What {@link dispersedOrbitLaw} needs of the service and of the orbit law's current pass. */
export interface DispersedOrbitInput {
  /** μ, completions per second. */
  readonly capacity: number;
  /** m, the most attempts in the system. */
  readonly queue: number;
  readonly classes: readonly OrbitClass[];
  /** f_p(L): the probability an attempt of class p arriving at L fails (1 at L = m). */
  readonly failAt: (p: number, L: number) => number;
  readonly mix: OrbitMix;
  /** N, the highest orbit level. */
  readonly levels: number;
}

/**
 * The orbit as a birth–death process over the queue at its stationary law given the level
 * (docs/model.md, "The dispersed orbit law"): at level n attempts arrive at
 * Λ(n) = Σ λ_p + n Σ v_p and the queue is M/M/1/m at Λ(n)/μ; the orbit's net count moves with
 * drift δ(n) (fresh failures with retries left, less retries that leave it, averaged over that
 * queue law) and variance rate σ²(n), larger than the Poisson b + d because failures come in
 * clusters while the queue is long. The birth–death chain with b = (σ² + δ)/2, d = (σ² − δ)/2
 * has both; π(n + 1)/π(n) = b(n)/d(n + 1). Returned as the chain's joint law would be,
 * π(n) P(L | n), so the figures read it alike, with the birth and death rates of each level
 * (for its passage times).
 */
export function dispersedOrbitLaw(input: DispersedOrbitInput): {
  pi: Float64Array[];
  births: Float64Array;
  deaths: Float64Array;
} {
  const { capacity: mu, queue: m, classes, failAt, mix, levels } = input;
  const classCount = classes.length;
  let freshTotal = 0;
  for (const entry of classes) freshTotal += Math.max(entry.arrivalRate, 0);
  const pi: Float64Array[] = [];
  const logLevel = new Float64Array(levels + 1);
  const births = new Float64Array(levels + 1);
  const deaths = new Float64Array(levels + 1);
  // Per queue length: the rates of the orbit's +1 events (a fresh failure with retries left),
  // its −1 events (a retry leaving) and of arrivals that change nothing in it.
  const upAt = new Float64Array(m + 1);
  const downAt = new Float64Array(m + 1);
  const idleAt = new Float64Array(m + 1);
  const jump = new Float64Array(m + 1);
  let birth = 0;
  for (let n = 0; n <= levels; n++) {
    const here = mixAt(mix, n);
    let perRequest = 0;
    for (let p = 0; p < classCount; p++) perRequest += here.rate[p] as number;
    const arrival = freshTotal + n * perRequest;
    const queueLaw = mm1mQueueLaw(arrival / mu, m);
    pi.push(queueLaw);
    for (let L = 0; L <= m; L++) {
      let up = 0;
      let down = 0;
      for (let p = 0; p < classCount; p++) {
        const entry = classes[p] as OrbitClass;
        const t = failAt(p, L);
        if (entry.retryLimit > 0 && entry.arrivalRate > 0) up += entry.arrivalRate * t;
        const last = here.last[p] as number;
        down += n * (here.rate[p] as number) * (1 - t + t * last);
      }
      upAt[L] = up;
      downAt[L] = down;
      idleAt[L] = Math.max(arrival - up - down, 0);
    }
    let drift = 0;
    let poisson = 0;
    for (let L = 0; L <= m; L++) {
      const w = queueLaw[L] as number;
      drift += w * ((upAt[L] as number) - (downAt[L] as number));
      poisson += w * ((upAt[L] as number) + (downAt[L] as number));
    }
    // At n = 0 nothing can leave: the chain only rises, at the drift, so Σ π(n) δ(n) = 0 holds
    // and the flows balance. Above, b and d are matched to the drift and the variance.
    let b = (poisson + drift) / 2;
    let d = (poisson - drift) / 2;
    if (n > 0) {
      const variance = netCountVariance(queueLaw, arrival, drift, upAt, downAt, idleAt, jump);
      b = Math.max((variance + drift) / 2, 0);
      d = Math.max((variance - drift) / 2, Number.MIN_VALUE);
    }
    if (n > 0) logLevel[n] = (logLevel[n - 1] as number) + Math.log(birth / d);
    birth = b;
    births[n] = b;
    if (n > 0) deaths[n] = d;
  }
  let peak = Number.NEGATIVE_INFINITY;
  for (const x of logLevel) peak = Math.max(peak, x);
  let total = 0;
  for (let n = 0; n <= levels; n++) total += Math.exp((logLevel[n] as number) - peak);
  for (let n = 0; n <= levels; n++) {
    const weight = Math.exp((logLevel[n] as number) - peak) / total;
    const level = pi[n] as Float64Array;
    for (let L = 0; L <= m; L++) level[L] = (level[L] as number) * weight;
  }
  return { pi, births, deaths };
}
