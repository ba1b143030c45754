/**
 * Independent references for the network tests. Nothing here calls the code under test: flows
 * are solved by plain Jacobi iteration with a bisection per service (the solver uses Gauss–Seidel
 * sweeps and Brent), linear systems by Gaussian elimination with partial pivoting, and end-to-end
 * completion either by the same elimination or by enumerating every path of a DAG.
 */
import type { NetworkModel } from '../../../src/model/index.js';
import { solveReference } from '../reference.js';

/** Dense class-p routing matrix F^p (F[i][j] = probability i → j after success), from routes. */
export function routingMatrix(network: NetworkModel, classIndex: number): number[][] {
  const n = network.services.length;
  const matrix = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  network.services.forEach((service, i) => {
    for (const route of service.routes) {
      if (route.classIndex !== undefined && route.classIndex !== classIndex) continue;
      (matrix[i] as number[])[route.to] = ((matrix[i] as number[])[route.to] as number) + route.p;
    }
  });
  return matrix;
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is copied). */
export function gaussSolve(a: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) {
      if (Math.abs(m[r]?.[col] as number) > Math.abs(m[pivot]?.[col] as number)) pivot = r;
    }
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const pivotRow = m[col] as number[];
    const d = pivotRow[col] as number;
    if (d === 0) throw new Error('singular system');
    for (let r = col + 1; r < n; r++) {
      const row = m[r] as number[];
      const factor = (row[col] as number) / d;
      if (factor === 0) continue;
      for (let c = col; c <= n; c++) row[c] = (row[c] as number) - factor * (pivotRow[c] as number);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    const row = m[r] as number[];
    let sum = row[n] as number;
    for (let c = r + 1; c < n; c++) sum -= (row[c] as number) * (x[c] as number);
    x[r] = sum / (row[r] as number);
  }
  return x;
}

/** λ = γ (I − F)⁻¹, i.e. the solution of (I − Fᵀ) λ = γ: the flows when nothing is rejected. */
export function linearFlows(gamma: readonly number[], f: readonly (readonly number[])[]): number[] {
  const n = gamma.length;
  const a = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 1 : 0) - ((f[j] as number[])[i] as number)),
  );
  return gaussSolve(a, gamma);
}

/**
 * Completion C = diag(1 − R) (leave + F C), solved as the linear system
 * (I − diag(1 − R) F) C = diag(1 − R) leave.
 */
export function completionByElimination(
  f: readonly (readonly number[])[],
  rejection: readonly number[],
): number[] {
  const n = rejection.length;
  const accept = rejection.map((r) => 1 - r);
  const a = Array.from({ length: n }, (_, i) =>
    Array.from(
      { length: n },
      (_, j) => (i === j ? 1 : 0) - (accept[i] as number) * ((f[i] as number[])[j] as number),
    ),
  );
  const b = f.map(
    (row, i) => (accept[i] as number) * Math.max(0, 1 - row.reduce((x, y) => x + y, 0)),
  );
  return gaussSolve(a, b);
}

/**
 * Completion of a request entering at `entry` of a DAG by enumerating every path: the sum over
 * paths of (Π acceptances along the path) × (Π routing probabilities) × (probability of leaving
 * at the last hop).
 */
export function completionByPaths(
  f: readonly (readonly number[])[],
  accept: readonly number[],
  entry: number,
): number {
  let total = 0;
  const walk = (i: number, weight: number) => {
    const here = weight * (accept[i] as number);
    const row = f[i] as number[];
    let leave = 1;
    row.forEach((p, j) => {
      if (p <= 0) return;
      leave -= p;
      walk(j, here * p);
    });
    total += here * Math.max(0, leave);
  };
  walk(entry, 1);
  return total;
}

/** The solved state of a routing network by the reference, per service i and class p. */
export interface ReferenceRouting {
  readonly lambdaIn: number[][];
  readonly lambdaOut: number[][];
  readonly rejection: number[][];
  readonly s: number[];
  /** Completion C_i^p of a class-p request entering at i. */
  readonly completion: number[][];
  /** End-to-end completion per class (NaN for a class with no arrivals). */
  readonly endToEnd: number[];
  readonly sweeps: number;
}

/**
 * Routing mode by Jacobi iteration: every service's s from the previous sweep's λin (bisection
 * on s − φ(ρ(s)), 200 halvings), then every λin from the previous λout at once, from λin = γ
 * until no λin moves by more than `tolerance` relative (absolute below 1e-12 of Σγ).
 */
export function jacobiRouting(
  network: NetworkModel,
  { tolerance = 1e-14, maxSweeps = 20_000 } = {},
): ReferenceRouting {
  const n = network.services.length;
  const f = network.classes.map((_, p) => routingMatrix(network, p));
  const gamma = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const limits = network.services.map((s) =>
    network.classes.map((c, p) => s.retryLimits[p] ?? c.retryLimit),
  );
  const floor = 1e-12 * gamma.flat().reduce((a, b) => a + b, 0);
  let lambdaIn = gamma.map((row) => [...row]);
  let lambdaOut = gamma.map((row) => row.map(() => 0));
  let rejection = gamma.map((row) => row.map(() => 0));
  let s = new Array<number>(n).fill(0);
  let sweeps = 0;
  for (; sweeps < maxSweeps; sweeps++) {
    s = network.services.map((service, i) =>
      solveReference(
        service.model,
        service.capacity,
        service.queue,
        (lambdaIn[i] as number[]).map((rate, p) => ({
          arrivalRate: rate,
          retryLimit: (limits[i] as number[])[p] as number,
        })),
      ),
    );
    rejection = limits.map((row, i) => row.map((k) => (s[i] as number) ** (k + 1)));
    lambdaOut = lambdaIn.map((row, i) =>
      row.map((x, p) => x * (1 - (rejection[i]?.[p] as number))),
    );
    const next = gamma.map((row, i) =>
      row.map((g, p) => {
        let value = g;
        for (let j = 0; j < n; j++)
          value += (lambdaOut[j]?.[p] as number) * (f[p]?.[j]?.[i] as number);
        return value;
      }),
    );
    let change = 0;
    next.forEach((row, i) => {
      row.forEach((x, p) => {
        const old = lambdaIn[i]?.[p] as number;
        change = Math.max(change, Math.abs(x - old) / Math.max(Math.abs(x), floor));
      });
    });
    lambdaIn = next;
    if (change <= tolerance) break;
  }
  const completionByClass = network.classes.map((_, p) =>
    completionByElimination(
      f[p] as number[][],
      rejection.map((row) => row[p] as number),
    ),
  );
  const completion = network.services.map((_, i) =>
    network.classes.map((_, p) => completionByClass[p]?.[i] as number),
  );
  const endToEnd = network.classes.map((_, p) => {
    let arrivals = 0;
    let done = 0;
    gamma.forEach((row, i) => {
      arrivals += row[p] as number;
      done += (row[p] as number) * (completion[i]?.[p] as number);
    });
    return done / arrivals;
  });
  return { lambdaIn, lambdaOut, rejection, s, completion, endToEnd, sweeps };
}

/** Largest |a − b| / max(|b|, floor) over two tables. */
export function maxRelativeDifference(
  a: readonly (readonly number[])[],
  b: readonly (readonly number[])[],
  floor: number,
): number {
  let worst = 0;
  a.forEach((row, i) => {
    row.forEach((x, p) => {
      const y = b[i]?.[p] as number;
      worst = Math.max(worst, Math.abs(x - y) / Math.max(Math.abs(y), floor));
    });
  });
  return worst;
}
