/**
 * The Illinois variant of false position: a root of f in the bracket [a, b] where f(a) and f(b)
 * are already known and of opposite signs (or one is zero). Each step puts the secant's zero
 * inside the bracket; when the same end is kept twice its value is halved, so the method
 * converges superlinearly (order ≈ 1.44) and never leaves the bracket. Returns the end with
 * |f| smallest once the bracket is narrower than `tolerance` (absolute) or f is exactly zero.
 * @see M. Dowell and P. Jarratt, "A modified regula falsi method for computing the root of an
 *   equation", BIT 11 (1971).
 */
export function illinoisRoot(
  f: (x: number) => number,
  a: number,
  fa: number,
  b: number,
  fb: number,
  tolerance: number,
  maxEvaluations = 200,
): number {
  if (fa === 0) return a;
  if (fb === 0) return b;
  if (fa > 0 === fb > 0) {
    throw new RangeError(`root is not bracketed: f(${a}) = ${fa} and f(${b}) = ${fb}`);
  }
  let x0 = a;
  let f0 = fa;
  let x1 = b;
  let f1 = fb;
  for (let i = 0; i < maxEvaluations && Math.abs(x1 - x0) > tolerance; i++) {
    let x = (x0 * f1 - x1 * f0) / (f1 - f0);
    // Rounding can put the secant's zero on an end: bisect instead.
    if (!(x > Math.min(x0, x1) && x < Math.max(x0, x1))) x = (x0 + x1) / 2;
    const fx = f(x);
    if (fx === 0) return x;
    if (fx > 0 !== f1 > 0) {
      x0 = x1;
      f0 = f1;
    } else {
      f0 /= 2;
    }
    x1 = x;
    f1 = fx;
  }
  return Math.abs(f1) <= Math.abs(f0) ? x1 : x0;
}
