import { clampToRange, type SliderRange } from './parameterRanges.js';

/** How many points the sweep chart has. */
export const SWEEP_POINTS = 20;

/**
 * The swept arrival rates of the sweep chart (requests per second): {@link SWEEP_POINTS} evenly
 * spaced over the rate slider's range, its lowest point one step above zero. The slider reaches
 * twice the file's rate, so on hotelReservation (γ_low = 250) these are 25, 50, …, 500, which
 * hold the DiffTry paper's Figure 5 points (`FIGURE5_GAMMA_LOWS`, 50 … 250) and the load beyond.
 */
export function sweepValues(range: SliderRange): number[] {
  return Array.from({ length: SWEEP_POINTS }, (_, i) =>
    clampToRange(((i + 1) * range.max) / SWEEP_POINTS, range),
  );
}
