import type { NetworkReport } from './NetworkReport.js';
import { type EscapeRatePoint, type RampEscape, rampEscape } from './rampEscape.js';

/**
 * Where a network leaves its healthy state on a slow ramp up of a swept load, and its storm on the
 * ramp back down, from the orbit law's escape times at the swept points (docs/model.md, "How long
 * each state lasts"): `rampEscape` on the escape rates along the sweep.
 */

/** A state counts as a storm when more than this share of all requests fail end to end. */
export const STORM_REJECTION = 0.5;

/** Where each state is left on a ramp over the swept values (see {@link sweepRamp}). */
export interface SweepRamp {
  /** Each way's duration, seconds. */
  readonly seconds: number;
  /** The healthy state on the way up, from the first swept value to the last. */
  readonly tipping: RampEscape;
  /** The storm on the way down, from the last value to the first. */
  readonly recovery: RampEscape;
}

/**
 * The escape rates along a sweep of orbit-law reports, and where a ramp over it leaves each state.
 * At a point with two states the network leaves its healthy one at the sum of the rates at which
 * its bistable services leave theirs (1 / escape time each; any one tipping tips it), and its
 * storm likewise. At a point with one state that state is either a storm (more than
 * {@link STORM_REJECTION} of all requests fail: the healthy state no longer exists there, left
 * at once on the way up; the storm lasts) or healthy (the storm does not exist there, left at
 * once on the way down). `points` in the order of the values, ascending; `classWeights` each
 * class's external requests (any scale), to weigh the classes' rejections; `loadRises` whether
 * the load rises with the value (false for a swept capacity: the ramp "up" then lowers it).
 * @throws RangeError for fewer than two points, values not ascending, or `seconds` ≤ 0.
 */
export function sweepRamp(
  points: readonly { readonly value: number; readonly report: NetworkReport }[],
  seconds: number,
  classWeights: readonly number[],
  loadRises = true,
): SweepRamp {
  if (points.length < 2) throw new RangeError('a ramp needs a sweep of at least two values');
  const healthy: EscapeRatePoint[] = [];
  const storm: EscapeRatePoint[] = [];
  for (const { value, report } of points) {
    const first = report.equilibria[0];
    const last = report.equilibria.at(-1);
    if (first === undefined || last === undefined) throw new RangeError('a report lists no state');
    if (report.equilibria.length > 1) {
      healthy.push({ load: value, rate: leavingRate(first) });
      storm.push({ load: value, rate: leavingRate(last) });
    } else if (isStorm(report, first, classWeights)) {
      healthy.push({ load: value, rate: Number.POSITIVE_INFINITY });
      storm.push({ load: value, rate: 0 });
    } else {
      healthy.push({ load: value, rate: 0 });
      storm.push({ load: value, rate: Number.POSITIVE_INFINITY });
    }
  }
  const from = points[0]?.value as number;
  const to = points[points.length - 1]?.value as number;
  // Up the load: from the low end for a load, from the high end for a capacity.
  const [low, high] = loadRises ? [from, to] : [to, from];
  return {
    seconds,
    tipping: rampEscape(healthy, low, high, seconds),
    recovery: rampEscape(storm, high, low, seconds),
  };
}

/** The rate at which a network in `state` leaves it: Σ 1 / escape time over its services. */
function leavingRate(state: NetworkReport['equilibria'][number]): number {
  let rate = 0;
  for (const service of Object.values(state.services)) {
    const seconds = service.escapeSeconds;
    if (seconds !== undefined) rate += seconds > 0 ? 1 / seconds : Number.POSITIVE_INFINITY;
  }
  return rate;
}

/** Whether more than {@link STORM_REJECTION} of all requests fail end to end in `state`. */
function isStorm(
  report: NetworkReport,
  state: NetworkReport['equilibria'][number],
  classWeights: readonly number[],
): boolean {
  let requests = 0;
  let failed = 0;
  report.classes.forEach((c, p) => {
    const weight = classWeights[p] ?? 0;
    requests += weight;
    failed += weight * (state.endToEnd[c.name]?.rejection ?? 0);
  });
  return requests > 0 && failed / requests > STORM_REJECTION;
}
