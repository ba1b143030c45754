/**
 * How docs/metastability.md writes the figures of a `MetastabilityResult`: estimates with
 * their 95 % half-widths, rates, retry limits, and the analysis at a load in words. Shared by the
 * page, its CSV files and its charts.
 */

import { fixed, percent, percentPlusMinus, plusMinus } from '../../report/numberFormat.js';
import type { MeanWithCi95 } from '../../stats/confidence.js';
import type { EquilibriumFigures, PointAnalysis } from './metastabilityAnalysis.js';
import { LIMITS, type LimitsKey } from './metastabilityLimits.js';

/** A mean ± its 95 % half-width, 1 decimal (or `digits`). */
export const pmText = (m: MeanWithCi95, digits = 1) => plusMinus(m.mean, m.ci95, digits);
/** A fraction's mean ± its 95 % half-width, as percentages. */
export const pctPm = (m: MeanWithCi95) => percentPlusMinus(m.mean, m.ci95);
/** A rate with 1 decimal; — when there is none. */
export const rate = (x: number | undefined) => (x === undefined ? '—' : fixed(x, 1));
/** The retry limits as `(k_high, k_low)`. */
export const kText = (limits: LimitsKey) => {
  const { high, low } = LIMITS[limits].retries;
  return `(${high}, ${low})`;
};

/** One equilibrium in words: its kind, rejections, attempts per request and ρ. */
export function equilibriumText(e: EquilibriumFigures): string {
  return `${e.kind} (high ${percent(e.rejection.high)}, low ${percent(e.rejection.low)}; ${fixed(e.attemptsPerRequest)} attempts per request, ρ = ${fixed(e.entryRho)})`;
}

/** The analysis at a load in a line: `bistable: healthy (…); storm (…)` or `one state: …`. */
export function analysisText(a: PointAnalysis): string {
  return `${a.bistable ? 'bistable' : 'one state'}: ${a.equilibria.map(equilibriumText).join('; ')}`;
}

/** `bistable`, or `one state, healthy` / `one state, storm`. */
export function verdict(a: PointAnalysis): string {
  if (a.bistable) return 'bistable';
  const [only] = a.equilibria;
  return only === undefined ? 'n/a' : `one state, ${only.kind}`;
}

/** The analysis's storm at the load, if it finds one. */
export const storm = (a: PointAnalysis) => a.equilibria.find((e) => e.kind === 'storm');
/** The analysis's healthy state at the load, if it finds one. */
export const healthy = (a: PointAnalysis) => a.equilibria.find((e) => e.kind === 'healthy');
