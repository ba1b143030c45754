import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/** An inclusive range of retry limits for one class: k = min, min + 1, …, max. */
export interface RetryRange {
  readonly min: number;
  readonly max: number;
}

/** The range a class gets when the grid does not name one: 0 to 8 retries. */
export const DEFAULT_RETRY_RANGE: RetryRange = Object.freeze({ min: 0, max: 8 });

/** The largest retry limit a grid may hold (the network solvers' own bound). */
export const MAX_GRID_RETRY_LIMIT = 1000;

/**
 * Checks a grid (one range per class, indexed like the network's classes) and fills in
 * {@link DEFAULT_RETRY_RANGE} where the grid is omitted or has a hole.
 * @throws RangeError naming the class and the bad range.
 */
export function resolveGrid(
  grid: readonly (RetryRange | undefined)[] | undefined,
  classNames: readonly string[],
): RetryRange[] {
  if (grid !== undefined && grid.length > classNames.length) {
    throw new InvalidArgumentError(
      `grid should have one range per class (${classNames.length}), got ${grid.length}`,
    );
  }
  return classNames.map((name, p) => {
    const range = grid?.[p] ?? DEFAULT_RETRY_RANGE;
    const { min, max } = range;
    if (
      !(
        Number.isInteger(min) &&
        Number.isInteger(max) &&
        min >= 0 &&
        min <= max &&
        max <= MAX_GRID_RETRY_LIMIT
      )
    ) {
      throw new InvalidArgumentError(
        `grid[${p}] (class ${name}) should be integers 0 ≤ min ≤ max ≤ ${MAX_GRID_RETRY_LIMIT}, got ${min}..${max}`,
      );
    }
    return { min, max };
  });
}

/** The number of points of a grid: the product of its ranges' lengths. */
export function gridSize(grid: readonly RetryRange[]): number {
  let size = 1;
  for (const range of grid) size *= range.max - range.min + 1;
  return size;
}

/**
 * Writes the retry limits of grid point `index` into `limits`, in lexicographic order of the
 * limits (the first class varies slowest), so point 0 is every class at its minimum.
 */
export function gridPoint(grid: readonly RetryRange[], index: number, limits: number[]): void {
  let rest = index;
  for (let p = grid.length - 1; p >= 0; p--) {
    const range = grid[p] as RetryRange;
    const length = range.max - range.min + 1;
    limits[p] = range.min + (rest % length);
    rest = Math.floor(rest / length);
  }
}
