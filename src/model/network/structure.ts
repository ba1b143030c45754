import type { NetworkModel } from './NetworkModel.js';
import { topologicalOrder } from './topology.js';

/** Which guarantee makes the network's fixed point unique (DESIGN.md, "A network"). */
export type UniquenessGuarantee = 'dag' | 'norm' | 'class-independent' | 'none';

/** What the routing matrices F^p say about existence and uniqueness of the fixed point. */
export interface RoutingStructure {
  /** Whether the routes (or calls) form a DAG. */
  readonly dag: boolean;
  /** ρ(F^p) per class index; 0 for a DAG. */
  readonly spectralRadius: readonly number[];
  /** ‖F‖∞ = max over classes and services of Σ_j F^p_ij. */
  readonly normInf: number;
  /** Whether every class uses the same routing matrix. */
  readonly classIndependent: boolean;
  readonly uniqueness: UniquenessGuarantee;
  /**
   * Classes whose routing has ρ(F^p) ≥ 1 (a set of services a request can never leave), with
   * one such service each; empty when the standard equations hold.
   */
  readonly closedSets: readonly {
    readonly classIndex: number;
    readonly services: readonly number[];
  }[];
}

/** The class-p routing matrix as sparse rows: F^p_ij for each i. */
export function routingRows(
  network: NetworkModel,
  classIndex: number,
): { to: number; p: number }[][] {
  return network.services.map((service) => {
    const row = new Map<number, number>();
    for (const r of service.routes) {
      if (r.classIndex !== undefined && r.classIndex !== classIndex) continue;
      row.set(r.to, (row.get(r.to) ?? 0) + r.p);
    }
    return [...row].map(([to, p]) => ({ to, p }));
  });
}

/**
 * Analyses the routing: DAG or not, spectral radius per class, ‖F‖∞, which uniqueness guarantee
 * holds, and any closed set that makes ρ(F) = 1.
 *
 * ρ(F) < 1 is decided exactly: F is substochastic (every row sums to ≤ 1), so ρ(F) < 1 iff every
 * service can reach, along routes with p > 0, a service whose row sums to less than 1 (where
 * requests leave). The reported value of ρ(F) is estimated by power iteration on F + I (which is
 * aperiodic) with Collatz–Wielandt bounds, stopping when they meet within 1e-9 or after 2,000
 * iterations; the upper bound is reported (it never underestimates ρ(F)).
 */
export function routingStructure(network: NetworkModel): RoutingStructure {
  const classCount = network.classes.length;
  const edges = network.services.map((s) => [
    ...new Set([
      ...s.routes.map((r) => r.to),
      ...(s.calls ?? []).map((c) => c.to),
      ...(s.branches ?? []).flatMap((b) => b.calls.map((c) => c.to)),
    ]),
  ]);
  const dag = topologicalOrder(edges) !== undefined;
  const rowsByClass = Array.from({ length: classCount }, (_, p) => routingRows(network, p));
  const keys = rowsByClass.map((rows) => JSON.stringify(rows));
  const classIndependent = keys.every((k) => k === keys[0]);
  let normInf = 0;
  for (const rows of rowsByClass) {
    for (const row of rows)
      normInf = Math.max(
        normInf,
        row.reduce((sum, e) => sum + e.p, 0),
      );
  }
  const cache = new Map<string, { radius: number; closed: number[] }>();
  const spectralRadius: number[] = [];
  const closedSets: { classIndex: number; services: number[] }[] = [];
  rowsByClass.forEach((rows, p) => {
    const key = keys[p] as string;
    let result = cache.get(key);
    if (result === undefined) {
      const closed = closedServices(rows);
      result = { radius: dag ? 0 : estimateSpectralRadius(rows, closed.length > 0), closed };
      cache.set(key, result);
    }
    spectralRadius.push(result.radius);
    if (result.closed.length > 0) closedSets.push({ classIndex: p, services: result.closed });
  });
  const uniqueness: UniquenessGuarantee = dag
    ? 'dag'
    : classCount === 1 || normInf < 1 / (classCount - 1)
      ? 'norm'
      : classIndependent && classCount <= 2
        ? 'class-independent'
        : 'none';
  return { dag, spectralRadius, normInf, classIndependent, uniqueness, closedSets };
}

/** Services from which no route ever leaves the network (rows summing to 1 all the way). */
function closedServices(rows: readonly { to: number; p: number }[][]): number[] {
  const n = rows.length;
  const predecessors: number[][] = Array.from({ length: n }, () => []);
  const leaks: number[] = [];
  rows.forEach((row, i) => {
    let sum = 0;
    for (const e of row) {
      if (e.p > 0) predecessors[e.to]?.push(i);
      sum += e.p;
    }
    if (sum < 1 - 1e-12) leaks.push(i);
  });
  const canLeave = new Uint8Array(n);
  const queue = [...leaks];
  for (const i of queue) canLeave[i] = 1;
  for (let head = 0; head < queue.length; head++) {
    for (const j of predecessors[queue[head] as number] ?? []) {
      if (!canLeave[j]) {
        canLeave[j] = 1;
        queue.push(j);
      }
    }
  }
  const closed: number[] = [];
  for (let i = 0; i < n; i++) if (!canLeave[i]) closed.push(i);
  return closed;
}

/**
 * ρ(F) by power iteration on A = F + I from the all-ones vector: Collatz–Wielandt gives
 * min_i (Ax)_i/x_i ≤ ρ(A) ≤ max_i (Ax)_i/x_i, and ρ(F) = ρ(A) − 1.
 */
function estimateSpectralRadius(
  rows: readonly { to: number; p: number }[][],
  closed: boolean,
): number {
  if (closed) return 1;
  const n = rows.length;
  let x = new Float64Array(n).fill(1);
  let y = new Float64Array(n);
  let lower = 0;
  let upper = Number.POSITIVE_INFINITY;
  for (let iteration = 0; iteration < 2000; iteration++) {
    // y = (F + I) x, with F acting on columns: (F x)_i = Σ_j F_ij x_j
    for (let i = 0; i < n; i++) {
      let sum = x[i] as number;
      for (const e of rows[i] as { to: number; p: number }[]) sum += e.p * (x[e.to] as number);
      y[i] = sum;
    }
    let lo = Number.POSITIVE_INFINITY;
    let hi = 0;
    let norm = 0;
    for (let i = 0; i < n; i++) {
      const ratio = (y[i] as number) / (x[i] as number);
      if (ratio < lo) lo = ratio;
      if (ratio > hi) hi = ratio;
      norm = Math.max(norm, y[i] as number);
    }
    lower = Math.max(lower, lo);
    upper = Math.min(upper, hi);
    for (let i = 0; i < n; i++) y[i] = (y[i] as number) / norm;
    [x, y] = [y, x];
    if (upper - lower < 1e-9) break;
  }
  // For a reducible F the lower bound can stall at a smaller block's radius; the upper bound
  // still converges to ρ(A), and never underestimates it.
  return Math.max(0, upper - 1);
}
