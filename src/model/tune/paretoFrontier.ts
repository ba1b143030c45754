import {
  comparable,
  compareByRetries,
  DEFAULT_SIGNIFICANT_DIGITS,
  type TunePoint,
} from './TunePoint.js';

/**
 * The Pareto frontier of points over (objective ↑, attempts per request ↓): the points no other
 * point beats on one of the two without losing on the other. Each is the best objective that
 * costs at most its attempts per request, so read in order it shows what each extra attempt
 * buys. Returned by objective, highest first (and so by attempts per request, highest first).
 *
 * Attempts per request is the cost that matters under overload: every attempt is load on some
 * service, and retry storms show up there first. Constraints (say, on the high class's
 * rejection) restrict the points before the frontier is taken; they are not a third axis, which
 * would make the frontier large and hard to read.
 *
 * Values are compared at `digits` significant digits ({@link comparable}, default 10); points
 * equal on both
 * appear once, the one with fewer total retries (then lexicographically smaller limits). Every
 * point left out is thus matched or beaten on both axes by a frontier point.
 * O(n log n).
 */
export function paretoFrontier(
  points: readonly TunePoint[],
  digits = DEFAULT_SIGNIFICANT_DIGITS,
): TunePoint[] {
  const keyed = points.map((point) => ({
    point,
    objective: comparable(point.objective, digits),
    attempts: comparable(point.metrics.attemptsPerRequest, digits),
  }));
  keyed.sort(
    (a, b) =>
      b.objective - a.objective || a.attempts - b.attempts || compareByRetries(a.point, b.point),
  );
  const frontier: TunePoint[] = [];
  let fewestAttempts = Number.POSITIVE_INFINITY;
  for (const { point, attempts } of keyed) {
    // Sorted by objective: a point is on the frontier iff it needs fewer attempts than every
    // point with at least its objective (the first of an objective level has its least attempts).
    if (attempts < fewestAttempts) {
      frontier.push(point);
      fewestAttempts = attempts;
    }
  }
  return frontier;
}
