/** The numeric tests' own dense solver: an independent reference for the level-by-level ones. */

/** Solves a x = b by Gaussian elimination with partial pivoting (dense, the test's own). */
export function gauss(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let c = 0; c < n; c++) {
    let best = c;
    for (let r = c + 1; r < n; r++)
      if (Math.abs(m[r]?.[c] as number) > Math.abs(m[best]?.[c] as number)) best = r;
    [m[c], m[best]] = [m[best] as number[], m[c] as number[]];
    for (let r = c + 1; r < n; r++) {
      const f = (m[r]?.[c] as number) / (m[c]?.[c] as number);
      for (let j = c; j <= n; j++)
        (m[r] as number[])[j] = (m[r]?.[j] as number) - f * (m[c]?.[j] as number);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let v = m[i]?.[n] as number;
    for (let j = i + 1; j < n; j++) v -= (m[i]?.[j] as number) * (x[j] as number);
    x[i] = v / (m[i]?.[i] as number);
  }
  return x;
}
