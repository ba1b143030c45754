import type { OrbitClass } from './OrbitClass.js';

/**
 * θ_p(L) for L = 0 … m − 1: the chance that an attempt of the class accepted with L ahead of it
 * times out — its FCFS sojourn, Erlang(L + 1) in service times, outlasts its timeout (fixed,
 * exponential or Erlang; `OrbitClass.timeoutLaw`). All zero without a timeout.
 */
export function fateTable(entry: OrbitClass, m: number): Float64Array {
  const table = new Float64Array(m);
  const x = entry.timeout;
  if (!(x > 0) || x === Number.POSITIVE_INFINITY) return table;
  if (entry.timeoutLaw === 'erlang' && (entry.timeoutStages ?? 1) > 1) {
    // P(Erlang(r, r/x) < Erlang(L + 1, 1)): at least r timeout stages among the first r + L
    // events of the race, each a timeout stage with chance b = (r/x)/(r/x + 1); the binomial
    // terms in log space.
    const r = entry.timeoutStages as number;
    const logB = Math.log(r / x / (r / x + 1));
    const logNotB = Math.log(1 / (r / x + 1));
    for (let L = 0; L < m; L++) {
      const events = r + L;
      let below = 0;
      let logChoose = 0;
      for (let j = 0; j < r; j++) {
        if (j > 0) logChoose += Math.log(events - j + 1) - Math.log(j);
        below += Math.exp(logChoose + j * logB + (events - j) * logNotB);
      }
      table[L] = Math.min(Math.max(1 - below, 0), 1);
    }
    return table;
  }
  if (entry.timeoutLaw === 'exponential' || entry.timeoutLaw === 'erlang') {
    // P(Exp with mean x < Erlang(L + 1, 1)) = 1 − (x/(1 + x))^(L+1).
    const beat = x / (1 + x);
    let power = 1;
    for (let L = 0; L < m; L++) {
      power *= beat;
      table[L] = 1 - power;
    }
    return table;
  }
  // P(Poisson(x) ≤ L), the Poisson terms in log space.
  const logX = Math.log(x);
  let logTerm = -x;
  let cdf = Math.exp(logTerm);
  for (let L = 0; L < m; L++) {
    if (L > 0) {
      logTerm += logX - Math.log(L);
      cdf += Math.exp(logTerm);
    }
    table[L] = Math.min(cdf, 1);
  }
  return table;
}
