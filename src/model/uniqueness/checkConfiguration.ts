import type { NetworkModel } from '../network/NetworkModel.js';
import { solveRouting } from '../network/solveRouting.js';
import { routingStructure, type UniquenessGuarantee } from '../network/structure.js';
import type { RandomSource } from '../random.js';
import {
  DISTINCT_TOLERANCE,
  type DistinctFixedPoints,
  type FixedPointRun,
  findDistinctFixedPoints,
} from './compareFixedPoints.js';

/** Initial λin are drawn uniformly in [0, this × (γ_i^p + total external rate)]. */
export const INITIAL_SPREAD = 10;

/** A solver of the routing model from a starting λin: {@link solveRouting} unless a test injects one. */
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
  /** Relative difference above which two converged runs are distinct; default 1e-6. */
  readonly tolerance?: number;
  /** The solver; default {@link solveRouting} with its defaults (1e-12, 10,000 sweeps). */
  readonly solve?: RoutingSolver;
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
 * run reaches the same fixed point (DESIGN.md, "A network": uniqueness is proven only for a DAG,
 * ‖F‖∞ < 1/(P − 1), or class-independent routing with P ≤ 2; this is the paper's numerical check
 * for the rest). Run 0 starts where `difftry analyze` does, at λin = γ; runs 1 … K − 1 start at
 * λin_i^p uniform in [0, 10 (γ_i^p + Γ)], Γ the total external rate, drawn in order from
 * `random`. Two converged runs are distinct when some λin differs by more than `tolerance`
 * relative (flows under 1e-9 Γ count absolutely, as in the solver).
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
  if (!(Number.isInteger(inits) && inits >= 1)) {
    throw new RangeError(`inits should be a positive integer, got ${inits}`);
  }
  const solve = options.solve ?? defaultSolver;
  const gamma = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const totalExternal = gamma.flat().reduce((a, b) => a + b, 0);
  const runs: FixedPointRun[] = [];
  for (let init = 0; init < inits; init++) {
    const initialIn =
      init === 0
        ? undefined
        : gamma.map((row) => row.map((g) => INITIAL_SPREAD * (g + totalExternal) * random()));
    const solution = solve(network, initialIn);
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

const defaultSolver: RoutingSolver = (network, initialIn) =>
  solveRouting(network, initialIn === undefined ? {} : { initialIn });
