import type { NetworkModel } from '../network/NetworkModel.js';
import type { RoutingPlan } from '../network/routingPlan.js';
import { FIXED_POINT_TOLERANCE } from '../service.js';
import type { StartSolve } from './checkStarts.js';
import { loadPolynomial, PHI_LAW_CODE, warmRejectionRoot } from './warmRejectionSolver.js';

/**
 * The tightest tolerance of a service's own solve, on s: that of `settleRouting`'s inner solves
 * (`INNER_TOLERANCE`), reached in the sweeps that decide convergence.
 */
export const WARM_INNER_TOLERANCE = 1e-14;

/**
 * The loosest: a service's first solve from a start, and its solves while the sweeps still move
 * λin by more than {@link INNER_TOLERANCE_RATIO} × this.
 */
export const WARM_LOOSEST_TOLERANCE = 1e-6;

/**
 * A sweep solves each service to this fraction of the largest relative change of λin in the
 * sweep before it (between the two tolerances above): an inexact inner solve, far below what
 * the sweep itself still moves.
 */
export const INNER_TOLERANCE_RATIO = 1e-2;

/**
 * The loosest inner tolerance of a sweep that may end the settle (its largest change at most the
 * settle's tolerance): a sweep solved more loosely is followed by another.
 */
export const FINAL_INNER_TOLERANCE = 1e-13;

/** Options of {@link warmRoutingSolver}: those of `settleRouting`. */
export interface WarmRoutingOptions {
  /** Relative tolerance on every λin between two sweeps; default 1e-12. */
  readonly tolerance?: number;
  /** Most sweeps of a cycle before giving up; default 10,000. */
  readonly maxIterations?: number;
}

/** A solver of one compiled network from a start, with a profile of its work. */
export interface WarmRoutingSolver {
  /**
   * Settles the network from `start` (λin flat, `i × P + p`, requests/s; undefined: γ). The
   * returned `fixedPoint` is a view that the next solve overwrites.
   */
  solve(start: ArrayLike<number> | undefined): StartSolve;
  /** Service solves and evaluations of s − φ(ρ(s)) so far, over every solve. */
  profile(): { readonly solves: number; readonly evaluations: number };
}

/**
 * The uniqueness check's solver of a routing network from many starts: the sweeps of
 * `settleRouting` (strongly connected components in topological order, Gauss–Seidel over each
 * cycle from the start until no λin changes by more than `tolerance` relative between two
 * sweeps, flows under 1e-9 Γ counting absolutely, at most `maxIterations` sweeps), on the same
 * compiled plan, with changes that make a case's sweeps cheaper, with fewer evaluations of φ per
 * service solve (see docs/benchmarks.md, "verify-uniqueness throughput"):
 *
 * - each service is solved warm ({@link warmRejectionRoot}: secant steps from its s of the
 *   previous sweep, ρ(s) as one polynomial, φ in line with the M/M/1/m law by integer powers);
 * - inexactly while the sweeps still move: to {@link INNER_TOLERANCE_RATIO} of the previous
 *   sweep's largest change, never looser than {@link WARM_LOOSEST_TOLERANCE} nor tighter than
 *   {@link WARM_INNER_TOLERANCE}; a sweep may end the settle only if its solves were at least as
 *   tight as {@link FINAL_INNER_TOLERANCE}, so convergence is decided as in `settleRouting`, by a
 *   sweep that moved no λin by more than `tolerance` after solves to 1e-13 or better;
 * - all its tables in one buffer, allocated once per configuration.
 *
 * The fixed point it reaches is `settleRouting`'s to within the two solvers' tolerances, not bit
 * for bit; `test/model/uniqueness/warmPath.test.ts` states by how much, on the check's own
 * configurations. Each solve starts afresh (every service's first solve from a cold guess), so
 * the result depends only on the plan and the start.
 *
 * @returns undefined when a service needs more than a retry limit per class (a residual-time
 *   correction, per-try timeouts, anything the plan solves another way): then use
 *   `settleRouting`.
 * @example
 * ```ts
 * const plan = compileRouting(network);
 * const solver = warmRoutingSolver(network, plan);
 * solver?.solve(undefined).converged; // from λin = γ
 * ```
 */
