import type { NetworkModel } from '../network/NetworkModel.js';
import { routingState } from '../network/RoutingState.js';
import { compileRouting, type RoutingPlan } from '../network/routingPlan.js';
import { settleRouting } from '../network/solveRouting.js';
import { routingGuarantee, type UniquenessGuarantee } from '../network/structure.js';
import type { RandomSource } from '../random.js';
import { checkStarts, type StartRun, type StartSolve } from './checkStarts.js';
import {
  DISTINCT_TOLERANCE,
  type DistinctFixedPoints,
  type FixedPointRun,
  largestRelativeDifference,
} from './compareFixedPoints.js';
import { warmRoutingSolver } from './warmRoutingSolver.js';

/** Initial λin are drawn uniformly in [0, this × (γ_i^p + total external rate)]. */
export const INITIAL_SPREAD = 10;

/** A solver of the routing model from a starting λin (as a table), which a test may inject. */
export type RoutingSolver = (
  network: NetworkModel,
  initialIn: readonly (readonly number[])[] | undefined,
) => {
  readonly lambdaIn: readonly (readonly number[])[];
  readonly converged: boolean;
  readonly iterations: number;
};

/** Options of {@link checkConfiguration}. */
export interface CheckOptions {
  /** K, the number of solves (initial points), at least 1. */
  readonly inits: number;
  /** Draws the initial points. */
  readonly random: RandomSource;
  /**
   * Relative difference above which two converged runs are distinct; default 1e-6.
   * @default 1e-6
   */
  readonly tolerance?: number;
  /**
   * A solver to use instead of the network's own (a test seam): called once per start with the
   * start as a table; default the network compiled once (`compileRouting`) and settled from each
   * start by {@link warmRoutingSolver} (the sweeps of `settleRouting` with warm, inexact service
   * solves; its defaults: 1e-12, 10,000 sweeps), or by `settleRouting` itself when a service
   * needs the general single-service law.
   * @default the network's own solver (warm `settleRouting` from each start)
   */
  readonly solve?: RoutingSolver;
  /**
   * Settle every start with `settleRouting` itself, so each run is bit for bit what
   * `solveRouting` (and `difftry analyze`) gives, instead of the warm path; slower than the warm
   * path (see docs/benchmarks.md, "verify-uniqueness throughput"). Default false.
   * @default false
   */
  readonly exact?: boolean;
  /**
   * The network's uniqueness guarantee when the caller already has it (from
   * `drawConfigurationWithGuarantee`); default derived here by `routingGuarantee`.
   * @default derived here by `routingGuarantee`
   */
  readonly guarantee?: UniquenessGuarantee;
}

/** What K solves of one configuration found. */
export interface ConfigurationCheck {
  readonly classes: number;
  readonly services: number;
  /** Which guarantee of uniqueness holds (`none`: only this numerical check). */
  readonly guarantee: UniquenessGuarantee;
  /** Solves run (cases): K. */
  readonly runs: number;
  readonly converged: number;
  /** Runs that hit the sweep limit: counted, never a counterexample. */
  readonly nonConverged: number;
  /** Most sweeps any run needed. */
  readonly maxIterations: number;
  /** Two converged runs at different fixed points, if any: a counterexample to uniqueness. */
  readonly distinct?: DistinctFixedPoints;
}

/**
 * Solves a routing network K times from different initial λin and checks that every converged
 * run reaches the same fixed point (docs/design.md, "A network": uniqueness is proven only for a DAG,
 * ‖F‖∞ < 1/(P − 1), or class-independent routing with P ≤ 2; this is the paper's numerical check
 * for the rest). Run 0 starts where `difftry analyze` does, at λin = γ; runs 1 … K − 1 start at
 * λin_i^p uniform in [0, 10 (γ_i^p + Γ)], Γ the total external rate, drawn in order from
 * `random`. Two converged runs are distinct when some λin differs by more than `tolerance`
 * relative (flows under 1e-9 Γ count absolutely, as in the solver).
 *
 * The network is compiled once and settled from each start by {@link warmRoutingSolver}: the
 * sweeps of the solver `solveRouting` and `difftry analyze` use, with each service solved warm
 * from its previous sweep, so each case costs only its sweeps and few evaluations of φ. Its
 * fixed points are those of `solveRouting` to within the solvers' tolerances (far inside the
 * 1e-6 that makes two runs distinct; `test/model/uniqueness/warmPath.test.ts` has the figures).
 * Only the first converged run and the farthest from it are kept.
 *
 * Pure: the result depends only on the network and the draws of `random`.
 * @throws {RangeError} when `inits` is not a positive integer.
 * @example
 * ```ts
 * const check = checkConfiguration(network, { inits: 10, random: seededRandom(3) });
 * if (check.distinct) console.log('two fixed points', check.distinct.difference);
 * ```
 */
