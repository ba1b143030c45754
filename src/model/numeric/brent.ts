/** Result of a bracketed root search. */
export interface RootResult {
  /** The root estimate. */
  readonly root: number;
  /** f at the root estimate. */
  readonly value: number;
  /** Function evaluations used. */
  readonly evaluations: number;
}

/**
 * Brent's method: finds a root of f in [lo, hi], where f(lo) and f(hi) have opposite signs (or
 * one is zero). Combines bisection's guarantee with inverse quadratic interpolation's speed.
 *
 * Stops when the bracket is narrower than 2·(4ε|x| + tolerance/2), i.e. the root is known to
 * within `tolerance` (absolute), or f is exactly zero.
 * @see R. P. Brent, "Algorithms for Minimization without Derivatives" (1973), ch. 4.
 * @param tolerance - absolute tolerance on the root, default 1e-12.
 */
export function brentRoot(
  f: (x: number) => number,
  lo: number,
  hi: number,
  tolerance = 1e-12,
  maxEvaluations = 500,
): RootResult {
  let a = lo;
  let b = hi;
  let fa = f(a);
  let fb = f(b);
  let evaluations = 2;
  if (fa === 0) return { root: a, value: 0, evaluations };
  if (fb === 0) return { root: b, value: 0, evaluations };
  if (Number.isNaN(fa) || Number.isNaN(fb) || Math.sign(fa) === Math.sign(fb)) {
    throw new RangeError(
      `root is not bracketed: f(${lo}) = ${fa} and f(${hi}) = ${fb} should have opposite signs`,
    );
  }
  let c = a;
  let fc = fa;
  let d = b - a;
  let e = d;
  while (evaluations < maxEvaluations) {
    if (Math.sign(fb) === Math.sign(fc)) {
      c = a;
      fc = fa;
      d = b - a;
      e = d;
    }
    if (Math.abs(fc) < Math.abs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const tol = 2 * Number.EPSILON * Math.abs(b) + tolerance / 2;
    const m = (c - b) / 2;
    if (Math.abs(m) <= tol || fb === 0) return { root: b, value: fb, evaluations };
    if (Math.abs(e) >= tol && Math.abs(fa) > Math.abs(fb)) {
      // Try interpolation: secant when two points, inverse quadratic when three.
      const s = fb / fa;
      let p: number;
      let q: number;
      if (a === c) {
        p = 2 * m * s;
        q = 1 - s;
      } else {
        const qa = fa / fc;
        const r = fb / fc;
        p = s * (2 * m * qa * (qa - r) - (b - a) * (r - 1));
        q = (qa - 1) * (r - 1) * (s - 1);
      }
      if (p > 0) q = -q;
      else p = -p;
      if (2 * p < Math.min(3 * m * q - Math.abs(tol * q), Math.abs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = m;
        e = m;
      }
    } else {
      d = m;
      e = m;
    }
    a = b;
    fa = fb;
    b += Math.abs(d) > tol ? d : m > 0 ? tol : -tol;
    fb = f(b);
    evaluations++;
  }
  throw new RangeError(`root search did not converge in ${maxEvaluations} evaluations`);
}
