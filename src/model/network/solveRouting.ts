import { retryFlow } from '../retryFlow.js';
import { attemptRejection, FIXED_POINT_TOLERANCE } from '../service.js';
import type { NetworkModel } from './NetworkModel.js';
import { prepareServices } from './prepare.js';
import { routingRows } from './structure.js';
import { stronglyConnectedComponents, successorLists, topologicalOrder } from './topology.js';

/**
 * Tolerance of each service's own fixed point inside a network solve: tighter than the network's,
 * so a service's answer is not what stops the sweeps from settling to 1e-12.
 */
export const INNER_TOLERANCE = 1e-14;

/** Options of {@link solveRouting}. */
export interface RoutingSolveOptions {
  /** Relative tolerance on every λin between two sweeps; default 1e-12. */
  readonly tolerance?: number;
  /** Most Gauss–Seidel sweeps before giving up; default 10,000. */
  readonly maxIterations?: number;
  /**
   * Starting λin per service and class (requests/s); default the external arrivals γ. Used to
   * check that different starts reach the same fixed point.
   */
  readonly initialIn?: readonly (readonly number[])[];
}

/** The solved state of a routing network: per service i and class p. */
export interface RoutingSolution {
  readonly lambdaIn: number[][];
  readonly lambdaOut: number[][];
  readonly attempts: number[][];
  readonly rejection: number[][];
  readonly s: number[];
  /** Completion probability C_i^p of a class-p request entering at i. */
  readonly completion: number[][];
  readonly converged: boolean;
  readonly iterations: number;
  /** Largest relative change of λin in the last sweep. */
  readonly residual: number;
}

/**
 * Solves the generalised flow model of a routing network (DESIGN.md, "A network"):
 * λin_i^p = γ_i^p + Σ_j λout_j^p F^p_ji, λout_i^p = λin_i^p (1 − R_i^p(s_i)), with each s_i the
 * single-service fixed point of service i at its own λin (2NP unknowns).
 *
 * - A DAG is solved in one pass in topological order (the unique solution).
 * - With cycles, the strongly connected components are taken in topological order: a service on
 *   no cycle is solved once, when everything upstream is final; the services of each cycle are
 *   swept Gauss–Seidel (each updated from the latest λout of the others) from λin = γ until no
 *   λin changes by more than `tolerance` relative (flows under 1e-9 of the total external rate
 *   count absolutely), or `maxIterations` sweeps (then `converged` is false). `iterations` is
 *   the most sweeps any cycle needed.
 *
 * Completion probabilities solve C_i = (1 − R_i)((1 − Σ_j F_ij) + Σ_j F_ij C_j), exactly in reverse
 * topological order for a DAG, else by iteration to 1e-15.
 */
