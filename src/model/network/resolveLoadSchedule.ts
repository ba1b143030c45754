import type {
  LoadChange,
  LoadSchedule,
  MultiplierPiece,
  ScheduledMultiplier,
  ScheduleNetwork,
} from './LoadSchedule.js';

/** A change of a schedule that cannot be used, and why; the schedule parser places it in the file. */
export interface ScheduleProblem {
  /** Index of the change in `changes`. */
  readonly index: number;
  /** The field of the change at fault, or undefined for the change as a whole. */
  readonly field?: keyof LoadChange;
  /** The whole problem, one line: `expected a service of the network (api, db), got "dbb"`. */
  readonly problem: string;
  /** What would have been valid, in domain words. */
  readonly expected: string;
  /**
   * What the problem is about: the field's key (a field that should not be there), its value (the
   * default), or a field missing from the change (then `field` is undefined).
   */
  readonly at?: 'key' | 'value' | 'missing';
}

/** A schedule resolved against a network: its problems, or the pieces of every rate it changes. */
export interface ResolvedLoadSchedule {
  /** Every problem found, in the order of the changes; the pieces are meaningless unless empty. */
  readonly problems: readonly ScheduleProblem[];
  /** Per service index whose capacity changes, the pieces of its multiplier. */
  readonly capacity: ReadonlyMap<number, readonly MultiplierPiece[]>;
  /** Per cell (service × classCount + class) whose arrivals change, the pieces of its multiplier. */
  readonly arrivals: ReadonlyMap<number, readonly MultiplierPiece[]>;
}

/**
 * Checks a {@link LoadSchedule} against a network and expands each change into the rates it
 * touches. The rules: a change has `capacity` or `arrivals` (not both) and `at` ≥ 0; `until`, if
 * given, is after `at`; a ramp has `until`; `capacity` names its `service` and no `class`; a
 * capacity of 0 has an `until` (a server stopped for good never drains); names are the network's;
 * an `arrivals` change scales external arrivals that exist (γ > 0); and two changes of one rate
 * (a service's capacity, or a class's arrivals at a service) do not overlap in time.
 * @example
 * ```ts
 * const { problems } = resolveLoadSchedule(schedule, toNetworkModel(spec));
 * problems[0]?.problem; // 'expected a service of the network (frontend, search), got "serch"'
 * ```
 */
export function resolveLoadSchedule(
  schedule: LoadSchedule,
  network: ScheduleNetwork,
): ResolvedLoadSchedule {
  const problems: ScheduleProblem[] = [];
  const capacity = new Map<number, MultiplierPiece[]>();
  const arrivals = new Map<number, MultiplierPiece[]>();
  /** Per rate, the changes already on it: for the overlap rule. */
  const owners = new Map<string, { index: number; start: number; end: number }[]>();
  const serviceNames = network.services.map((s) => s.name);
  const classNames = network.classes.map((c) => c.name);
  const classCount = classNames.length;

  schedule.changes.forEach((change, index) => {
    const before = problems.length;
    const report = (problem: Omit<ScheduleProblem, 'index'>) =>
      problems.push({ index, ...problem });
    checkShape(change, report);
    const service = change.service === undefined ? undefined : serviceNames.indexOf(change.service);
    if (service === -1) {
      const expected = `a service of the network (${serviceNames.join(', ')})`;
      report({
        field: 'service',
        problem: `expected ${expected}, got ${JSON.stringify(change.service)}`,
        expected,
      });
    }
    const classIndex = change.class === undefined ? undefined : classNames.indexOf(change.class);
    if (classIndex === -1) {
      const expected = `a class of the network (${classNames.join(', ')})`;
      report({
        field: 'class',
        problem: `expected ${expected}, got ${JSON.stringify(change.class)}`,
        expected,
      });
    }
    if (problems.length > before) return;

    const value = (change.capacity ?? change.arrivals) as ScheduledMultiplier;
    const piece = pieceOf(change, value);
    const targets: { key: string; what: string; list: MultiplierPiece[] }[] = [];
    if (change.capacity !== undefined) {
      const i = service as number;
      targets.push({
        key: `capacity ${i}`,
        what: `the capacity of ${serviceNames[i]}`,
        list: listOf(capacity, i),
      });
    } else {
      const services = service === undefined ? serviceNames.map((_, i) => i) : [service];
      const classes = classIndex === undefined ? classNames.map((_, p) => p) : [classIndex];
      for (const i of services) {
        for (const p of classes) {
          if (!((network.services[i]?.arrivals[p] ?? 0) > 0)) continue;
          const cell = i * classCount + p;
          targets.push({
            key: `arrivals ${cell}`,
            what: `the arrivals of ${classNames[p]} at ${serviceNames[i]}`,
            list: listOf(arrivals, cell),
          });
        }
      }
      if (targets.length === 0) {
        const where = service === undefined ? 'no service has' : `${serviceNames[service]} has no`;
        const of = classIndex === undefined ? '' : ` of class ${classNames[classIndex]}`;
        report({
          field: 'arrivals',
          problem: `${where} external arrivals${of} to scale`,
          expected: 'a service and class with external arrivals (γ > 0) in the network',
        });
        return;
      }
    }
    for (const target of targets) {
      const taken = owners.get(target.key) ?? [];
      const clash = taken.find((o) => o.start < piece.end && piece.start < o.end);
      if (clash !== undefined) {
        report({
          field: 'at',
          problem: `overlaps changes[${clash.index}] on ${target.what}: changes of one rate must not overlap in time`,
          expected: `a change that does not overlap another change of ${target.what}`,
        });
        return;
      }
      taken.push({ index, start: piece.start, end: piece.end });
      owners.set(target.key, taken);
    }
    for (const target of targets) target.list.push(piece);
  });
  return { problems, capacity, arrivals };
}

