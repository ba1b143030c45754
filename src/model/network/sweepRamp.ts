import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { windowAverageVariance } from '../numeric/birthDeathFluctuation.js';
import type { NetworkReport } from './NetworkReport.js';
import { type EscapeRatePoint, type RampEscape, rampEscape } from './rampEscape.js';
import { windowReading } from './windowReading.js';

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
  /** The window it was read with, seconds, if any (see {@link SweepRampOptions}). */
  readonly windowSeconds?: number;
  /** The healthy state on the way up, from the first swept value to the last. */
  readonly tipping: RampEscape;
  /** The storm on the way down, from the last value to the first. */
  readonly recovery: RampEscape;
}

/** How {@link sweepRamp} reads the ramp. */
export interface SweepRampOptions {
  /**
   * Read it as a dashboard of windows this many seconds long does: each state is also left when
   * one of its windows reads the other side of {@link STORM_REJECTION} (`windowReading`: the
   * requests ending in a window Poisson, their failed share scattering with the services' swings,
   * `failedShares` in the orbit law's report). Without it, a state is left only by escaping.
   */
  readonly windowSeconds?: number;
  /** Judge the storm by this class alone (its end-to-end rejection, its windows), not by all. */
  readonly className?: string;
}

/**
 * The escape rates along a sweep of orbit-law reports, and where a ramp over it leaves each state.
 * At a point with two states the network leaves its healthy one at the sum of the rates at which
 * its bistable services leave theirs (1 / escape time each; any one tipping tips it), and its
 * storm likewise. At a point with one state that state is either a storm (more than
 * {@link STORM_REJECTION} of all requests fail: the healthy state no longer exists there, left
 * at once on the way up; the storm lasts) or healthy (the storm does not exist there, left at
 * once on the way down). With a window (`options.windowSeconds`) the state a ramp is in at each
 * point — the lowest on the way up, the highest on the way down — is also left at −ln(1 − q)/W,
 * q the chance that one window of it reads the other side of {@link STORM_REJECTION}; a point's
 * one state is then left only so (or never). `points` in the order of the values, ascending;
 * `classWeights` each class's external requests (any scale), to weigh the classes' rejections;
 * `loadRises` whether the load rises with the value (false for a swept capacity: the ramp "up"
 * then lowers it).
 * @throws RangeError for fewer than two points, values not ascending, `seconds` ≤ 0, a window of
 * no length, or an unknown class.
 */
export function sweepRamp(
  points: readonly { readonly value: number; readonly report: NetworkReport }[],
  seconds: number,
  classWeights: readonly number[],
  loadRises = true,
  options: SweepRampOptions = {},
): SweepRamp {
  if (points.length < 2)
    throw new InvalidArgumentError('a ramp needs a sweep of at least two values');
  const { windowSeconds } = options;
  if (windowSeconds !== undefined && !(windowSeconds > 0 && Number.isFinite(windowSeconds)))
    throw new InvalidArgumentError(`a window should last > 0 s, got ${windowSeconds}`);
  const healthy: EscapeRatePoint[] = [];
  const storm: EscapeRatePoint[] = [];
  for (const { value, report } of points) {
    const first = report.equilibria[0];
    const last = report.equilibria.at(-1);
    if (first === undefined || last === undefined)
      throw new InvalidArgumentError('a report lists no state');
    const weights = judgedWeights(report, classWeights, options.className);
    const two = report.equilibria.length > 1;
    if (windowSeconds !== undefined) {
      // The judged classes' requests ending in a window.
      let requests = 0;
      report.classes.forEach((c, p) => {
        if ((weights[p] ?? 0) > 0)
          requests += (first.endToEnd[c.name]?.requests ?? 0) * windowSeconds;
      });
      const read = (state: NetworkReport['equilibria'][number]) =>
        windowOf(report, state, weights, windowSeconds, requests);
      const perWindow = (q: number) => -Math.log1p(-Math.min(q, 1)) / windowSeconds;
      healthy.push({
        load: value,
        rate: (two ? leavingRate(first) : 0) + perWindow(read(first).above),
      });
      storm.push({
        load: value,
        rate: (two ? leavingRate(last) : 0) + perWindow(read(last).atOrBelow),
      });
    } else if (two) {
      healthy.push({ load: value, rate: leavingRate(first) });
      storm.push({ load: value, rate: leavingRate(last) });
    } else if (failedShare(report, first, weights) > STORM_REJECTION) {
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
    ...(windowSeconds === undefined ? {} : { windowSeconds }),
    tipping: rampEscape(healthy, low, high, seconds),
    recovery: rampEscape(storm, high, low, seconds),
  };
}

/** The classes' weights in the judged share: all of them, or one class's alone. */
function judgedWeights(
  report: NetworkReport,
  classWeights: readonly number[],
  className: string | undefined,
): number[] {
  if (className === undefined) return report.classes.map((_, p) => classWeights[p] ?? 0);
  const index = report.classes.findIndex((c) => c.name === className);
  if (index < 0)
    throw new InvalidArgumentError(
      `no class ${className}; the classes are ${report.classes.map((c) => c.name).join(', ')}`,
    );
  return report.classes.map((_, p) => (p === index ? (classWeights[p] ?? 0) : 0));
}

/**
 * How one window of `state` reads: `requests` judged requests ending in it on average, failing
 * with the state's weighted end-to-end rejection, which scatters from window to window by each
 * service's swing of its failed share (classes at one service swing together, services
 * independently), carried to end to end by its `endToEnd` weight.
 */
function windowOf(
  report: NetworkReport,
  state: NetworkReport['equilibria'][number],
  weights: readonly number[],
  seconds: number,
  requests: number,
) {
  const total = weights.reduce((sum, w) => sum + w, 0);
  let variance = 0;
  for (const service of Object.values(state.services)) {
    let spread = 0;
    report.classes.forEach((c, p) => {
      const swing = service.failedShares?.[c.name];
      const w = total > 0 ? (weights[p] ?? 0) / total : 0;
      if (swing === undefined || w === 0) return;
      spread += w * swing.endToEnd * Math.sqrt(windowAverageVariance(swing, seconds));
    });
    variance += spread * spread;
  }
  return windowReading({
    requests,
    rejection: Math.min(Math.max(failedShare(report, state, weights), 0), 1),
    shareVariance: variance,
    threshold: STORM_REJECTION,
  });
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

/** The weighted share of requests that fail end to end in `state` (0 with no weight). */
function failedShare(
  report: NetworkReport,
  state: NetworkReport['equilibria'][number],
  weights: readonly number[],
): number {
  let requests = 0;
  let failed = 0;
  report.classes.forEach((c, p) => {
    const weight = weights[p] ?? 0;
    requests += weight;
    failed += weight * (state.endToEnd[c.name]?.rejection ?? 0);
  });
  return requests > 0 ? failed / requests : 0;
}
