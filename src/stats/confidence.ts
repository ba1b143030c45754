import { InvalidArgumentError } from '../core/InvalidArgumentError.js';

/**
 * Two-sided 95 % Student-t quantiles t_{0.975, df} for df = 1..30, to 7 decimals
 * (the published table; e.g. NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2).
 */
const T_975: readonly number[] = [
  12.7062047, 4.3026527, 3.1824463, 2.7764451, 2.5705818, 2.4469119, 2.3646243, 2.3060041,
  2.2621572, 2.2281389, 2.2009852, 2.1788128, 2.1603687, 2.1447867, 2.1314495, 2.1199053, 2.1098156,
  2.100922, 2.0930241, 2.0859634, 2.0796138, 2.0738731, 2.0686576, 2.0638986, 2.0595386, 2.0555294,
  2.0518305, 2.0484071, 2.0452296, 2.0422725,
];

/** z_{0.975}, the standard normal 97.5 % quantile. */
const Z_975 = 1.959963984540054;

/**
 * The 97.5 % quantile of Student's t distribution with `df` degrees of freedom: the factor of a
 * two-sided 95 % confidence interval.
 *
 * df ≤ 30 reads the published table; beyond, the Cornish–Fisher expansion of t in powers of 1/df
 * (four terms), whose error is below 3·10⁻⁸ for df > 30.
 * @see Abramowitz & Stegun, Handbook of Mathematical Functions, 26.7.5.
 * @param df - degrees of freedom, an integer ≥ 1.
 * @throws RangeError when `df` is not an integer ≥ 1.
 * @example
 * ```ts
 * studentT975(10); // 2.2281389
 * ```
 */
export function studentT975(df: number): number {
  if (!(Number.isInteger(df) && df >= 1)) {
    throw new InvalidArgumentError(`degrees of freedom should be an integer ≥ 1, got ${df}`);
  }
  if (df <= T_975.length) return T_975[df - 1] as number;
  const z = Z_975;
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  const v = 1 / df;
  return z + v * (g1 + v * (g2 + v * (g3 + v * g4)));
}

/** A sample mean and the half-width of its 95 % confidence interval. */
export interface MeanWithCi95 {
  /** Arithmetic mean; NaN for no values. */
  readonly mean: number;
  /**
   * Half-width of the two-sided 95 % Student-t confidence interval of the mean,
   * t_{0.975, n−1} · sd / √n. NaN when there are fewer than two values: one value says nothing
   * about the spread, and NaN (which JSON prints as `null`) does not pretend otherwise.
   */
  readonly ci95: number;
}

/**
 * Mean of independent, identically distributed estimates (e.g. one per replication) with the
 * half-width of its 95 % confidence interval. A NaN among the values makes both NaN.
 * @example
 * ```ts
 * meanWithCi95([0.2, 0.22, 0.21]); // { mean: 0.21, ci95: 0.0248… }
 * ```
 */
export function meanWithCi95(values: readonly number[]): MeanWithCi95 {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, ci95: Number.NaN };
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / n;
  if (n === 1) return { mean, ci95: Number.NaN };
  // Two passes: the squared deviations from the mean avoid the cancellation of Σx² − n·mean².
  let squares = 0;
  for (const value of values) squares += (value - mean) * (value - mean);
  const standardError = Math.sqrt(squares / (n - 1) / n);
  return { mean, ci95: studentT975(n - 1) * standardError };
}
