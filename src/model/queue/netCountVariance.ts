/**
 * The asymptotic variance rate of the orbit's net count with the queue moving under it (a Markov
 * additive process over the M/M/1/m queue at arrival rate Λ, service μ): E_π Σ over transitions
 * of rate · (mark + h_to − h_from)², h the solution of the Poisson equation Q h = −(g − δ), g_L the
 * mark rate at L. On the birth–death queue the differences x_L = h_(L+1) − h_L follow from
 * detailed balance, π_L Λ x_L = −Σ_(j ≤ L) π_j (g_j − δ) = Σ_(j > L) π_j (g_j − δ), each sum
 * taken from the side holding less of π (where it does not cancel). `jump` is
 * scratch, m long. upAt, downAt, idleAt: per L, the rates of arrivals marked +1, −1 and 0.
 */
export function netCountVariance(
  queueLaw: Float64Array,
  arrival: number,
  drift: number,
  upAt: Float64Array,
  downAt: Float64Array,
  idleAt: Float64Array,
  jump: Float64Array,
): number {
  const m = queueLaw.length - 1;
  const excess = (L: number) =>
    (queueLaw[L] as number) * ((upAt[L] as number) - (downAt[L] as number) - drift);
  let below = 0;
  let massBelow = 0;
  let above = 0;
  for (let L = 0; L <= m; L++) above += excess(L);
  for (let L = 0; L < m; L++) {
    const e = excess(L);
    below += e;
    above -= e;
    massBelow += queueLaw[L] as number;
    const flow = (queueLaw[L] as number) * arrival;
    jump[L] = flow > 0 ? (massBelow <= 0.5 ? -below : above) / flow : 0;
  }
  let variance = 0;
  for (let L = 0; L <= m; L++) {
    const w = queueLaw[L] as number;
    if (L < m) {
      const x = jump[L] as number;
      variance +=
        w *
        ((upAt[L] as number) * (1 + x) ** 2 +
          (downAt[L] as number) * (x - 1) ** 2 +
          (idleAt[L] as number) * x * x);
    } else {
      variance += w * ((upAt[L] as number) + (downAt[L] as number));
    }
  }
  // Services, L → L − 1 at μ: π_L μ = π_(L−1) Λ, so their weight is the arrivals' one below.
  for (let L = 1; L <= m; L++) {
    variance += (queueLaw[L - 1] as number) * arrival * (jump[L - 1] as number) ** 2;
  }
  return variance;
}
