/** A P × P matrix factored once, to solve A x = b for many b. */
export interface DenseLu {
  /** Overwrites `b` with x, A x = b. */
  solve(b: Float64Array): void;
}

/**
 * LU with partial pivoting of the P × P row-major `a`, in place (`a` is overwritten).
 * @returns the factorisation, or undefined when a pivot is zero (a singular matrix).
 */
export function denseLu(a: Float64Array, p: number): DenseLu | undefined {
  const pivot = new Int32Array(p);
  for (let c = 0; c < p; c++) {
    let best = c;
    for (let r = c + 1; r < p; r++) {
      if (Math.abs(a[r * p + c] as number) > Math.abs(a[best * p + c] as number)) best = r;
    }
    pivot[c] = best;
    if (best !== c) {
      for (let j = 0; j < p; j++) {
        const t = a[c * p + j] as number;
        a[c * p + j] = a[best * p + j] as number;
        a[best * p + j] = t;
      }
    }
    const d = a[c * p + c] as number;
    if (d === 0) return undefined;
    for (let r = c + 1; r < p; r++) {
      const f = (a[r * p + c] as number) / d;
      if (f === 0) continue;
      a[r * p + c] = f;
      for (let j = c + 1; j < p; j++)
        a[r * p + j] = (a[r * p + j] as number) - f * (a[c * p + j] as number);
    }
  }
  return {
    solve(y: Float64Array): void {
      for (let c = 0; c < p; c++) {
        const s = pivot[c] as number;
        if (s !== c) {
          const t = y[c] as number;
          y[c] = y[s] as number;
          y[s] = t;
        }
      }
      for (let i = 0; i < p; i++) {
        let v = y[i] as number;
        for (let j = 0; j < i; j++) v -= (a[i * p + j] as number) * (y[j] as number);
        y[i] = v;
      }
      for (let i = p - 1; i >= 0; i--) {
        let v = y[i] as number;
        for (let j = i + 1; j < p; j++) v -= (a[i * p + j] as number) * (y[j] as number);
        y[i] = v / (a[i * p + i] as number);
      }
    },
  };
}
