import type { NetworkModel } from './NetworkModel.js';
import { stronglyConnectedComponents, successorLists, topologicalOrder } from './topology.js';

/** Which guarantee makes the network's fixed point unique (docs/design.md, "A network"). */
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
  return network.services.map((service) => routingRow(service.routes, classIndex));
}

/**
 * The routing rows of every class, `[p][i]`, as {@link routingRows} gives them; a service whose
 * routes name no class has one row, shared (the same array) by every class. Read-only use.
 */
export function routingRowsByClass(network: NetworkModel): { to: number; p: number }[][][] {
  const classCount = network.classes.length;
  const byClass = Array.from(
    { length: classCount },
    () => new Array<{ to: number; p: number }[]>(network.services.length),
  );
  network.services.forEach((service, i) => {
    const shared = service.routes.every((r) => r.classIndex === undefined);
    const row = shared ? routingRow(service.routes, 0) : undefined;
    for (let p = 0; p < classCount; p++) {
      (byClass[p] as { to: number; p: number }[][])[i] = row ?? routingRow(service.routes, p);
    }
  });
  return byClass;
}

/**
 * One service's class-p row: the probabilities of its routes to each destination summed in
 * route order, zeros dropped, sorted by destination (so two classes with the same F compare
 * equal whatever the file's order).
 */
function routingRow(
  routes: NetworkModel['services'][number]['routes'],
  classIndex: number,
): { to: number; p: number }[] {
  const row: { to: number; p: number }[] = [];
  for (const r of routes) {
    if (r.classIndex !== undefined && r.classIndex !== classIndex) continue;
    const entry = row.find((e) => e.to === r.to);
    if (entry === undefined) row.push({ to: r.to, p: 0 + r.p });
    else entry.p += r.p;
  }
  return row.filter((e) => e.p > 0).sort((a, b) => a.to - b.to);
}

/**
 * Analyses the routing: DAG or not, spectral radius per class, ‖F‖∞, which uniqueness guarantee
 * holds, and any closed set that makes ρ(F) = 1.
 *
 * ρ(F) < 1 is decided exactly: F is substochastic (every row sums to ≤ 1), so ρ(F) < 1 iff every
 * service can reach, along routes with p > 0, a service whose row sums to less than 1 (where
 * requests leave). The reported value of ρ(F) is the largest over F's cyclic strongly connected
 * components of power iteration on the block plus I, between Collatz–Wielandt bounds that meet
 * within 1e-10 (or 10,000 iterations).
 */
export function routingStructure(network: NetworkModel): RoutingStructure {
  return analyseRouting(network, true);
}

/** {@link RoutingStructure} without the spectral radius, the one part that costs iterations. */
export type RoutingGuarantee = Omit<RoutingStructure, 'spectralRadius'>;

/**
 * What {@link routingStructure} reports but the spectral radius: DAG or not, ‖F‖∞, class
 * independence, the uniqueness guarantee and the closed sets, all decided exactly (no power
 * iteration), for callers that check many networks (the uniqueness check draws and checks one
 * per configuration).
 * @param rowsByClass - the network's {@link routingRowsByClass}, when the caller has them.
 */
export function routingGuarantee(
  network: NetworkModel,
  rowsByClass: readonly (readonly Row[])[] = routingRowsByClass(network),
): RoutingGuarantee {
  const { spectralRadius: _, ...guarantee } = analyseRouting(network, false, rowsByClass);
  return guarantee;
}

/** A sparse routing row: (destination, probability) pairs. */
type Row = readonly { readonly to: number; readonly p: number }[];

