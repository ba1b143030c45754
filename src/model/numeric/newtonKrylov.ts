/**
 * Jacobian-free Newton–Krylov for F(x) = 0: each Newton step solves J δ = −F(x) by restarted
 * GMRES, with J v approximated by the forward difference (F(x + εv) − F(x))/ε, and is
 * globalised by backtracking on ‖F‖₂. No Jacobian is ever formed, so a step costs one residual
 * evaluation per Krylov vector: O(n · restart) memory and time besides the evaluations.
 * @see D. A. Knoll and D. E. Keyes, "Jacobian-free Newton–Krylov methods: a survey of
 *   approaches and applications", J. Comput. Phys. 193 (2004); Y. Saad and M. H. Schultz,
 *   "GMRES", SIAM J. Sci. Stat. Comput. 7 (1986).
 */
export interface NewtonKrylovOptions {
  /** Stop when max_i |F_i(x)| ≤ this. */
  readonly tolerance: number;
  /** Most residual evaluations in all. @default 2000 */
  readonly maxEvaluations?: number;
  /** Krylov vectors per GMRES cycle. @default 30 */
  readonly restart?: number;
  /** Projects an iterate back into the domain (e.g. clamps probabilities), in place. */
  readonly project?: (x: Float64Array) => void;
}

/** What {@link newtonKrylov} reached. */
export interface NewtonKrylovResult {
  readonly converged: boolean;
  /** Residual evaluations used. */
  readonly evaluations: number;
  /** max_i |F_i| at the returned x. */
  readonly residual: number;
}

/**
 * Solves F(x) = 0 from `x` (overwritten with the solution or the best point found).
 * @param residual - writes F(x) into `out`; must not keep `x`.
 */
export function newtonKrylov(
  x: Float64Array,
  residual: (x: Float64Array, out: Float64Array) => void,
  options: NewtonKrylovOptions,
): NewtonKrylovResult {
  const n = x.length;
  const maxEvaluations = options.maxEvaluations ?? 2000;
  const restart = Math.max(1, Math.min(options.restart ?? 30, n));
  const project = options.project ?? (() => {});
  const f = new Float64Array(n);
  const trial = new Float64Array(n);
  const fTrial = new Float64Array(n);
  const shifted = new Float64Array(n);
  const fShifted = new Float64Array(n);
  const step = new Float64Array(n);
  const basis = Array.from({ length: restart + 1 }, () => new Float64Array(n));
  const hessenberg = new Float64Array((restart + 1) * restart);
  const cs = new Float64Array(restart);
  const sn = new Float64Array(restart);
  const g = new Float64Array(restart + 1);
  let evaluations = 0;
  const evaluate = (at: Float64Array, out: Float64Array) => {
    residual(at, out);
    evaluations++;
  };
  project(x);
  evaluate(x, f);
  let norm = norm2(f);
  let maxNorm = normInf(f);
  while (maxNorm > options.tolerance && evaluations < maxEvaluations) {
    // GMRES(restart) on J δ = −f, one cycle, to a relative tolerance η (inexact Newton).
    const eta = Math.min(0.1, Math.sqrt(norm));
    step.fill(0);
    const xNorm = norm2(x);
    let beta = norm;
    const v0 = basis[0] as Float64Array;
    for (let i = 0; i < n; i++) v0[i] = -(f[i] as number) / beta;
    g.fill(0);
    g[0] = beta;
    let k = 0;
    for (; k < restart && evaluations < maxEvaluations; k++) {
      const v = basis[k] as Float64Array;
      const w = basis[k + 1] as Float64Array;
      // J v ≈ (F(x + εv) − F(x)) / ε, ε scaled to x (v has unit norm).
      const epsilon = Math.sqrt(Number.EPSILON) * (1 + xNorm);
      for (let i = 0; i < n; i++) shifted[i] = (x[i] as number) + epsilon * (v[i] as number);
      evaluate(shifted, fShifted);
      for (let i = 0; i < n; i++) w[i] = ((fShifted[i] as number) - (f[i] as number)) / epsilon;
      for (let r = 0; r <= k; r++) {
        const u = basis[r] as Float64Array;
        let dot = 0;
        for (let i = 0; i < n; i++) dot += (w[i] as number) * (u[i] as number);
        hessenberg[r * restart + k] = dot;
        for (let i = 0; i < n; i++) w[i] = (w[i] as number) - dot * (u[i] as number);
      }
      const wNorm = norm2(w);
      hessenberg[(k + 1) * restart + k] = wNorm;
      if (wNorm > 0) for (let i = 0; i < n; i++) w[i] = (w[i] as number) / wNorm;
      for (let r = 0; r < k; r++) {
        const a = hessenberg[r * restart + k] as number;
        const b = hessenberg[(r + 1) * restart + k] as number;
        hessenberg[r * restart + k] = (cs[r] as number) * a + (sn[r] as number) * b;
        hessenberg[(r + 1) * restart + k] = -(sn[r] as number) * a + (cs[r] as number) * b;
      }
      const a = hessenberg[k * restart + k] as number;
      const b = hessenberg[(k + 1) * restart + k] as number;
      const denominator = Math.hypot(a, b);
      cs[k] = denominator > 0 ? a / denominator : 1;
      sn[k] = denominator > 0 ? b / denominator : 0;
      hessenberg[k * restart + k] = denominator;
      hessenberg[(k + 1) * restart + k] = 0;
      g[k + 1] = -(sn[k] as number) * (g[k] as number);
      g[k] = (cs[k] as number) * (g[k] as number);
      beta = Math.abs(g[k + 1] as number);
      if (beta <= eta * norm || wNorm === 0) {
        k++;
        break;
      }
    }
    // Back substitution: y = H⁻¹ g over the k vectors, δ = Σ y_r v_r.
    const y = new Float64Array(k);
    for (let r = k - 1; r >= 0; r--) {
      let sum = g[r] as number;
      for (let c = r + 1; c < k; c++)
        sum -= (hessenberg[r * restart + c] as number) * (y[c] as number);
      const diagonal = hessenberg[r * restart + r] as number;
      y[r] = diagonal !== 0 ? sum / diagonal : 0;
    }
    for (let r = 0; r < k; r++) {
      const u = basis[r] as Float64Array;
      const yr = y[r] as number;
      for (let i = 0; i < n; i++) step[i] = (step[i] as number) + yr * (u[i] as number);
    }
    // Backtracking: the full step, then halves, until ‖F‖₂ falls (Armijo with a small slope).
    let lambda = 1;
    let accepted = false;
    for (let tries = 0; tries < 12 && evaluations < maxEvaluations; tries++) {
      for (let i = 0; i < n; i++) trial[i] = (x[i] as number) + lambda * (step[i] as number);
      project(trial);
      evaluate(trial, fTrial);
      const trialNorm = norm2(fTrial);
      if (trialNorm <= (1 - 1e-4 * lambda) * norm) {
        x.set(trial);
        f.set(fTrial);
        norm = trialNorm;
        maxNorm = normInf(f);
        accepted = true;
        break;
      }
      lambda /= 2;
    }
    if (!accepted) break;
  }
  return { converged: maxNorm <= options.tolerance, evaluations, residual: maxNorm };
}

function norm2(v: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) * (v[i] as number);
  return Math.sqrt(sum);
}

function normInf(v: Float64Array): number {
  let most = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i] as number);
    if (a > most || Number.isNaN(a)) most = a;
  }
  return most;
}
