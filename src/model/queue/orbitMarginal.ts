/** The orbit law's level marginal and what is read off it: troughs, peaks, masses. */

/** A trough between two peaks of the orbit's law below this share of the lower peak splits it. */
const TROUGH_RATIO = 0.1;

/** The stationary probability of each orbit level. */
export function levelMarginal(pi: readonly Float64Array[]): Float64Array {
  const marginal = new Float64Array(pi.length);
  pi.forEach((level, n) => {
    let sum = 0;
    for (const w of level) sum += w;
    marginal[n] = sum;
  });
  return marginal;
}

/**
 * The level of the deepest trough between the lowest and the highest peak of the orbit's law,
 * when it holds less than {@link TROUGH_RATIO} of the lower of the two peaks (two metastable
 * states), else undefined (one).
 */
export function metastableTrough(marginal: ArrayLike<number>): number | undefined {
  const peaks: number[] = [];
  for (let n = 0; n < marginal.length; n++) {
    const here = marginal[n] as number;
    if (!(here > 0)) continue;
    const before = n > 0 ? (marginal[n - 1] as number) : -1;
    const after = n + 1 < marginal.length ? (marginal[n + 1] as number) : -1;
    if (here > before && here >= after) peaks.push(n);
  }
  if (peaks.length < 2) return undefined;
  const low = peaks[0] as number;
  const high = peaks[peaks.length - 1] as number;
  let trough = low;
  for (let n = low; n <= high; n++) {
    if ((marginal[n] as number) < (marginal[trough] as number)) trough = n;
  }
  const lower = Math.min(marginal[low] as number, marginal[high] as number);
  return (marginal[trough] as number) < TROUGH_RATIO * lower ? trough : undefined;
}

/** The level of the largest probability of the orbit's law on [from, to]. */
export function peakOf(marginal: ArrayLike<number>, from: number, to: number): number {
  let best = from;
  for (let n = from; n <= Math.min(to, marginal.length - 1); n++)
    if ((marginal[n] as number) > (marginal[best] as number)) best = n;
  return best;
}

/** The law's mass on the levels [from, to]. */
export function massOf(marginal: Float64Array, from: number, to: number): number {
  let mass = 0;
  for (let n = from; n <= to && n < marginal.length; n++) mass += marginal[n] as number;
  return mass;
}
