import { interpolateRgb, scaleLinear } from 'd3';

/** The three colours of the ρ scale: idle, saturated (ρ = 1), overloaded (ρ ≥ 2). */
export interface RhoColors {
  readonly good: string;
  readonly warn: string;
  readonly bad: string;
}

/** The ρ the colour scale reaches its last colour at: twice the capacity offered. */
export const RHO_SCALE_MAX = 2;

/**
 * The colour of a service by its offered load ρ (attempts per second over capacity): `good` at
 * 0, `warn` at 1 (saturated), `bad` from {@link RHO_SCALE_MAX} up, interpolated in RGB between.
 * @example
 * ```ts
 * const color = rhoColor({ good: '#16a34a', warn: '#d97706', bad: '#dc2626' });
 * color(1); // 'rgb(217, 119, 6)'
 * ```
 */
export function rhoColor(colors: RhoColors): (rho: number) => string {
  const scale = scaleLinear<string>()
    .domain([0, 1, RHO_SCALE_MAX])
    .range([colors.good, colors.warn, colors.bad])
    .interpolate(interpolateRgb)
    .clamp(true);
  return (rho) => scale(Number.isFinite(rho) ? rho : RHO_SCALE_MAX);
}
