/**
 * The time an accepted arrival spends in an M/M/1/m FCFS queue (its sojourn: waiting and its own
 * service), from the number n of requests it finds there.
 *
 * By PASTA an arrival finds n with the time-stationary probability π_n ∝ ρ^n (n = 0 … m); it is
 * accepted when n < m, and then leaves after n + 1 exponential services, an Erlang(n + 1, μ) time.
 * So, with x = μT the timeout in mean service times,
 *
 *     P(sojourn > T | accepted) = Σ_{n<m} ρ^n P(Poisson(x) ≤ n) / Σ_{n<m} ρ^n,
 *
 * because an Erlang(n + 1, μ) time exceeds T exactly when fewer than n + 1 services complete
 * in T. The weights are taken as ρ^n for ρ ≤ 1 and ρ^(n − m + 1) above (no overflow at any ρ),
 * and the Poisson terms are built in log space (no underflow of e^(−x) for large x).
 * @see docs/model.md, "Per-try timeouts".
 */
export interface SojournFigures {
  /** P(sojourn > T | accepted). */
  readonly tail: number;
  /** E[sojourn | accepted], in mean service times (E[n] + 1). */
  readonly mean: number;
}

/**
 * P(an accepted attempt's sojourn exceeds T) in an M/M/1/m FCFS queue at offered load ρ.
 * @param rho - offered load Λ/μ, ≥ 0 (`Infinity`: the queue is always full).
 * @param m - the most requests in the system, an integer ≥ 1.
 * @param x - the timeout in mean service times, μT; ≤ 0 gives 1 (every attempt times out).
 */
export function mm1mSojournTail(rho: number, m: number, x: number): number {
  if (x <= 0) return 1;
  if (x === Number.POSITIVE_INFINITY) return 0;
  const logX = Math.log(x);
  // Poisson(x) terms e^(−x) x^i / i! in log space, summed into P(Poisson(x) ≤ n).
  let logTerm = -x;
  let cdf = Math.exp(logTerm);
  if (!(rho < Number.POSITIVE_INFINITY)) {
    for (let i = 1; i < m; i++) {
      logTerm += logX - Math.log(i);
      cdf += Math.exp(logTerm);
    }
    return clamp01(cdf);
  }
  let weighted = 0;
  let total = 0;
  for (let n = 0; n < m; n++) {
    if (n > 0) {
      logTerm += logX - Math.log(n);
      cdf += Math.exp(logTerm);
    }
    const weight = queueWeight(rho, n, m);
    weighted += weight * Math.min(cdf, 1);
    total += weight;
  }
  return total > 0 ? clamp01(weighted / total) : clamp01(cdf);
}

/**
 * E[sojourn | accepted] of an M/M/1/m FCFS queue at offered load ρ, in mean service times:
 * 1 + Σ_{n<m} n ρ^n / Σ_{n<m} ρ^n (the arrival's own service and the n it finds).
 */
export function mm1mMeanSojourn(rho: number, m: number): number {
  if (!(rho < Number.POSITIVE_INFINITY)) return m;
  if (rho <= 0) return 1;
  let moment = 0;
  let total = 0;
  for (let n = 0; n < m; n++) {
    const weight = queueWeight(rho, n, m);
    moment += n * weight;
    total += weight;
  }
  return 1 + (total > 0 ? moment / total : m - 1);
}

/**
 * ρ^n scaled so that the largest weight of n = 0 … m − 1 is 1: ρ^n for ρ ≤ 1, ρ^(n − m + 1)
 * above (terms that underflow are below 1e-308 of the largest).
 */
function queueWeight(rho: number, n: number, m: number): number {
  return rho <= 1 ? rho ** n : Math.exp((n - m + 1) * Math.log(rho));
}

function clamp01(x: number): number {
  return Math.min(Math.max(x, 0), 1);
}
