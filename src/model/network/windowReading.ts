import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/**
 * What a dashboard's window of a class's requests reads, as a model: the requests that end in
 * one window are Poisson with mean `requests`; each fails with the window's own share r, which
 * scatters from window to window about the state's rejection R with variance `shareVariance`
 * (the state's give-up rate averaged over the window, over λ: `windowAverageVariance`) as a Beta
 * law of that mean and variance; so, given N requests, the failures are beta-binomial (binomial
 * where r does not scatter).
 */
export interface WindowReadingInput {
  /** Mean requests of the class ending in one window (λ times its length). */
  readonly requests: number;
  /** R: the state's share of the class's requests that fail. */
  readonly rejection: number;
  /** The variance of a window's own share about R (0: only the count's binomial scatter). */
  readonly shareVariance: number;
  /** The share a window is read against, e.g. 0.5. */
  readonly threshold: number;
}

/** The chance that one window reads each way (a window with no request reads neither). */
export interface WindowReading {
  /** P(N ≥ 1 and the window's failed share > threshold). */
  readonly above: number;
  /** P(N ≥ 1 and the window's failed share ≤ threshold). */
  readonly atOrBelow: number;
}

/** Poisson terms beyond the mean by this many standard deviations (and 10) are left out. */
const POISSON_SPAN = 9;

/**
 * The chance that one window reads above `threshold`, and at or below it (see
 * {@link WindowReadingInput}). The Beta law's spread is capped just below R(1 − R), the most a
 * share in [0, 1] can have.
 * @throws RangeError for negative requests or variance, or R or the threshold outside [0, 1].
 * @example
 * ```ts
 * // Ten requests a window on average, half of them failing, no scatter of the share.
 * windowReading({ requests: 10, rejection: 0.5, shareVariance: 0, threshold: 0.5 }).above;
 * ```
 */
export function windowReading(input: WindowReadingInput): WindowReading {
  const { requests, rejection, shareVariance, threshold } = input;
  if (!(requests >= 0) || !Number.isFinite(requests))
    throw new InvalidArgumentError(`requests per window should be finite and ≥ 0, got ${requests}`);
  if (!(rejection >= 0 && rejection <= 1))
    throw new InvalidArgumentError(`the rejection should be in [0, 1], got ${rejection}`);
  if (!(shareVariance >= 0))
    throw new InvalidArgumentError(`the variance should be ≥ 0, got ${shareVariance}`);
  if (!(threshold >= 0 && threshold <= 1))
    throw new InvalidArgumentError(`the threshold should be in [0, 1], got ${threshold}`);
  const last = Math.ceil(requests + POISSON_SPAN * Math.sqrt(requests) + 10);
  let above = 0;
  let some = 0;
  // Poisson weights by recurrence in logs (no underflow of e^(−ν) for large ν).
  let logWeight = -requests;
  for (let n = 1; n <= last; n++) {
    logWeight += Math.log(requests) - Math.log(n);
    const weight = Math.exp(logWeight);
    if (weight === 0) continue;
    some += weight;
    above += weight * shareAbove(n, rejection, shareVariance, threshold);
  }
  // The Poisson weights sum to 1 − e^(−ν) but for rounding, which must not push a chance past 1.
  const reading = Math.min(Math.max(some, 0), 1);
  const high = Math.min(Math.max(above, 0), reading);
  return { above: high, atOrBelow: reading - high };
}

/**
 * P(X > t n) for X of n requests failing with a share ~ Beta(mean R, variance v) (binomial for
 * v = 0), by the mass function's recurrence in logs from x = 0; read on the side of the smaller
 * share (X' = n − X, share 1 − R) so that the start is never lost to underflow.
 */
function shareAbove(n: number, rejection: number, variance: number, threshold: number): number {
  if (rejection === 0) return 0 > threshold * n ? 1 : 0;
  if (rejection === 1) return n > threshold * n ? 1 : 0;
  const flip = rejection > 0.5;
  const r = flip ? 1 - rejection : rejection;
  // X > t n ⇔ X' < (1 − t) n.
  const counts = (x: number) => (flip ? x < (1 - threshold) * n : x > threshold * n);
  const spread = r * (1 - r);
  const beta = variance > 0 ? Math.min(variance, 0.999 * spread) : 0;
  let logP: number;
  let step: (x: number) => number;
  if (beta > 0) {
    // Beta(a, b) with mean r and variance beta: a + b = r(1 − r)/beta − 1.
    const total = spread / beta - 1;
    const a = r * total;
    const b = (1 - r) * total;
    logP = 0;
    for (let i = 0; i < n; i++) logP += Math.log((b + i) / (a + b + i));
    step = (x) => Math.log(((n - x) / (x + 1)) * ((x + a) / (n - x - 1 + b)));
  } else {
    logP = n * Math.log1p(-r);
    const odds = Math.log(r / (1 - r));
    step = (x) => Math.log((n - x) / (x + 1)) + odds;
  }
  let sum = 0;
  for (let x = 0; x <= n; x++) {
    if (counts(x)) sum += Math.exp(logP);
    if (x < n) logP += step(x);
  }
  return Math.min(Math.max(sum, 0), 1);
}
