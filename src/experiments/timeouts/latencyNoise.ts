import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../../model/random.js';
import { normalCdf } from '../../model/special.js';
import { standardNormal } from './standardNormal.js';

/** A multiplicative latency noise: attempt latency = scenario curve × one draw. */
export interface LatencyNoise {
  /** One draw, using `random` for every uniform it needs. */
  sample(random: RandomSource): number;
  /** P(noise ≤ x). */
  cdf(x: number): number;
  /** E[noise]. */
  readonly mean: number;
}

/** Options of {@link heavyTailedNoise}; defaults in {@link HEAVY_TAILED_NOISE_DEFAULTS}. */
export interface HeavyTailedNoiseOptions {
  /** σ of the lognormal body (median 1 before scaling). */
  readonly sigma?: number;
  /** Probability that a draw comes from the Pareto tail instead. */
  readonly tailProbability?: number;
  /** The Pareto tail's scale x_m (its smallest value, before scaling). */
  readonly tailScale?: number;
  /** The Pareto tail's index α (> 1, so the mean is finite; ≤ 2 would make the variance infinite). */
  readonly tailIndex?: number;
}

/**
 * The evaluation's defaults: a lognormal body with σ = 0.5, and one draw in twenty from a
 * Pareto tail with x_m = 4 and α = 2.5 (a slow path: a pause, a cache miss, a retransmission).
 */
export const HEAVY_TAILED_NOISE_DEFAULTS = {
  sigma: 0.5,
  tailProbability: 0.05,
  tailScale: 4,
  tailIndex: 2.5,
} as const;

/**
 * A heavy-tailed noise with mean exactly 1: the mixture M = LogNormal(0, σ²) with probability
 * 1 − p and Pareto(x_m, α) with probability p, divided by E[M] = (1 − p)·e^(σ²/2) + p·x_m·α/(α − 1).
 *
 * Scaling to mean 1 is what makes the Time Fraction's 1.00 an oracle: a client that knows the
 * curve and waits every attempt out spends, on average, exactly Σ curve. The price is a median
 * below 1 (≈ 0.73 with the defaults; 90th percentile ≈ 1.6, 99th ≈ 5.4, 99.9th ≈ 14): most attempts finish
 * faster than the curve, a few take several times longer, and cutting those short with a
 * timeout and a fresh attempt is what lets a strategy go below 1.00.
 * @throws RangeError naming a bad option.
 * @example
 * ```ts
 * const noise = heavyTailedNoise();
 * const latency = curve * noise.sample(seededRandom(7));
 * ```
 */
export function heavyTailedNoise(options: Readonly<HeavyTailedNoiseOptions> = {}): LatencyNoise {
  const sigma = options.sigma ?? HEAVY_TAILED_NOISE_DEFAULTS.sigma;
  const p = options.tailProbability ?? HEAVY_TAILED_NOISE_DEFAULTS.tailProbability;
  const xm = options.tailScale ?? HEAVY_TAILED_NOISE_DEFAULTS.tailScale;
  const alpha = options.tailIndex ?? HEAVY_TAILED_NOISE_DEFAULTS.tailIndex;
  if (!(Number.isFinite(sigma) && sigma >= 0)) {
    throw new InvalidArgumentError(`sigma should be a non-negative number, got ${sigma}`);
  }
  if (!(p >= 0 && p <= 1)) {
    throw new InvalidArgumentError(`tailProbability should be in [0, 1], got ${p}`);
  }
  if (!(Number.isFinite(xm) && xm > 0)) {
    throw new InvalidArgumentError(`tailScale should be a positive number, got ${xm}`);
  }
  if (!(Number.isFinite(alpha) && alpha > 1)) {
    throw new InvalidArgumentError(
      `tailIndex should be a number above 1 (a finite mean), got ${alpha}`,
    );
  }
  const rawMean = (1 - p) * Math.exp((sigma * sigma) / 2) + (p * xm * alpha) / (alpha - 1);
  return {
    mean: 1,
    sample(random) {
      const raw =
        random() < p
          ? xm * (1 - random()) ** (-1 / alpha)
          : Math.exp(sigma * standardNormal(random));
      return raw / rawMean;
    },
    cdf(x) {
      if (!(x > 0)) return 0;
      const raw = x * rawMean;
      const body = sigma === 0 ? (raw >= 1 ? 1 : 0) : normalCdf(Math.log(raw) / sigma);
      const tail = raw < xm ? 0 : 1 - (xm / raw) ** alpha;
      return (1 - p) * body + p * tail;
    },
  };
}

/** No noise: every attempt takes exactly the curve's latency (for hand-computable tests). */
export const noNoise: LatencyNoise = { mean: 1, sample: () => 1, cdf: (x) => (x >= 1 ? 1 : 0) };

/**
 * The noise of every attempt of a run, drawn up front: `noise(request, attempt)`. Attempt `a` of
 * request `i` gets the same draw whichever strategy runs, so strategies are compared on common
 * random numbers, and the live App2 can look its sleep up from the request and attempt numbers
 * it is sent. Draws are made request by request, attempt by attempt.
 */
export type AttemptNoise = (request: number, attempt: number) => number;

/**
 * Draws {@link AttemptNoise} for `requests` requests of at most `attempts` attempts each.
 * @throws RangeError on bad sizes, and when looked up outside them.
 */
export function attemptNoise(
  noise: LatencyNoise,
  options: { readonly requests: number; readonly attempts: number; readonly random: RandomSource },
): AttemptNoise {
  const { requests, attempts, random } = options;
  if (!(Number.isSafeInteger(requests) && requests >= 1)) {
    throw new InvalidArgumentError(`requests should be a positive integer, got ${requests}`);
  }
  if (!(Number.isSafeInteger(attempts) && attempts >= 1)) {
    throw new InvalidArgumentError(`attempts should be a positive integer, got ${attempts}`);
  }
  const table = new Float64Array(requests * attempts);
  for (let k = 0; k < table.length; k++) table[k] = noise.sample(random);
  return (request, attempt) => {
    const value =
      Number.isInteger(request) && Number.isInteger(attempt) && attempt >= 0 && attempt < attempts
        ? table[request * attempts + attempt]
        : undefined;
    if (value === undefined) {
      throw new InvalidArgumentError(
        `noise is drawn for requests [0, ${requests}) and attempts [0, ${attempts}), got (${request}, ${attempt})`,
      );
    }
    return value;
  };
}
