/**
 * A count over a sliding window of time, kept in `slices` equal slices so memory stays bounded:
 * an amount added at time t is counted until the slice it fell in leaves the window, that is for
 * between `windowMs · (1 − 1/slices)` and `windowMs` after t. Finagle's `WindowedAdder`, behind
 * its retry budget, works the same way.
 *
 * Times must not decrease (budgets pass them through {@link monotonicTime}); amounts should be
 * integers, so the running total stays exact.
 */
export interface WindowedCounter {
  /** Adds `amount` at `nowMs`. */
  add(nowMs: number, amount: number): void;
  /** The sum of the amounts added in the window that ends at `nowMs`. */
  total(nowMs: number): number;
}

/** A {@link WindowedCounter} over `windowMs` ms in `slices` slices (options checked by callers). */
export function windowedCounter(windowMs: number, slices: number): WindowedCounter {
  const sliceMs = windowMs / slices;
  const counts = new Array<number>(slices).fill(0);
  let newest = Number.NEGATIVE_INFINITY;
  let sum = 0;
  const indexOf = (slice: number) => ((slice % slices) + slices) % slices;
  const advance = (nowMs: number) => {
    const slice = Math.floor(nowMs / sliceMs);
    if (slice <= newest) return;
    if (slice - newest >= slices) {
      counts.fill(0);
      sum = 0;
    } else {
      for (let s = newest + 1; s <= slice; s++) {
        const i = indexOf(s);
        sum -= counts[i] as number;
        counts[i] = 0;
      }
    }
    newest = slice;
  };
  return {
    add(nowMs, amount) {
      advance(nowMs);
      const i = indexOf(newest);
      counts[i] = (counts[i] as number) + amount;
      sum += amount;
    },
    total(nowMs) {
      advance(nowMs);
      return sum;
    },
  };
}
