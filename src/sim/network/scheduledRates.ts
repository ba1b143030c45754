import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import type { LoadSchedule, ScheduleNetwork } from '../../model/network/LoadSchedule.js';
import { resolveLoadSchedule } from '../../model/network/resolveLoadSchedule.js';
import { piecewiseLinearMultiplier, type RateMultiplier } from './RateMultiplier.js';

/**
 * The multipliers a {@link LoadSchedule} puts on a network's rates: per service its capacity's,
 * per cell (service × class) its external arrivals', undefined where the schedule changes
 * nothing (the multiplier is 1 throughout).
 */
export interface ScheduledRates {
  /** Per service index. */
  readonly capacity: readonly (RateMultiplier | undefined)[];
  /** Per cell, `service * classCount + class`. */
  readonly arrivals: readonly (RateMultiplier | undefined)[];
}

/**
 * Resolves a schedule against a network into the multiplier of every rate it changes.
 * @throws RangeError naming the first change that breaks a rule of `resolveLoadSchedule`:
 *   `schedule.changes[1].service: expected a service of the network (api, db), got "dbb"`.
 * @example
 * ```ts
 * const rates = scheduledRates({ changes: [{ at: 100, until: 110, service: 'api', capacity: 0.3 }] }, network);
 * rates.capacity[0]?.at(105); // 0.3
 * ```
 */
export function scheduledRates(schedule: LoadSchedule, network: ScheduleNetwork): ScheduledRates {
  if (!Array.isArray(schedule?.changes)) {
    throw new InvalidArgumentTypeError('schedule should be an object with a list of changes');
  }
  const resolved = resolveLoadSchedule(schedule, network);
  const [first] = resolved.problems;
  if (first !== undefined) {
    const field = first.field === undefined ? '' : `.${first.field}`;
    throw new InvalidArgumentError(`schedule.changes[${first.index}]${field}: ${first.problem}`);
  }
  const classCount = network.classes.length;
  const capacity = network.services.map((_, i) => {
    const pieces = resolved.capacity.get(i);
    return pieces === undefined ? undefined : piecewiseLinearMultiplier(pieces);
  });
  const arrivals: (RateMultiplier | undefined)[] = [];
  for (let cell = 0; cell < network.services.length * classCount; cell++) {
    const pieces = resolved.arrivals.get(cell);
    arrivals.push(pieces === undefined ? undefined : piecewiseLinearMultiplier(pieces));
  }
  return { capacity, arrivals };
}