/** The structure, with ρ(F^p) estimated when `withRadius` (else reported as 0). */
function analyseRouting(
  network: NetworkModel,
  withRadius: boolean,
  rowsByClass: readonly (readonly Row[])[] = routingRowsByClass(network),
): RoutingStructure {
  const classCount = network.classes.length;
  const edges = successorLists(network.services, { routes: true, calls: true });
  const dag = topologicalOrder(edges) !== undefined;
  // Classes with the same routing share one analysis: each class points at the first class
  // whose rows are equal (rows are sorted by destination, so order in the file does not matter).
  const sameAs = rowsByClass.map((rows, p) => {
    for (let q = 0; q < p; q++) if (sameRows(rows, rowsByClass[q] as typeof rows)) return q;
    return p;
  });
  const classIndependent = sameAs.every((q) => q === 0);
  let normInf = 0;
  for (const rows of rowsByClass) {
    for (const row of rows)
      normInf = Math.max(
        normInf,
        row.reduce((sum, e) => sum + e.p, 0),
      );
  }
  const results: { radius: number; closed: number[] }[] = [];
  const spectralRadius: number[] = [];
  const closedSets: { classIndex: number; services: number[] }[] = [];
  rowsByClass.forEach((rows, p) => {
    let result = results[sameAs[p] as number];
    if (result === undefined) {
      const closed = closedServices(rows);
      const radius = dag || !withRadius ? 0 : estimateSpectralRadius(rows, closed.length > 0);
      result = { radius, closed };
    }
    results[p] = result;
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

/**
 * Services from which no route ever leaves the network (rows summing to 1 all the way), in
 * increasing order; empty when ρ(F) < 1 can hold.
 * @example
 * ```ts
 * closedServices([[{ to: 1, p: 1 }], [{ to: 0, p: 1 }], []]); // [0, 1]
 * ```
 */
export function closedServices(rows: readonly (readonly { to: number; p: number }[])[]): number[] {
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
 * ρ(F): the largest spectral radius of F's irreducible diagonal blocks (its strongly connected
 * components with a cycle; every other block is 0). Each block's radius comes from power iteration
 * on A = F_block + I from the all-ones vector, where Collatz–Wielandt gives
 * min_i (Ax)_i/x_i ≤ ρ(A) ≤ max_i (Ax)_i/x_i; an irreducible A + I is primitive, so the bounds meet.
 */
function estimateSpectralRadius(rows: readonly Row[], closed: boolean): number {
  if (closed) return 1;
  const successors = rows.map((row) => row.filter((e) => e.p > 0).map((e) => e.to));
  let radius = 0;
  for (const component of stronglyConnectedComponents(successors)) {
    if (component.cyclic) radius = Math.max(radius, blockRadius(rows, component.nodes));
  }
  return radius;
}

function blockRadius(rows: readonly Row[], nodes: readonly number[]): number {
  const position = new Map(nodes.map((node, k) => [node, k]));
  const block = nodes.map((node) =>
    (rows[node] ?? []).flatMap((e) => {
      const k = position.get(e.to);
      return k === undefined ? [] : [{ k, p: e.p }];
    }),
  );
  // A + cI is primitive for any c > 0; the iteration converges at the rate
  // max|λ + c| / (ρ + c), which is slow when c ≫ ρ. A rough pass with c = 1 finds ρ's scale, and a
  // second pass with c = that scale gets ρ to 1e-10 relative.
  const rough = powerIteration(block, 1, 1e-3);
  if (rough <= 0) return 0;
  return powerIteration(block, rough, 1e-10);
}

/**
 * ρ(B) of an irreducible non-negative block by power iteration on B + cI from the all-ones
 * vector, between Collatz–Wielandt bounds (min_i (Ax)_i/x_i ≤ ρ(A) ≤ max_i (Ax)_i/x_i), stopping
 * when they are within `relative` × ρ(B) (or after 100,000 iterations).
 */
function powerIteration(
  block: readonly { k: number; p: number }[][],
  shift: number,
  relative: number,
): number {
  const n = block.length;
  let x = new Float64Array(n).fill(1);
  let y = new Float64Array(n);
  let lower = 0;
  let upper = Number.POSITIVE_INFINITY;
  for (let iteration = 0; iteration < 100_000; iteration++) {
    let norm = 0;
    let lo = Number.POSITIVE_INFINITY;
    let hi = 0;
    for (let i = 0; i < n; i++) {
      let sum = shift * (x[i] as number);
      for (const e of block[i] as { k: number; p: number }[]) sum += e.p * (x[e.k] as number);
      y[i] = sum;
      const ratio = sum / (x[i] as number);
      if (ratio < lo) lo = ratio;
      if (ratio > hi) hi = ratio;
      if (sum > norm) norm = sum;
    }
    lower = Math.max(lower, lo);
    upper = Math.min(upper, hi);
    for (let i = 0; i < n; i++) y[i] = (y[i] as number) / norm;
    const swap = x;
    x = y;
    y = swap;
    const estimate = (lower + upper) / 2 - shift;
    if (upper - lower <= relative * Math.max(estimate, Number.MIN_VALUE)) break;
  }
  return Math.max(0, (lower + upper) / 2 - shift);
}

function sameRows(a: readonly Row[], b: readonly Row[]): boolean {
  return a.every((row, i) => {
    const other = b[i] as Row;
    return (
      row === other ||
      (row.length === other.length &&
        row.every((e, k) => e.to === other[k]?.to && e.p === other[k]?.p))
    );
  });
}
