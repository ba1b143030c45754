/**
 * Special functions used by the distributions. Hand-written because the model needs only these
 * few, to near machine precision.
 */

/**
 * The complementary error function erfc(x) = 1 − erf(x), accurate to about 1e-15 relative.
 *
 * Uses the Maclaurin series of erf for |x| < 0.5 (where erfc > 0.47, so 1 − erf loses nothing)
 * and a continued fraction (modified Lentz) beyond, where the series would lose digits to
 * cancellation.
 * @see Abramowitz & Stegun 7.1.5 (series) and 7.1.14 (continued fraction).
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 0.5) return 1 - erfSeries(x);
  if (x > 27) return 0;
  return erfcContinuedFraction(x);
}

function erfSeries(x: number): number {
  // erf(x) = 2/√π Σ (−1)^n x^(2n+1) / (n! (2n+1))
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= -x2 / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

function erfcContinuedFraction(x: number): number {
  // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 5000; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** The standard normal cumulative distribution Φ(z), accurate in both tails. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}
