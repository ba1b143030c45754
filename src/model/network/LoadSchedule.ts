/**
 * A multiplier as a schedule writes it: a number (a step, held over the change's interval) or a
 * linear ramp `{ from, to }` (from `from` at the change's `at` to `to` at its `until`).
 * Multipliers are dimensionless and ≥ 0.
 */
export type ScheduledMultiplier = number | { readonly from: number; readonly to: number };

/**
 * One change of a {@link LoadSchedule}: a multiplier of one service's capacity, or of the
 * external arrival rates of some classes at some services, over [at, until).
 */
export interface LoadChange {
  /** Start, virtual seconds since the run began (warm-up included); ≥ 0. */
  readonly at: number;
  /**
   * End (exclusive), virtual seconds, > `at`; default never: a step holds to the end of the run.
   * A ramp needs it.
   */
  readonly until?: number;
  /**
   * The service (by name): whose capacity changes (required with `capacity`), or where the
   * arrivals change (default every service with external arrivals of the class).
   */
  readonly service?: string;
  /** With `arrivals` only: the class (by name) whose arrivals change; default every class. */
  readonly class?: string;
  /** Multiplier of the service's capacity μ (its server's speed). */
  readonly capacity?: ScheduledMultiplier;
  /** Multiplier of the external arrival rates γ_i^p the network gives. */
  readonly arrivals?: ScheduledMultiplier;
}

/**
 * Changes of a network's load over virtual time: multipliers of the arrival rates and capacities
 * the network file gives, piecewise constant (steps) and piecewise linear (ramps). Outside every
 * change a multiplier is 1; changes to one rate (one service's capacity, or one class's arrivals
 * at one service) must not overlap in time. A `difftry simulate --schedule FILE` file parses to
 * this (`parseSchedule` in `difftry/spec`), and `simulateNetwork` takes it as `schedule`.
 * @example
 * ```ts
 * const schedule: LoadSchedule = {
 *   changes: [
 *     { at: 100, until: 110, service: 'search', capacity: 0.3 },
 *     { at: 0, until: 300, service: 'frontend', class: 'low', arrivals: { from: 1, to: 2 } },
 *   ],
 * };
 * ```
 */
export interface LoadSchedule {
  readonly changes: readonly LoadChange[];
}

/** What a schedule is checked against: the names of a network and its external arrivals. */
export interface ScheduleNetwork {
  readonly classes: readonly { readonly name: string }[];
  /** Per service its name and γ_i^p per class (indexed like `classes`), requests/s. */
  readonly services: readonly { readonly name: string; readonly arrivals: readonly number[] }[];
}

/**
 * One piece of a piecewise-linear rate multiplier (the simulator's `piecewiseLinearMultiplier`): on [start, end) the multiplier goes linearly
 * from `from` (at `start`) to `to` (approached at `end`); `from === to` is a step. `end` may be
 * Infinity for a step that holds (then `to` is ignored).
 */
export interface MultiplierPiece {
  readonly start: number;
  readonly end: number;
  readonly from: number;
  readonly to: number;
}
