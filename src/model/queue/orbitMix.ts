import type { OrbitClass } from './OrbitClass.js';

/** The orbit's mix: per request in it, each class's retry rate, and the chance a retry is last. */
export interface OrbitMix {
  readonly rate: Float64Array;
  readonly last: Float64Array;
  /**
   * Per orbit level n, the mix of the requests in the orbit when it holds n (see
   * {@link levelMixes}); levels past its end take its last, and without it every level takes
   * the mean mix above.
   */
  readonly byLevel?: readonly { readonly rate: Float64Array; readonly last: Float64Array }[];
}

/** The mix at orbit level n (see {@link OrbitMix.byLevel}). */
export function mixAt(
  mix: OrbitMix,
  n: number,
): { readonly rate: Float64Array; readonly last: Float64Array } {
  const byLevel = mix.byLevel;
  if (byLevel === undefined || byLevel.length === 0) return mix;
  return byLevel[Math.min(n, byLevel.length - 1)] as OrbitMix;
}

/**
 * The orbit's mean mix from the failure probabilities of fresh attempts and retries: requests
 * enter the orbit with r retries used (r = 1 … k_p) at rate λ_p F0 Fr^(r−1) and stay d_p,r there
 * (Little), so class p holds λ_p F0 Σ_r Fr^(r−1) d_p,r of it, and sends retries at
 * λ_p F0 Σ_r Fr^(r−1) per second, of which the share Fr^(k−1) / Σ_r Fr^(r−1) are last tries.
 * Per request in the orbit: class p's retry rate is its retries per second over the orbit's
 * mean population.
 */
export function orbitMix(
  classes: readonly OrbitClass[],
  freshFail: Float64Array,
  retryFail: Float64Array,
): OrbitMix {
  const retries = new Float64Array(classes.length);
  const last = new Float64Array(classes.length);
  let population = 0;
  classes.forEach((entry, p) => {
    const k = entry.retryLimit;
    if (k === 0 || entry.arrivalRate <= 0) return;
    const fr = retryFail[p] as number;
    // At least a sliver of every class that can retry, so its rate is defined from the start.
    const entering = entry.arrivalRate * Math.max(freshFail[p] as number, 1e-12);
    let sent = 0;
    let held = 0;
    let term = 1;
    for (let r = 1; r <= k; r++) {
      sent += term;
      held += term * backoffOf(entry, r);
      if (r === k) last[p] = term;
      term *= fr;
    }
    last[p] = (last[p] as number) / sent;
    retries[p] = entering * sent;
    population += entering * held;
  });
  const rate = new Float64Array(classes.length);
  if (population > 0)
    for (let p = 0; p < classes.length; p++) rate[p] = (retries[p] as number) / population;
  return { rate, last };
}

/** d_p,r: the mean backoff before class p's retry r, seconds. */
export function backoffOf(entry: OrbitClass, r: number): number {
  const given = entry.meanBackoff;
  if (typeof given === 'number') return given;
  return given[Math.min(r, given.length) - 1] as number;
}
