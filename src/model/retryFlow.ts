/**
 * What a retry limit does to one class's flow at one service, given the attempt-rejection
 * probability s there.
 *
 * With independent attempts (docs/design.md, "One service"): attempts per original request
 * Σ_{j=0..k} s^j = (1 − s^(k+1))/(1 − s) and rejection R = s^(k+1).
 *
 * With the residual-time correction each retry j is rejected with s_r,j = (1 − α_j) + α_j s, so
 * attempts per request = 1 + s (1 + s_r,1 + s_r,1 s_r,2 + … + Π_{i<k} s_r,i) and
 * R = s Π_{i≤k} s_r,i. With one α for every retry this is docs/design.md's
 * Λ = λ (1 + s Σ_{j<k} s_r^j), R = s s_r^k; α = 1 gives back the independent model.
 */
export interface RetryFlow {
  /** Expected attempts per original request, ≥ 1. */
  readonly attemptsPerRequest: number;
  /** Probability that every attempt is rejected. */
  readonly rejection: number;
}

/**
 * Attempts per request and rejection of a class with retry limit `retryLimit` at a service whose
 * attempts are rejected with probability `s`.
 * @param residualAlphas - α_j for retries j = 1..k (see {@link residualAlpha}); a shorter array
 *   repeats its last element; omitted or empty means the independent model.
 */
export function retryFlow(
  s: number,
  retryLimit: number,
  residualAlphas?: readonly number[],
): RetryFlow {
  // reach = P(attempt a happens); attempt a is rejected with q(a) given that it happens.
  let reach = 1;
  let attempts = 1;
  for (let a = 0; a < retryLimit; a++) {
    reach *= attemptRejection(s, a, residualAlphas);
    attempts += reach;
  }
  return {
    attemptsPerRequest: attempts,
    rejection: reach * attemptRejection(s, retryLimit, residualAlphas),
  };
}

/**
 * Expected attempts per original request alone (the fixed-point solver's hot path: no
 * allocation). Same law as {@link retryFlow}.
 */
export function attemptsPerRequest(
  s: number,
  retryLimit: number,
  residualAlphas?: readonly number[],
): number {
  let reach = 1;
  let attempts = 1;
  for (let a = 0; a < retryLimit; a++) {
    reach *= attemptRejection(s, a, residualAlphas);
    attempts += reach;
  }
  return attempts;
}

/**
 * P(attempt a is rejected | it happens): s for the original (a = 0), and for retry a ≥ 1
 * s_r,a = (1 − α_a) + α_a s.
 */
function attemptRejection(s: number, a: number, residualAlphas?: readonly number[]): number {
  if (a === 0 || residualAlphas === undefined || residualAlphas.length === 0) return s;
  const alpha = residualAlphas[Math.min(a - 1, residualAlphas.length - 1)] ?? 1;
  return 1 - alpha + alpha * s;
}

/**
 * {@link retryFlow} of the independent model (no residual-time correction) for every retry limit
 * 0 … `maxLimit` at once, written into tables: `attempts[k]` is the attempts per request and
 * `rejection[k]` (when given) the rejection of a class with limit k. No allocation, and one pass
 * where per-class calls would repeat the same products: the routing solver's inner loop. Bit for
 * bit what `retryFlow(s, k)` gives, since it forms the same products and sums in the same order.
 * @param attempts - at least `maxLimit + 1` long; so is `rejection`.
 */
export function independentRetryFlows(
  s: number,
  maxLimit: number,
  attempts: Float64Array,
  rejection?: Float64Array,
): void {
  // reach = s^k, the probability that attempt k happens; attempts = 1 + s + … + s^k.
  let reach = 1;
  let total = 1;
  for (let k = 0; ; k++) {
    attempts[k] = total;
    const next = reach * s;
    if (rejection !== undefined) rejection[k] = next;
    if (k >= maxLimit) return;
    reach = next;
    total += reach;
  }
}
