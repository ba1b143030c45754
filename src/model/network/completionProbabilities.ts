/**
 * C_i^p, the probability that a class-p request entering at i completes the rest of its path:
 * C_i^p = (1 − R_i^p) ((1 − Σ_j F^p_ij) + Σ_j F^p_ij C_j^p): exact in reverse topological order
 * for a DAG, else Gauss–Seidel to 1e-15 (it converges: ρ(diag(1 − R) F) ≤ ρ(F) < 1).
 */
export function completionProbabilities(
  rows: readonly { to: number; p: number }[][][],
  rejection: readonly (readonly number[])[],
  topo: ArrayLike<number> | undefined,
): number[][] {
  const n = rejection.length;
  const completion = rejection.map((row) => row.map(() => 0));
  const order = topo ? Array.from(topo).reverse() : Array.from({ length: n }, (_, i) => n - 1 - i);
  rows.forEach((classRows, p) => {
    const step = (i: number): number => {
      const row = classRows[i] ?? [];
      let leave = 1;
      let onward = 0;
      for (const e of row) {
        leave -= e.p;
        onward += e.p * ((completion[e.to] as number[])[p] as number);
      }
      const value = (1 - ((rejection[i] as number[])[p] as number)) * (Math.max(leave, 0) + onward);
      const change = Math.abs(value - ((completion[i] as number[])[p] as number));
      (completion[i] as number[])[p] = value;
      return change;
    };
    if (topo) {
      for (const i of order) step(i);
      return;
    }
    for (let sweep = 0; sweep < 1_000_000; sweep++) {
      let change = 0;
      for (const i of order) change = Math.max(change, step(i));
      if (change <= 1e-15) break;
    }
  });
  return completion;
}

/**
 * D_i^p, the probability that a class-p request whose attempts succeed at i completes the rest of
 * its path: (1 − Σ_j F^p_ij) + Σ_j F^p_ij C_j^p, so that C_i^p = (1 − R_i^p) D_i^p. A request's
 * end-to-end success moves with i's success as (requests entering i) · D_i^p per external request.
 */
export function onwardCompletion(
  rows: readonly { to: number; p: number }[][][],
  completion: readonly (readonly number[])[],
): number[][] {
  return completion.map((row, i) =>
    row.map((_, p) => {
      let leave = 1;
      let onward = 0;
      for (const e of rows[p]?.[i] ?? []) {
        leave -= e.p;
        onward += e.p * ((completion[e.to] as readonly number[])[p] as number);
      }
      return Math.max(leave, 0) + onward;
    }),
  );
}
