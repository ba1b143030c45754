/**
 * The uniqueness check as it ran before networks were compiled once per configuration: every
 * case rebuilds the prepared services, routing rows and topology, and keeps its λin as arrays of
 * arrays. Frozen here (a copy of `solveRouting` and `checkConfiguration` at the commit before
 * the compiled plan) as the reference the compiled path must match bit for bit, and as the peer
 * of `bench/uniqueness.ts`. It reuses the single-service law (`attemptRejection`, `retryFlow`),
 * which both paths share.
 */
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { prepareServices } from '../../../src/model/network/prepare.js';
import { routingRows, routingStructure } from '../../../src/model/network/structure.js';
import {
  stronglyConnectedComponents,
  successorLists,
  topologicalOrder,
} from '../../../src/model/network/topology.js';
import type { RandomSource } from '../../../src/model/random.js';
import { retryFlow } from '../../../src/model/retryFlow.js';
import { attemptRejection, FIXED_POINT_TOLERANCE } from '../../../src/model/service.js';
import {
  type ConfigurationCheck,
  DISTINCT_TOLERANCE,
  type FixedPointRun,
  findDistinctFixedPoints,
  INITIAL_SPREAD,
} from '../../../src/model/uniqueness/index.js';

const INNER_TOLERANCE = 1e-14;

/** The per-case solver's options and result, as `solveRouting` had them. */
interface RoutingSolveOptions {
  readonly tolerance?: number;
  readonly maxIterations?: number;
  readonly initialIn?: readonly (readonly number[])[];
}
interface RoutingSolution {
  readonly lambdaIn: number[][];
  readonly lambdaOut: number[][];
  readonly attempts: number[][];
  readonly rejection: number[][];
  readonly s: number[];
  readonly completion: number[][];
  readonly converged: boolean;
  readonly iterations: number;
  readonly residual: number;
}

/** `solveRouting` before the compiled plan. */
export function solveRoutingPerCase(
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

/** `checkConfiguration` before the compiled plan: K per-case solves, then the comparison. */
export function checkConfigurationPerCase(
  network: NetworkModel,
  options: { readonly inits: number; readonly random: RandomSource; readonly tolerance?: number },
): ConfigurationCheck {
  const { inits, random } = options;
  if (!(Number.isInteger(inits) && inits >= 1)) {
    throw new RangeError(`inits should be a positive integer, got ${inits}`);
  }
  const gamma = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const totalExternal = gamma.flat().reduce((a, b) => a + b, 0);
  const runs: FixedPointRun[] = [];
  for (let init = 0; init < inits; init++) {
    const initialIn =
      init === 0
        ? undefined
        : gamma.map((row) => row.map((g) => INITIAL_SPREAD * (g + totalExternal) * random()));
    const solution = solveRoutingPerCase(network, initialIn === undefined ? {} : { initialIn });
    runs.push({
      init,
      initialIn,
      lambdaIn: solution.lambdaIn,
      converged: solution.converged,
      iterations: solution.iterations,
    });
  }
  const converged = runs.filter((run) => run.converged).length;
  const distinct = findDistinctFixedPoints(runs, {
    tolerance: options.tolerance ?? DISTINCT_TOLERANCE,
    floor: 1e-9 * totalExternal,
  });
  return {
    classes: network.classes.length,
    services: network.services.length,
    guarantee: routingStructure(network).uniqueness,
    runs: inits,
    converged,
    nonConverged: inits - converged,
    maxIterations: Math.max(...runs.map((run) => run.iterations)),
    ...(distinct === undefined ? {} : { distinct }),
  };
}