export function checkConfiguration(
  network: NetworkModel,
  options: CheckOptions,
): ConfigurationCheck {
  const { inits, random } = options;
  const n = network.services.length;
  const classCount = network.classes.length;
  const gamma = new Float64Array(n * classCount);
  let totalExternal = 0;
  network.services.forEach((service, i) => {
    for (let p = 0; p < classCount; p++) {
      const g = service.arrivals[p] ?? 0;
      gamma[i * classCount + p] = g;
      totalExternal += g;
    }
  });
  const floor = 1e-9 * totalExternal;
  const plan = options.solve === undefined ? compileRouting(network) : undefined;
  const check = checkStarts({
    inits,
    size: n * classCount,
    drawStart: (start) => {
      for (let k = 0; k < start.length; k++) {
        start[k] = INITIAL_SPREAD * ((gamma[k] as number) + totalExternal) * random();
      }
    },
    solve:
      plan === undefined
        ? tableSolver(options.solve as RoutingSolver, network, n, classCount)
        : ((options.exact === true ? undefined : warmRoutingSolver(network, plan)?.solve) ??
          compiledSolver(plan)),
    difference: (a, b) => largestRelativeDifference(a, b, floor),
    tolerance: options.tolerance ?? DISTINCT_TOLERANCE,
  });
  const distinct = check.distinct;
  const table = (flat: Float64Array) => tableOf(flat, n, classCount);
  const named = (run: StartRun): FixedPointRun => ({
    init: run.init,
    initialIn: run.start === undefined ? undefined : table(run.start),
    lambdaIn: table(run.fixedPoint),
    converged: run.converged,
    iterations: run.iterations,
  });
  return {
    classes: classCount,
    services: n,
    guarantee: options.guarantee ?? routingGuarantee(network, plan?.rows).uniqueness,
    runs: inits,
    converged: check.converged,
    nonConverged: check.nonConverged,
    maxIterations: check.maxIterations,
    ...(distinct === undefined
      ? {}
      : {
          distinct: {
            first: named(distinct.first),
            second: named(distinct.second),
            difference: distinct.difference,
          },
        }),
  };
}

/**
 * The network compiled once and settled from each start by `settleRouting`: the check's solver
 * when some service needs the general single-service law.
 */
function compiledSolver(plan: RoutingPlan): (start: Float64Array | undefined) => StartSolve {
  const state = routingState(plan);
  return (start) => {
    const settled = settleRouting(plan, state, { initialIn: start });
    return {
      fixedPoint: state.lambdaIn,
      converged: settled.converged,
      iterations: settled.iterations,
    };
  };
}

/** An injected solver of tables, seen through flat vectors. */
function tableSolver(
  solve: RoutingSolver,
  network: NetworkModel,
  n: number,
  classCount: number,
): (start: Float64Array | undefined) => StartSolve {
  const fixedPoint = new Float64Array(n * classCount);
  return (start) => {
    const solution = solve(
      network,
      start === undefined ? undefined : tableOf(start, n, classCount),
    );
    for (let i = 0; i < n; i++) {
      for (let p = 0; p < classCount; p++) {
        fixedPoint[i * classCount + p] = solution.lambdaIn[i]?.[p] ?? Number.NaN;
      }
    }
    return { fixedPoint, converged: solution.converged, iterations: solution.iterations };
  };
}

/** A flat per-service, per-class vector as a table: row i holds classes 0 … P − 1. */
function tableOf(flat: Float64Array, n: number, classCount: number): number[][] {
  return Array.from({ length: n }, (_, i) =>
    Array.from(flat.subarray(i * classCount, (i + 1) * classCount)),
  );
}
