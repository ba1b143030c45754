/**
 * x^k for an integer 0 ≤ k ≤ 2^30 by binary powering (⌊log₂ k⌋ squarings): a few ulps of
 * relative error, and no log or exp (the call-graph sweeps spent a fifth of their time in those
 * when S and the M/M/1/m blocking took their powers through them).
 */
export function integerPower(x: number, k: number): number {
  let result = 1;
  let base = x;
  for (let e = k; e > 0; e >>= 1) {
    if ((e & 1) === 1) result *= base;
    base *= base;
  }
  return result;
}
