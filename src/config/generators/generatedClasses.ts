import type { ClassSpec } from '../schema.js';
import { roundSignificant } from './roundSignificant.js';

/** Retry limits of the classes, highest priority first; later classes retry 0 times. */
const RETRY_LIMITS = [5, 3, 1];

/**
 * The priority classes of a generated network, highest first: `high` and `low` when there are
 * two, `c1` … `cP` otherwise. Retry limits fall from 5 by 2 per class to a floor of 0 (5, 3, 1,
 * 0, …), and the lowest of several classes retries at most once, so two classes get DiffTry's
 * (5, 1). No backoff is set: the network's default applies.
 */
export function generatedClasses(count: number): ClassSpec[] {
  const names =
    count === 2 ? ['high', 'low'] : Array.from({ length: count }, (_, i) => `c${i + 1}`);
  return names.map((name, i) => {
    const limit = RETRY_LIMITS[i] ?? 0;
    const retries = count > 1 && i === count - 1 ? Math.min(limit, 1) : limit;
    return { name, retries, weight: 1 };
  });
}

/**
 * Splits the total external arrival rate (requests/s) across the classes: 1 : 5 for `high` :
 * `low` (cheap traffic dominates, as in docs/design.md's example), evenly otherwise. Each rate is
 * rounded to 4 significant digits.
 */
export function splitArrivals(
  classes: readonly ClassSpec[],
  totalRate: number,
): Record<string, number> {
  const shares = classes.length === 2 ? [1 / 6, 5 / 6] : classes.map(() => 1 / classes.length);
  return Object.fromEntries(
    classes.map((c, i) => [c.name, roundSignificant(totalRate * (shares[i] ?? 0))]),
  );
}