export function solveRouting(
  network: NetworkModel,
  options: RoutingSolveOptions = {},
): RoutingSolution {
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const maxIterations = options.maxIterations ?? 10_000;
  const services = prepareServices(network);
  const n = services.length;
  const classCount = network.classes.length;
  const rows = network.classes.map((_, p) => routingRows(network, p));
  // incoming[p][i]: (from, probability) pairs
  const incoming = rows.map((classRows) => {
    const lists: { from: number; p: number }[][] = Array.from({ length: n }, () => []);
    classRows.forEach((row, from) => {
      for (const e of row) if (e.p > 0) lists[e.to]?.push({ from, p: e.p });
    });
    return lists;
  });
  const successors = successorLists(network.services, { routes: true, calls: false });

  const topo = topologicalOrder(successors);
  const gamma = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const totalExternal = gamma.flat().reduce((a, b) => a + b, 0);
  const floor = 1e-9 * Math.max(totalExternal, Number.MIN_VALUE);

  const lambdaIn = gamma.map((row, i) => row.map((g, p) => options.initialIn?.[i]?.[p] ?? g));
  const lambdaOut = lambdaIn.map((row) => row.map(() => 0));
  const attempts = lambdaIn.map((row) => row.map(() => 0));
  const rejection = lambdaIn.map((row) => row.map(() => 0));
  const s = new Array<number>(n).fill(0);

  const update = (i: number) => {
    const service = services[i];
    if (service === undefined) return;
    const inRow = lambdaIn[i] as number[];
    for (let p = 0; p < classCount; p++)
      (service.loads[p] as { arrivalRate: number }).arrivalRate = inRow[p] as number;
    const si = attemptRejection(
      service.phi,
      service.capacity,
      service.loads,
      'flow',
      INNER_TOLERANCE,
    ).s;
    s[i] = si;
    for (let p = 0; p < classCount; p++) {
      const load = service.loads[p] as { retryLimit: number; residualAlphas?: readonly number[] };
      const flow = retryFlow(si, load.retryLimit, load.residualAlphas);
      (attempts[i] as number[])[p] = (inRow[p] as number) * flow.attemptsPerRequest;
      (rejection[i] as number[])[p] = flow.rejection;
      (lambdaOut[i] as number[])[p] = (inRow[p] as number) * (1 - flow.rejection);
    }
  };
  /** Recomputes λin_i from the current λout; returns the largest relative change. */
  const gather = (i: number): number => {
    let change = 0;
    const inRow = lambdaIn[i] as number[];
    for (let p = 0; p < classCount; p++) {
      let value = (gamma[i] as number[])[p] as number;
      for (const e of (incoming[p] as { from: number; p: number }[][])[i] ?? []) {
        value += ((lambdaOut[e.from] as number[])[p] as number) * e.p;
      }
      const old = inRow[p] as number;
      const relative = Math.abs(value - old) / Math.max(Math.abs(value), floor);
      if (relative > change) change = relative;
      inRow[p] = value;
    }
    return change;
  };

  let iterations = 0;
  let residual = 0;
  let converged = true;
  if (topo !== undefined) {
    for (const i of topo) {
      gather(i);
      update(i);
    }
    iterations = 1;
  } else {
    // Strongly connected components in topological order: a service on no cycle is solved once,
    // when everything upstream is final; only the services of a cycle iterate, among themselves.
    for (const component of stronglyConnectedComponents(successors)) {
      if (!component.cyclic) {
        const i = component.nodes[0] as number;
        gather(i);
        update(i);
        iterations = Math.max(iterations, 1);
        continue;
      }
      // Start the cycle from the initial λin (default γ), then sweep with the latest λout.
      for (const i of component.nodes) update(i);
      let sweeps = 0;
      let settled = false;
      let change = 0;
      while (sweeps < maxIterations) {
        sweeps++;
        change = 0;
        for (const i of component.nodes) {
          const c = gather(i);
          if (c > change) change = c;
          // An unchanged input gives an unchanged output: skip the solve.
          if (c > 0 || sweeps === 1) update(i);
        }
        if (change <= tolerance) {
          settled = true;
          break;
        }
      }
      iterations = Math.max(iterations, sweeps);
      residual = Math.max(residual, change);
      if (!settled) converged = false;
    }
  }
  const completion = completionProbabilities(rows, rejection, topo);
  return {
    lambdaIn,
    lambdaOut,
    attempts,
    rejection,
    s,
    completion,
    converged,
    iterations,
    residual,
  };
}

/**
 * C_i^p = (1 − R_i^p) ((1 − Σ_j F^p_ij) + Σ_j F^p_ij C_j^p): exact in reverse topological order
 * for a DAG, else Gauss–Seidel to 1e-15 (it converges: ρ(diag(1 − R) F) ≤ ρ(F) < 1).
 */
function completionProbabilities(
  rows: readonly { to: number; p: number }[][][],
  rejection: readonly (readonly number[])[],
  topo: readonly number[] | undefined,
): number[][] {
  const n = rejection.length;
  const completion = rejection.map((row) => row.map(() => 0));
  const order = topo ? [...topo].reverse() : Array.from({ length: n }, (_, i) => n - 1 - i);
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
