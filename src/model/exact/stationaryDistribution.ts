/** A stationary distribution and how well it solves πQ = 0. */
export interface Stationary {
  /** π, summing to 1. */
  readonly pi: Float64Array;
  /** ‖πQ‖₁ / max_j q_j: the flow imbalance left, relative to the fastest exit rate. */
  readonly residual: number;
  /** Gauss–Seidel sweeps made. */
  readonly sweeps: number;
}

/** Sweeps {@link stationaryDistribution} makes at most. */
const MAX_SWEEPS = 200_000;

/**
 * The stationary distribution π of an irreducible finite continuous-time Markov chain given by its
 * transitions (from, to, rate; no self-loops), by Gauss–Seidel sweeps on the balance equations
 * π_j q_j = Σ_i π_i q_ij (q_j the total exit rate of j), normalised after each sweep, until no
 * probability moves by more than 1e-13 of itself and the residual ‖πQ‖₁ is below `tolerance`
 * of the largest exit rate.
 * @throws RangeError when a state has no exit (the chain is not irreducible), or when it does not
 *   converge in 200,000 sweeps.
 */
export function stationaryDistribution(
  n: number,
  from: readonly number[],
  to: readonly number[],
  rates: readonly number[],
  tolerance = 1e-12,
): Stationary {
  const exit = new Float64Array(n);
  const inCount = new Int32Array(n + 1);
  for (let t = 0; t < rates.length; t++) {
    exit[from[t] as number] += rates[t] as number;
    inCount[(to[t] as number) + 1] += 1;
  }
  for (let j = 0; j < n; j++) inCount[j + 1] += inCount[j] as number;
  const inFrom = new Int32Array(rates.length);
  const inRate = new Float64Array(rates.length);
  const fill = inCount.slice(0, n);
  for (let t = 0; t < rates.length; t++) {
    const j = to[t] as number;
    const at = fill[j] as number;
    inFrom[at] = from[t] as number;
    inRate[at] = rates[t] as number;
    fill[j] = at + 1;
  }
  let fastest = 0;
  for (let j = 0; j < n; j++) {
    if (!((exit[j] as number) > 0) && n > 1) {
      throw new RangeError(`state ${j} of the chain has no exit: the chain is not irreducible`);
    }
    fastest = Math.max(fastest, exit[j] as number);
  }
  const pi = new Float64Array(n).fill(1 / n);
  if (n === 1) return { pi: new Float64Array([1]), residual: 0, sweeps: 0 };
  for (let sweep = 1; sweep <= MAX_SWEEPS; sweep++) {
    let moved = 0;
    let total = 0;
    for (let j = 0; j < n; j++) {
      let inflow = 0;
      for (let t = inCount[j] as number; t < (inCount[j + 1] as number); t++) {
        inflow += (pi[inFrom[t] as number] as number) * (inRate[t] as number);
      }
      const next = inflow / (exit[j] as number);
      const old = pi[j] as number;
      const change = Math.abs(next - old) / Math.max(next, old, 1e-300);
      if (change > moved) moved = change;
      pi[j] = next;
      total += next;
    }
    for (let j = 0; j < n; j++) pi[j] = (pi[j] as number) / total;
    if (moved < 1e-13 || sweep % 50 === 0) {
      const residual = balanceResidual(pi, exit, inCount, inFrom, inRate) / fastest;
      if (residual < tolerance && moved < 1e-9) return { pi, residual, sweeps: sweep };
    }
  }
  throw new RangeError(
    `the chain's stationary distribution did not converge in ${MAX_SWEEPS} sweeps`,
  );
}

function balanceResidual(
  pi: Float64Array,
  exit: Float64Array,
  inCount: Int32Array,
  inFrom: Int32Array,
  inRate: Float64Array,
): number {
  let residual = 0;
  for (let j = 0; j < pi.length; j++) {
    let inflow = 0;
    for (let t = inCount[j] as number; t < (inCount[j + 1] as number); t++) {
      inflow += (pi[inFrom[t] as number] as number) * (inRate[t] as number);
    }
    residual += Math.abs(inflow - (pi[j] as number) * (exit[j] as number));
  }
  return residual;
}
