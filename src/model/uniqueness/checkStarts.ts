import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { type DistinctPair, distinctPairFinder } from './compareFixedPoints.js';

/** One solve of a configuration from one start, with its vectors flat. */
export interface StartRun {
  /** Which start (0 … K − 1). */
  readonly init: number;
  /** The starting vector; undefined for start 0, the solver's own. */
  readonly start: Float64Array | undefined;
  /** The vector the solve ended at. */
  readonly fixedPoint: Float64Array;
  readonly converged: boolean;
  readonly iterations: number;
}

/** What a solver from a start reports: `fixedPoint` may be a view the next solve overwrites. */
export interface StartSolve {
  readonly fixedPoint: ArrayLike<number>;
  readonly converged: boolean;
  readonly iterations: number;
}

/** Options of {@link checkStarts}. */
export interface StartsOptions {
  /** K, the number of solves, at least 1. */
  readonly inits: number;
  /** Length of a start vector. */
  readonly size: number;
  /** Fills `start` with start `init` (1 … K − 1), drawing in order from the caller's random source. */
  readonly drawStart: (start: Float64Array, init: number) => void;
  /** Solves from `start` (undefined: the solver's own start). */
  readonly solve: (start: Float64Array | undefined) => StartSolve;
  /** How far apart two fixed points are. */
  readonly difference: (a: ArrayLike<number>, b: ArrayLike<number>) => number;
  /** Two converged runs farther apart than this are distinct. */
  readonly tolerance: number;
}

/** What K solves found, before the caller names its vectors. */
export interface StartsCheck {
  readonly converged: number;
  readonly nonConverged: number;
  /** Most iterations any run needed. */
  readonly maxIterations: number;
  /** The converged run farthest from the first converged one, when beyond the tolerance. */
  readonly distinct?: DistinctPair<StartRun>;
}

/**
 * The numerical check of uniqueness common to every form: solve from start 0 (the solver's own)
 * and from K − 1 drawn starts, in order, and compare each converged run with the first converged
 * one ({@link distinctPairFinder}). Only the reference and the farthest run are kept (copied),
 * so K is bounded by time, not memory, and the buffers are reused from run to run.
 * @throws {RangeError} when `inits` is not a positive integer.
 */
export function checkStarts(options: StartsOptions): StartsCheck {
  const { inits, size } = options;
  if (!(Number.isInteger(inits) && inits >= 1)) {
    throw new InvalidArgumentError(`inits should be a positive integer, got ${inits}`);
  }
  const finder = distinctPairFinder<StartRun>({
    difference: (reference, run) => options.difference(reference.fixedPoint, run.fixedPoint),
    tolerance: options.tolerance,
    keep: (run) => ({
      ...run,
      start: run.start?.slice(),
      fixedPoint: run.fixedPoint.slice(),
    }),
  });
  const start = new Float64Array(size);
  const fixedPoint = new Float64Array(size);
  let converged = 0;
  let maxIterations = Number.NEGATIVE_INFINITY;
  for (let init = 0; init < inits; init++) {
    if (init > 0) options.drawStart(start, init);
    const solved = options.solve(init === 0 ? undefined : start);
    fixedPoint.set(solved.fixedPoint);
    if (solved.converged) converged++;
    if (solved.iterations > maxIterations) maxIterations = solved.iterations;
    finder.add({
      init,
      start: init === 0 ? undefined : start,
      fixedPoint,
      converged: solved.converged,
      iterations: solved.iterations,
    });
  }
  const distinct = finder.result();
  return {
    converged,
    nonConverged: inits - converged,
    maxIterations,
    ...(distinct === undefined ? {} : { distinct }),
  };
}
