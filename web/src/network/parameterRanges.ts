import { MAX_RETRIES, type NetworkSpec } from 'difftry/config';
import { entryServiceIndex } from './NetworkParameters.js';

/** A slider's range: from `min` to `max` in steps of `step`. */
export interface SliderRange {
  readonly min: number;
  readonly max: number;
  readonly step: number;
}

/**
 * The range of a class's arrival-rate slider (requests per second): from 0 to twice the file's
 * rate at the entry service (to its capacity where the file has none), in steps of a power of
 * ten about a hundredth of that (1 request/s up to 999, 0.1 below 100).
 * @example
 * ```ts
 * arrivalRange(hotel, 'low'); // { min: 0, max: 500, step: 1 }: the file says 250
 * ```
 */
export function arrivalRange(network: NetworkSpec, className: string): SliderRange {
  const entry = network.services[entryServiceIndex(network)];
  const rate = entry?.arrivals[className] ?? 0;
  const max = rate > 0 ? 2 * rate : (entry?.capacity ?? 100);
  return { min: 0, max, step: 10 ** Math.floor(Math.log10(max / 100)) };
}

/** The range of a retry-limit slider: 0 to 10, or to twice the file's limit when that is more. */
export function retryRange(fileLimit: number): SliderRange {
  return { min: 0, max: Math.min(MAX_RETRIES, Math.max(10, 2 * fileLimit)), step: 1 };
}

/** A value moved into a slider's range and onto its steps (counted from `min`). */
export function clampToRange(value: number, range: SliderRange): number {
  const steps = Math.round((value - range.min) / range.step);
  const snapped = range.min + steps * range.step;
  // Round off the binary noise of a decimal step (0.1 · 7 = 0.7000000000000001).
  const decimals = Math.max(0, -Math.floor(Math.log10(range.step)));
  return Math.min(range.max, Math.max(range.min, Number(snapped.toFixed(decimals))));
}