export function warmRoutingSolver(
  network: NetworkModel,
  plan: RoutingPlan,
  options: WarmRoutingOptions = {},
): WarmRoutingSolver | undefined {
  if (
    plan.timed !== undefined ||
    plan.independent.some((solver) => solver === undefined) ||
    !network.services.every(isPlainService)
  ) {
    return undefined;
  }
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const maxIterations = options.maxIterations ?? 10_000;
  const { serviceCount: n, classCount, gamma, retryLimits, maxRetryLimit } = plan;
  const { incomingStart, incomingFrom, incomingProbability, floor } = plan;
  const mostLimit = maxRetryLimit.reduce((most, k) => Math.max(most, k), 0);
  // Every table of the solver in one buffer (one allocation per configuration, not eleven).
  const cells = n * classCount;
  const buffer = new Float64Array(7 * n + 2 * cells + 2 * mostLimit + 3);
  let used = 0;
  const table = (length: number): Float64Array => {
    used += length;
    return buffer.subarray(used - length, used);
  };
  /** Per service: its φ law's code, m and μ. */
  const law = table(n);
  const queue = table(n);
  const capacity = table(n);
  network.services.forEach((service, i) => {
    law[i] = PHI_LAW_CODE[service.model];
    queue[i] = service.queue;
    capacity[i] = service.capacity;
  });
  const lambdaIn = table(cells);
  const lambdaOut = table(cells);
  const s = table(n);
  // The tolerance each service was last solved to: an unchanged input skips its solve only when
  // that solve was at least as tight as the sweep's.
  const solvedTo = table(n);
  // Per service its learnt slope dh/ds (the first secant step's) and its evaluations of h.
  const memory = table(2 * n);
  const coefficients = table(mostLimit + 1);
  // s^j, j = 0 … k + 1, of the service being updated.
  const powers = table(mostLimit + 2);
  let solves = 0;
  /** Solves service i at its current λin from its last s, then λout per class. */
  const update = (i: number, innerTolerance: number): void => {
    solves++;
    const base = i * classCount;
    const degree = loadPolynomial(
      lambdaIn,
      base,
      retryLimits,
      base,
      classCount,
      capacity[i] as number,
      coefficients,
    );
    const si =
      degree < 0
        ? 0
        : warmRejectionRoot(
            law[i] as number,
            queue[i] as number,
            coefficients,
            degree,
            s[i] as number,
            innerTolerance,
            memory,
            2 * i,
          );
    s[i] = si;
    solvedTo[i] = innerTolerance;
    const top = (maxRetryLimit[i] as number) + 1;
    powers[0] = 1;
    for (let j = 1; j <= top; j++) powers[j] = (powers[j - 1] as number) * si;
    for (let k = base; k < base + classCount; k++) {
      lambdaOut[k] =
        (lambdaIn[k] as number) * (1 - (powers[(retryLimits[k] as number) + 1] as number));
    }
  };

  /** λin_i from the current λout; returns the largest relative change. */
  const gather = (i: number): number => {
    let change = 0;
    const base = i * classCount;
    for (let k = base; k < base + classCount; k++) {
      const p = k - base;
      let value = gamma[k] as number;
      const end = incomingStart[k + 1] as number;
      for (let e = incomingStart[k] as number; e < end; e++) {
        value +=
          (lambdaOut[(incomingFrom[e] as number) * classCount + p] as number) *
          (incomingProbability[e] as number);
      }
      // |value − old| / max(|value|, floor), divided only when it may be the largest.
      const moved = Math.abs(value - (lambdaIn[k] as number));
      const scale = Math.max(Math.abs(value), floor);
      if (moved > change * scale) change = moved / scale;
      lambdaIn[k] = value;
    }
    return change;
  };

  const solve = (start: ArrayLike<number> | undefined): StartSolve => {
    if (start === undefined) lambdaIn.set(gamma);
    else lambdaIn.set(start);
    lambdaOut.fill(0);
    // A cold guess for every service's first solve (the solver then steps from it).
    s.fill(Number.NaN);
    for (let i = 0; i < n; i++) {
      memory[2 * i] = 1;
      solvedTo[i] = Number.POSITIVE_INFINITY;
    }
    const topo = plan.topologicalOrder;
    if (topo !== undefined) {
      for (let k = 0; k < topo.length; k++) {
        const i = topo[k] as number;
        gather(i);
        update(i, WARM_INNER_TOLERANCE);
      }
      return { fixedPoint: lambdaIn, converged: true, iterations: 1 };
    }
    const { componentStart, componentNodes, componentCyclic } = plan;
    let iterations = 0;
    let converged = true;
    for (let c = 0; c < componentCyclic.length; c++) {
      const first = componentStart[c] as number;
      const end = componentStart[c + 1] as number;
      if (componentCyclic[c] === 0) {
        const i = componentNodes[first] as number;
        gather(i);
        update(i, WARM_INNER_TOLERANCE);
        if (iterations < 1) iterations = 1;
        continue;
      }
      for (let k = first; k < end; k++) update(componentNodes[k] as number, WARM_LOOSEST_TOLERANCE);
      let sweeps = 0;
      let settled = false;
      let previousChange = Number.POSITIVE_INFINITY;
      while (sweeps < maxIterations) {
        sweeps++;
        const innerTolerance = Math.min(
          WARM_LOOSEST_TOLERANCE,
          Math.max(WARM_INNER_TOLERANCE, INNER_TOLERANCE_RATIO * previousChange),
        );
        let change = 0;
        for (let k = first; k < end; k++) {
          const i = componentNodes[k] as number;
          const moved = gather(i);
          if (moved > change) change = moved;
          // An unchanged input, solved as tightly before, gives the same output: skip the solve.
          if (moved > 0 || sweeps === 1 || (solvedTo[i] as number) > innerTolerance) {
            update(i, innerTolerance);
          }
        }
        previousChange = change;
        // Settled only when this sweep's solves were tight: a sweep of loose solves whose inputs
        // happened not to move proves nothing about the fixed point.
        if (change <= tolerance && innerTolerance <= FINAL_INNER_TOLERANCE) {
          settled = true;
          break;
        }
      }
      if (sweeps > iterations) iterations = sweeps;
      if (!settled) converged = false;
    }
    return { fixedPoint: lambdaIn, converged, iterations };
  };

  return {
    solve,
    profile: () => {
      let evaluations = 0;
      for (let i = 0; i < n; i++) evaluations += memory[2 * i + 1] as number;
      return { solves, evaluations };
    },
  };
}

/** A service the warm solver reproduces: no residual-time correction and no per-try timeout. */
function isPlainService(service: NetworkModel['services'][number]): boolean {
  return (
    (service.residualAlphas ?? []).every((alphas) => alphas.length === 0) &&
    (service.timeouts ?? []).every((seconds) => seconds === undefined)
  );
}
