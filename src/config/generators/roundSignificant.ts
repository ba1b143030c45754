/** Significant digits kept in generated numbers: enough for the analysis, short enough to read. */
export const SIGNIFICANT_DIGITS = 4;

/**
 * `value` rounded to the nearest number with `digits` significant digits (default 4).
 *
 * @example
 * ```ts
 * roundSignificant(143.2857); // 143.3
 * ```
 */
export function roundSignificant(value: number, digits = SIGNIFICANT_DIGITS): number {
  return Number(value.toPrecision(digits));
}

/**
 * The largest number with `digits` significant digits (default 4) that is at most `value`, for a
 * positive `value`: it stays positive, and a sum of probabilities rounded this way never grows
 * past the sum it was drawn to respect.
 *
 * @example
 * ```ts
 * floorSignificant(0.299999); // 0.2999
 * ```
 */
export function floorSignificant(value: number, digits = SIGNIFICANT_DIGITS): number {
  const nearest = roundSignificant(value, digits);
  if (nearest <= value) return nearest;
  // One unit in the last kept digit; nearest ≥ 10^exponent, so the difference stays positive.
  const exponent = Math.floor(Math.log10(nearest));
  return roundSignificant(nearest - 10 ** (exponent - digits + 1), digits);
}
