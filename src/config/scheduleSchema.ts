import { z } from 'zod';
import type { LoadChange, ScheduleNetwork } from '../model/network/LoadSchedule.js';
import { resolveLoadSchedule } from '../model/network/resolveLoadSchedule.js';
import { reportIssue } from './customIssue.js';
import { described } from './fieldMeta.js';

// A schedule file (`difftry simulate FILE --schedule SCHEDULE`): multipliers of the network
// file's arrival rates and capacities over virtual time. docs/simulator.md ("Load schedules") is
// the reference of every field; keep the two together. The ranges and the rules across fields
// are `resolveLoadSchedule`'s, so a schedule built in code meets the same rules as a file.

const SECONDS = 's of virtual time since the run began';

const multiplier = () => described(z.number(), 'a multiplier ≥ 0');

/** A linear ramp of a multiplier over the change's [at, until). */
const rampSchema = described(
  z.strictObject({ from: multiplier(), to: multiplier() }),
  'a ramp: a mapping with from and to (multipliers ≥ 0)',
);

/** A step (a number) or a ramp (`{ from, to }`). */
const multiplierSchema = described(
  z.union([multiplier(), rampSchema]),
  'a multiplier ≥ 0, or a ramp { from, to }',
);

/** One change: a multiplier of one rate, or of a group of rates, over [at, until). */
export const scheduleChangeSchema = described(
  z.strictObject({
    at: described(z.number(), 'a number ≥ 0', SECONDS),
    until: described(z.number(), 'a time after at', SECONDS).optional(),
    service: described(z.string(), 'a service name').optional(),
    class: described(z.string(), 'a class name').optional(),
    capacity: multiplierSchema.optional(),
    arrivals: multiplierSchema.optional(),
  }),
  'a change: a mapping with at, and capacity or arrivals',
);

const scheduleObjectSchema = described(
  z.strictObject({
    description: described(z.string(), 'a string').optional(),
    changes: described(z.array(scheduleChangeSchema), 'a list of changes'),
  }),
  'a schedule: a mapping with changes',
);

/**
 * The schema of a schedule file for `network`: the shape, with the rules that span fields and
 * the names checked against the network (`resolveLoadSchedule`); every problem comes out as a
 * zod issue with its path (`changes[2].service`).
 */
export function scheduleSchema(network: ScheduleNetwork) {
  return described(
    scheduleObjectSchema.superRefine((schedule, ctx) => {
      for (const problem of resolveLoadSchedule(schedule, network).problems) {
        reportIssue(ctx, {
          path: ['changes', problem.index, ...(problem.field === undefined ? [] : [problem.field])],
          problem: problem.problem,
          expected: problem.expected,
          ...(problem.at === undefined ? {} : { at: problem.at }),
        });
      }
    }),
    'a schedule: a mapping with changes',
  );
}

/** Holds only when `From` is assignable to `To`: the file gives the simulator's own change. */
type Assignable<From extends To, To> = From;

/** A change as parsed from a schedule file: exactly a `LoadChange` of `difftry/sim`. */
export type ScheduleChangeSpec = Assignable<z.output<typeof scheduleChangeSchema>, LoadChange>;

/**
 * A parsed, valid schedule file: an optional `description` and its `changes`, a `LoadSchedule`
 * that `simulateNetwork` takes as it is.
 */
export type ScheduleSpec = z.output<typeof scheduleObjectSchema>;
