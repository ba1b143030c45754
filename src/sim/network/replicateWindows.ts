import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { meanWithCi95 } from '../../stats/confidence.js';
import type { WithCi95 } from '../replicate.js';
import type { SimulatedWindow, WindowFigures, WindowServiceFigures } from './SimulatedWindow.js';

/** A window over replications: every figure of {@link SimulatedWindow} with its `Ci95`. */
export interface ReplicatedWindow {
  /** Virtual seconds since the run began, as in every replication. */
  readonly start: number;
  readonly end: number;
  readonly classes: Readonly<Record<string, WithCi95<WindowFigures>>>;
  readonly services: Readonly<Record<string, WithCi95<WindowServiceFigures>>>;
}

/**
 * Averages the windows of independent replications of one run, window by window: each figure is
 * the mean of the replications' values with the half-width of its 95 % confidence interval
 * (t_{0.975, R−1} · sd / √R; NaN with one replication, and NaN where a replication had nothing to
 * measure, such as a rejection in a window where no request ended).
 * @param series - one list of windows per replication, all of the same run length and windows.
 * @throws RangeError when the replications' windows differ.
 */
export function replicateWindows(
  series: readonly (readonly SimulatedWindow[])[],
): ReplicatedWindow[] {
  const [first = []] = series;
  for (const windows of series) {
    if (
      windows.length !== first.length ||
      windows.some((w, k) => w.start !== first[k]?.start || w.end !== first[k]?.end)
    ) {
      throw new InvalidArgumentError('every replication should have the same windows');
    }
  }
  return first.map((window, k) => {
    const at = series.map((windows) => windows[k] as SimulatedWindow);
    return {
      start: window.start,
      end: window.end,
      classes: estimateEach(
        window.classes,
        at.map((w) => w.classes),
      ) as ReplicatedWindow['classes'],
      services: estimateEach(
        window.services,
        at.map((w) => w.services),
      ) as ReplicatedWindow['services'],
    };
  });
}

/** Per name of `names`, the mean and 95 % half-width of each of its figures over `records`. */
function estimateEach(
  names: Readonly<Record<string, object>>,
  records: readonly Readonly<Record<string, object>>[],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [name, figures] of Object.entries(names)) {
    const estimate: Record<string, number> = {};
    for (const field of Object.keys(figures)) {
      const values = records.map(
        (record) => (record[name] as Record<string, number> | undefined)?.[field] ?? Number.NaN,
      );
      const { mean, ci95 } = meanWithCi95(values);
      estimate[field] = mean;
      estimate[`${field}Ci95`] = ci95;
    }
    out[name] = estimate;
  }
  return out;
}
