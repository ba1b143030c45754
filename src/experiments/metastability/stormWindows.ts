/**
 * Reading a retry storm off per-window measurements of simulated runs: whether a run is in the
 * storm at its end, when it left it after a trigger, at which offered load a ramp tipped it in
 * and let it out. A window is "in the storm" for a class when the class's window rejection
 * exceeds {@link STORM_ABOVE}, and "healthy" when it is below {@link HEALTHY_BELOW}; a window in
 * which none of the class's requests ended (rejection NaN) is neither.
 */
import type { SimulatedWindow } from '../../sim/network/SimulatedWindow.js';
import { type MeanWithCi95, meanWithCi95 } from '../../stats/confidence.js';

/** Window rejection above which a class is in the storm. */
export const STORM_ABOVE = 0.5;
/** Window rejection below which a class is healthy (recovered). */
export const HEALTHY_BELOW = 0.1;

/** The class's rejection in the window; NaN when the window has no such class or no ended request. */
export function windowRejection(window: SimulatedWindow, className: string): number {
  return window.classes[className]?.rejection ?? Number.NaN;
}

/** The first window starting at or after `from` (virtual seconds) that `test` accepts. */
export function firstWindowFrom(
  windows: readonly SimulatedWindow[],
  from: number,
  test: (window: SimulatedWindow) => boolean,
): SimulatedWindow | undefined {
  return windows.find((w) => w.start >= from && test(w));
}

/** What one class did over the replications of a run with an optional trigger. */
export interface StormSummary {
  readonly replications: number;
  /** Replications with some window in the storm (before the end, trigger or not). */
  readonly tipped: number;
  /**
   * Per replication that was in the storm before the trigger began (without a trigger: at all),
   * the start of its first storm window, seconds: the runs that tipped on their own.
   */
  readonly tippedOnTheirOwn: readonly number[];
  /** Replications whose last window is in the storm. */
  readonly stormAtEnd: number;
  /** Replications with a healthy window after the trigger's end; 0 without a trigger. */
  readonly recovered: number;
  /**
   * Of the recovered replications: seconds from the trigger's end to the end of the first healthy
   * window starting at or after it (so a resolution of one window).
   */
  readonly recoverySeconds: MeanWithCi95;
  /** Per replication, the mean window rejection over the last `tailSeconds`: mean and 95 % half-width. */
  readonly tailRejection: MeanWithCi95;
  /**
   * Per replication that was in the storm after the trigger ended (or anywhere, without one), the mean
   * rejection of those storm windows: how deep the simulated storm is while it lasts.
   */
  readonly stormRejection: MeanWithCi95;
}

/** When a run's trigger acts, virtual seconds [at, until). */
export interface TriggerInterval {
  readonly at: number;
  readonly until: number;
}

/**
 * Summarises one class over the replications' windows.
 * @param trigger - when the trigger acted; undefined for a run without one.
 * @param tailSeconds - the stretch at the end of the run whose rejection is averaged.
 */
export function stormSummary(
  runs: readonly (readonly SimulatedWindow[])[],
  className: string,
  trigger: TriggerInterval | undefined,
  tailSeconds: number,
): StormSummary {
  let tipped = 0;
  const tippedOnTheirOwn: number[] = [];
  let stormAtEnd = 0;
  const recoveries: number[] = [];
  const tails: number[] = [];
  const depths: number[] = [];
  for (const windows of runs) {
    const inStorm = (w: SimulatedWindow) => windowRejection(w, className) > STORM_ABOVE;
    if (windows.some(inStorm)) tipped++;
    const early = windows.find(
      (w) => w.end <= (trigger?.at ?? Number.POSITIVE_INFINITY) && inStorm(w),
    );
    if (early !== undefined) tippedOnTheirOwn.push(early.start);
    const last = windows[windows.length - 1];
    if (last !== undefined && inStorm(last)) stormAtEnd++;
    if (trigger !== undefined) {
      const healthy = firstWindowFrom(
        windows,
        trigger.until,
        (w) => windowRejection(w, className) < HEALTHY_BELOW,
      );
      if (healthy !== undefined) recoveries.push(healthy.end - trigger.until);
    }
    const storm = windows
      .filter((w) => w.start >= (trigger?.until ?? 0) && inStorm(w))
      .map((w) => windowRejection(w, className));
    if (storm.length > 0) depths.push(storm.reduce((a, b) => a + b, 0) / storm.length);
    const end = last?.end ?? 0;
    const tail = windows
      .filter((w) => w.start >= end - tailSeconds)
      .map((w) => windowRejection(w, className))
      .filter(Number.isFinite);
    tails.push(tail.length > 0 ? tail.reduce((a, b) => a + b, 0) / tail.length : Number.NaN);
  }
  return {
    replications: runs.length,
    tipped,
    tippedOnTheirOwn,
    stormAtEnd,
    recovered: recoveries.length,
    recoverySeconds: meanWithCi95(recoveries),
    tailRejection: meanWithCi95(tails),
    stormRejection: meanWithCi95(depths),
  };
}

/** Where a ramp up then down tipped one replication into the storm and let it out. */
export interface RampCrossing {
  /** The offered rate of the first window of the way up in the storm; NaN if it never tipped. */
  readonly tippedAt: number;
  /**
   * The offered rate of the first window of the way down out of the storm (rejection back at or
   * below {@link STORM_ABOVE}); NaN if it never tipped or never came out.
   */
  readonly recoveredAt: number;
}

/**
 * The crossings of a class in one replication of a ramp that turns at `turn` seconds;
 * `offeredRate(window)` gives the load a window stands for (e.g. the schedule's mean multiplier
 * times the base rate).
 */
export function rampCrossing(
  windows: readonly SimulatedWindow[],
  className: string,
  turn: number,
  offeredRate: (window: SimulatedWindow) => number,
): RampCrossing {
  const tipped = windows.find((w) => w.end <= turn && windowRejection(w, className) > STORM_ABOVE);
  if (tipped === undefined) return { tippedAt: Number.NaN, recoveredAt: Number.NaN };
  const recovered = firstWindowFrom(
    windows,
    Math.max(turn, tipped.end),
    (w) => windowRejection(w, className) <= STORM_ABOVE,
  );
  return {
    tippedAt: offeredRate(tipped),
    recoveredAt: recovered === undefined ? Number.NaN : offeredRate(recovered),
  };
}
