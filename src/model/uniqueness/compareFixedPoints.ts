/**
 * Two converged runs are distinct fixed points when some λin_i^p differs by more than this,
 * relative: |a − b| / max(|a|, |b|, floor) > 1e-6. The solver settles each run to 1e-12 relative
 * between sweeps, so runs of one fixed point agree far inside it.
 */
export const DISTINCT_TOLERANCE = 1e-6;

/** One solve of a configuration from one initial point. */
export interface FixedPointRun {
  /** Which initial point (0 … K − 1). */
  readonly init: number;
  /** The starting λin per service and class, requests/s; undefined for the solver's own (γ). */
  readonly initialIn: readonly (readonly number[])[] | undefined;
  /** The λin the run ended at, per service and class, requests/s. */
  readonly lambdaIn: readonly (readonly number[])[];
  readonly converged: boolean;
  readonly iterations: number;
}

/** Two converged runs that reached different fixed points. */
export interface DistinctFixedPoints {
  readonly first: FixedPointRun;
  readonly second: FixedPointRun;
  /** Their largest relative difference over services and classes. */
  readonly difference: number;
}

/**
 * The largest relative difference between two λin tables over services i and classes p:
 * max |a − b| / max(|a|, |b|, floor). `floor` (requests/s, ≥ 0) keeps flows that are zero in
 * both, or negligibly small, from counting as large relative changes; the solver uses 1e-9 of
 * the total external rate.
 * @throws {RangeError} when the tables differ in shape.
 */
export function fixedPointDifference(
  a: readonly (readonly number[])[],
  b: readonly (readonly number[])[],
  floor = 0,
): number {
  if (a.length !== b.length) {
    throw new RangeError(
      `fixed points should have the same services, got ${a.length} and ${b.length}`,
    );
  }
  let largest = 0;
  a.forEach((row, i) => {
    const other = b[i] as readonly number[];
    if (row.length !== other.length) {
      throw new RangeError(
        `fixed points should have the same classes at service ${i}, got ${row.length} and ${other.length}`,
      );
    }
    row.forEach((x, p) => {
      const y = other[p] as number;
      const scale = Math.max(Math.abs(x), Math.abs(y), floor);
      const difference = scale === 0 ? 0 : Math.abs(x - y) / scale;
      // NaN (a broken run) counts as different from everything.
      if (!(difference <= largest)) largest = Number.isNaN(difference) ? Infinity : difference;
    });
  });
  return largest;
}

/**
 * Whether the converged runs reached more than one fixed point: compares every converged run
 * with the first converged one and returns the pair with the largest difference when it exceeds
 * `tolerance` (default {@link DISTINCT_TOLERANCE}); undefined when they all agree (or fewer than
 * two converged). Runs that did not converge are never a counterexample: they are counted apart.
 * Comparing with one reference suffices: if every run is within t of it, any two are within 2t.
 */
export function findDistinctFixedPoints(
  runs: readonly FixedPointRun[],
  options: { readonly tolerance?: number; readonly floor?: number } = {},
): DistinctFixedPoints | undefined {
  const tolerance = options.tolerance ?? DISTINCT_TOLERANCE;
  const converged = runs.filter((run) => run.converged);
  const [reference] = converged;
  if (reference === undefined) return undefined;
  let found: DistinctFixedPoints | undefined;
  for (const run of converged.slice(1)) {
    const difference = fixedPointDifference(reference.lambdaIn, run.lambdaIn, options.floor);
    if (difference > tolerance && (found === undefined || difference > found.difference)) {
      found = { first: reference, second: run, difference };
    }
  }
  return found;
}
