import { nice } from 'd3';
import { ceilingTimeout, type LatencyDistribution } from 'difftry/model';

/** The time axis of the view's figures and the range its timeout handles move in, seconds. */
export interface TimeRange {
  /** The axis runs from 0 to this. */
  readonly upperS: number;
  /** The shortest timeout a handle can set. */
  readonly minS: number;
  /** One arrow-key step of a handle (Page Up/Down: ten). */
  readonly stepS: number;
}

/** Handles move in this many steps across the axis. */
const HANDLE_STEPS = 200;
/** Significant digits of a timeout set by a handle: a readable URL, and steps survive rounding. */
const HANDLE_DIGITS = 4;

/**
 * The time range for a latency law: the axis reaches 1.5 × the model's default ceiling t_z
 * (`ceilingTimeout`), rounded up to a tick, so the ceiling can be dragged either way; a handle
 * stops at 1 % of that, or at the law's smallest known latency when that is later (below it an
 * estimated law may give no attempt a chance to complete).
 * @example
 * ```ts
 * timeRange(lognormalLatency({ median: 0.1, sigma: 0.5 })).upperS; // 0.8
 * ```
 */
export function timeRange(law: LatencyDistribution): TimeRange {
  const [, upperS] = nice(0, 1.5 * ceilingTimeout(law), 10);
  return {
    upperS,
    minS: Math.max(law.minObserved, upperS / 100),
    stepS: upperS / HANDLE_STEPS,
  };
}

/**
 * A timeout a handle was moved to, as the view keeps it: rounded to 4 significant digits, then
 * kept inside the range.
 */
export function handleTimeout(valueS: number, range: TimeRange): number {
  const rounded = Number(valueS.toPrecision(HANDLE_DIGITS));
  return Math.min(range.upperS, Math.max(range.minS, rounded));
}