/** The rules of one change that need no network. */
function checkShape(change: LoadChange, report: (p: Omit<ScheduleProblem, 'index'>) => void) {
  const { at, until } = change;
  if (!(Number.isFinite(at) && at >= 0)) {
    const expected = 'a number ≥ 0 (s)';
    report({ field: 'at', problem: `expected ${expected}, got ${at}`, expected });
  }
  if (until !== undefined && !(Number.isFinite(until) && until > at)) {
    const expected = `a time after at (${at} s)`;
    report({ field: 'until', problem: `expected ${expected}, got ${until}`, expected });
  }
  if (change.capacity !== undefined && change.arrivals !== undefined) {
    report({
      field: 'arrivals',
      at: 'key',
      problem: 'give capacity or arrivals, not both',
      expected: 'capacity or arrivals, not both',
    });
    return;
  }
  const value = change.capacity ?? change.arrivals;
  if (value === undefined) {
    const expected = 'capacity or arrivals (a multiplier, or a ramp { from, to })';
    report({ at: 'missing', problem: `missing field: expected ${expected}`, expected });
    return;
  }
  const field = change.capacity === undefined ? 'arrivals' : 'capacity';
  const numbers = typeof value === 'number' ? [value] : [value.from, value.to];
  if (!numbers.every((n) => Number.isFinite(n) && n >= 0)) {
    const expected = 'a multiplier ≥ 0, or a ramp { from, to } of multipliers ≥ 0';
    report({ field, problem: `expected ${expected}, got ${JSON.stringify(value)}`, expected });
  }
  if (typeof value !== 'number' && until === undefined) {
    const expected = 'until (the end of the ramp, s)';
    report({ at: 'missing', problem: `missing field: expected ${expected}`, expected });
  }
  if (field === 'capacity') {
    if (change.class !== undefined) {
      report({
        field: 'class',
        at: 'key',
        problem: 'class goes with arrivals only: a capacity is per service',
        expected: 'no class with capacity',
      });
    }
    if (change.service === undefined) {
      const expected = 'service (whose capacity changes)';
      report({ at: 'missing', problem: `missing field: expected ${expected}`, expected });
    }
    if (value === 0 && until === undefined) {
      report({
        field: 'capacity',
        problem: 'a capacity of 0 with no until would stop the service for good; give until',
        expected: 'a capacity > 0, or until',
      });
    }
  }
}

function pieceOf(change: LoadChange, value: ScheduledMultiplier): MultiplierPiece {
  const end = change.until ?? Number.POSITIVE_INFINITY;
  return typeof value === 'number'
    ? { start: change.at, end, from: value, to: value }
    : { start: change.at, end, from: value.from, to: value.to };
}

function listOf<K>(map: Map<K, MultiplierPiece[]>, key: K): MultiplierPiece[] {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  return list;
}
