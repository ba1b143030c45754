/**
 * Adaptive Simpson quadrature of f over [a, b] to an absolute tolerance (default 1e-12), with
 * Richardson correction; depth-limited so a kink cannot recurse forever.
 * @see Lyness, "Notes on the adaptive Simpson quadrature routine", JACM 16 (1969).
 */
export function integrate(
  f: (x: number) => number,
  a: number,
  b: number,
  tolerance = 1e-12,
  maxDepth = 48,
): number {
  if (a === b) return 0;
  const fa = f(a);
  const fb = f(b);
  const mid = (a + b) / 2;
  const fm = f(mid);
  const whole = ((b - a) / 6) * (fa + 4 * fm + fb);
  return simpson(f, a, b, fa, fm, fb, whole, tolerance, maxDepth);
}

function simpson(
  f: (x: number) => number,
  a: number,
  b: number,
  fa: number,
  fm: number,
  fb: number,
  whole: number,
  tolerance: number,
  depth: number,
): number {
  const m = (a + b) / 2;
  const lm = (a + m) / 2;
  const rm = (m + b) / 2;
  const flm = f(lm);
  const frm = f(rm);
  const left = ((m - a) / 6) * (fa + 4 * flm + fm);
  const right = ((b - m) / 6) * (fm + 4 * frm + fb);
  const delta = left + right - whole;
  if (depth <= 0 || Math.abs(delta) <= 15 * tolerance) return left + right + delta / 15;
  return (
    simpson(f, a, m, fa, flm, fm, left, tolerance / 2, depth - 1) +
    simpson(f, m, b, fm, frm, fb, right, tolerance / 2, depth - 1)
  );
}
