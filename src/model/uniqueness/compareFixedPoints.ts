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
    largest = largestRelativeDifference(row, other, floor, largest);
  });
  return largest;
}

/**
 * The largest of `largest` and |a_k − b_k| / max(|a_k|, |b_k|, floor) over k, for two flat lists
 * of the same length (a row of {@link fixedPointDifference}'s tables, or a whole flat table); a
 * NaN counts as an infinite difference.
 */
export function largestRelativeDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  floor = 0,
  largest = 0,
): number {
  let most = largest;
  for (let k = 0; k < a.length; k++) {
    const x = a[k] as number;
    const y = b[k] as number;
    const scale = Math.max(Math.abs(x), Math.abs(y), floor);
    const difference = scale === 0 ? 0 : Math.abs(x - y) / scale;
    // NaN (a broken run) counts as different from everything.
    if (!(difference <= most)) most = Number.isNaN(difference) ? Infinity : difference;
  }
  return most;
}

/** Two converged runs of any kind that reached different fixed points. */
export interface DistinctPair<Run> {
  readonly first: Run;
  readonly second: Run;
  readonly difference: number;
}

/**
 * The comparison of {@link findDistinctFixedPoints}, fed one run at a time so that a check of many
 * starts keeps two runs, not all of them: the first converged run is the reference, and each later
 * converged run whose `difference` from it exceeds `tolerance` and every such difference before
 * it becomes the second of the pair. `keep` is called on a run the finder holds on to (the
 * reference, or a new second), so a caller that reuses its buffers can copy just those.
 */
export function distinctPairFinder<Run extends { readonly converged: boolean }>(options: {
  readonly difference: (reference: Run, run: Run) => number;
  readonly tolerance: number;
  readonly keep?: (run: Run) => Run;
}): { add(run: Run): void; result(): DistinctPair<Run> | undefined } {
  const keep = options.keep ?? ((run: Run) => run);
  let reference: Run | undefined;
  let found: DistinctPair<Run> | undefined;
  return {
    add(run) {
      if (!run.converged) return;
      if (reference === undefined) {
        reference = keep(run);
        return;
      }
      const difference = options.difference(reference, run);
      if (
        difference > options.tolerance &&
        (found === undefined || difference > found.difference)
      ) {
        found = { first: reference, second: keep(run), difference };
      }
    },
    result: () => found,
  };
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
  const finder = distinctPairFinder<FixedPointRun>({
    difference: (reference, run) =>
      fixedPointDifference(reference.lambdaIn, run.lambdaIn, options.floor),
    tolerance: options.tolerance ?? DISTINCT_TOLERANCE,
  });
  for (const run of runs) finder.add(run);
  return finder.result();
}
