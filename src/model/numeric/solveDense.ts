/**
 * Solves the m × m system a·x = b (row-major) by Gaussian elimination with partial pivoting,
 * in place (a and b are overwritten).
 * @returns x, or undefined when a is singular (or holds a non-finite pivot).
 */
export function solveDense(a: Float64Array, b: Float64Array, m: number): Float64Array | undefined {
  for (let col = 0; col < m; col++) {
    let pivot = col;
    for (let r = col + 1; r < m; r++)
      if (Math.abs(a[r * m + col] as number) > Math.abs(a[pivot * m + col] as number)) pivot = r;
    const value = a[pivot * m + col] as number;
    if (!(Math.abs(value) > 0) || !Number.isFinite(value)) return undefined;
    if (pivot !== col) {
      for (let c = 0; c < m; c++) {
        const t = a[col * m + c] as number;
        a[col * m + c] = a[pivot * m + c] as number;
        a[pivot * m + c] = t;
      }
      const t = b[col] as number;
      b[col] = b[pivot] as number;
      b[pivot] = t;
    }
    for (let r = col + 1; r < m; r++) {
      const factor = (a[r * m + col] as number) / value;
      if (factor === 0) continue;
      for (let c = col; c < m; c++)
        a[r * m + c] = (a[r * m + c] as number) - factor * (a[col * m + c] as number);
      b[r] = (b[r] as number) - factor * (b[col] as number);
    }
  }
  const x = new Float64Array(m);
  for (let r = m - 1; r >= 0; r--) {
    let sum = b[r] as number;
    for (let c = r + 1; c < m; c++) sum -= (a[r * m + c] as number) * (x[c] as number);
    x[r] = sum / (a[r * m + r] as number);
  }
  return x.every(Number.isFinite) ? x : undefined;
}
