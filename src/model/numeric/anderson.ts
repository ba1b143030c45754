import { solveDense } from './solveDense.js';

/**
 * Anderson acceleration (type II) of a fixed-point iteration x ↦ g(x): from the last `depth`
 * steps it mixes the images g(x_i) with weights that minimise the mixed residual
 * ‖Σ α_i (g(x_i) − x_i)‖₂ subject to Σ α_i = 1, which turns a slowly converging (or mildly
 * oscillating) iteration into a quasi-Newton method at the cost of O(n · depth) per step.
 *
 * Written as differences: with f = g(x) − x, ΔF_i = f_{i+1} − f_i and ΔG_i = g_{i+1} − g_i,
 * γ = argmin ‖f_k − ΔF γ‖₂ (normal equations with a tiny Tikhonov term, solved by Gaussian
 * elimination with partial pivoting), and x_{k+1} = g(x_k) − ΔG γ.
 * @see D. G. Anderson, "Iterative procedures for nonlinear integral equations", JACM 12 (1965);
 *   H. F. Walker and P. Ni, "Anderson acceleration for fixed-point iterations", SIAM J. Numer.
 *   Anal. 49 (2011).
 */
export class AndersonMixer {
  private readonly n: number;
  private readonly depth: number;
  private readonly dF: Float64Array[];
  private readonly dG: Float64Array[];
  private readonly lastF: Float64Array;
  private readonly lastG: Float64Array;
  private stored = 0;
  private next = 0;
  private hasLast = false;

  /**
   * @param n - the dimension of x.
   * @param depth - how many past steps to mix, ≥ 1 (default 5).
   */
  constructor(n: number, depth = 5) {
    if (!(Number.isInteger(depth) && depth >= 1)) {
      throw new RangeError(`depth should be an integer ≥ 1, got ${depth}`);
    }
    this.n = n;
    this.depth = depth;
    this.dF = Array.from({ length: depth }, () => new Float64Array(n));
    this.dG = Array.from({ length: depth }, () => new Float64Array(n));
    this.lastF = new Float64Array(n);
    this.lastG = new Float64Array(n);
  }

  /** Forgets the history: the next step is a plain fixed-point step. */
  reset(): void {
    this.stored = 0;
    this.next = 0;
    this.hasLast = false;
  }

  /**
   * Given x_k and g(x_k), writes x_{k+1} into `out` (which may be `x` itself).
   */
  step(x: Float64Array, g: Float64Array, out: Float64Array): void {
    const n = this.n;
    if (this.hasLast) {
      const slotF = this.dF[this.next] as Float64Array;
      const slotG = this.dG[this.next] as Float64Array;
      for (let i = 0; i < n; i++) {
        const f = (g[i] as number) - (x[i] as number);
        slotF[i] = f - (this.lastF[i] as number);
        slotG[i] = (g[i] as number) - (this.lastG[i] as number);
      }
      this.next = (this.next + 1) % this.depth;
      if (this.stored < this.depth) this.stored++;
    }
    for (let i = 0; i < n; i++) {
      this.lastF[i] = (g[i] as number) - (x[i] as number);
      this.lastG[i] = g[i] as number;
    }
    this.hasLast = true;
    const m = this.stored;
    if (m === 0) {
      out.set(g);
      return;
    }
    // Normal equations (ΔFᵀΔF + εI) γ = ΔFᵀ f.
    const a = new Float64Array(m * m);
    const b = new Float64Array(m);
    let trace = 0;
    for (let r = 0; r < m; r++) {
      const fr = this.dF[r] as Float64Array;
      let rhs = 0;
      for (let i = 0; i < n; i++) rhs += (fr[i] as number) * (this.lastF[i] as number);
      b[r] = rhs;
      for (let c = r; c < m; c++) {
        const fc = this.dF[c] as Float64Array;
        let dot = 0;
        for (let i = 0; i < n; i++) dot += (fr[i] as number) * (fc[i] as number);
        a[r * m + c] = dot;
        a[c * m + r] = dot;
      }
      trace += a[r * m + r] as number;
    }
    if (!(trace > 0)) {
      out.set(g);
      return;
    }
    for (let r = 0; r < m; r++) a[r * m + r] = (a[r * m + r] as number) + 1e-12 * trace;
    const gamma = solveDense(a, b, m);
    if (gamma === undefined) {
      out.set(g);
      return;
    }
    for (let i = 0; i < n; i++) {
      let value = g[i] as number;
      for (let r = 0; r < m; r++)
        value -= (gamma[r] as number) * ((this.dG[r] as Float64Array)[i] as number);
      out[i] = value;
    }
  }
}
