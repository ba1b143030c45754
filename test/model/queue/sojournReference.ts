/**
 * References built outside the code under test: the arrival-seen law of an M/M/1/m queue
 * (π_n ∝ ρ^n, n < m, for an accepted arrival) summed term by term with factorials, and the
 * limits every queueing text gives — M/M/1 (m → ∞): sojourn ~ Exp(μ(1 − ρ)); an empty queue
 * (m = 1): the arrival's own Exp(μ) service; a full one (ρ → ∞): Erlang(m, μ).
 */
export function tailReference(rho: number, m: number, x: number): number {
  let weighted = 0;
  let total = 0;
  for (let n = 0; n < m; n++) {
    let cdf = 0;
    let factorial = 1;
    for (let i = 0; i <= n; i++) {
      if (i > 0) factorial *= i;
      cdf += (Math.exp(-x) * x ** i) / factorial;
    }
    weighted += rho ** n * cdf;
    total += rho ** n;
  }
  return weighted / total;
}
