import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { MultiplierPiece } from '../../model/network/LoadSchedule.js';

export type { MultiplierPiece } from '../../model/network/LoadSchedule.js';
/**
 * A multiplier m(t) ≥ 0 of a rate over virtual time (seconds): of a service's capacity, or of
 * the external arrival rate of a class at a service. Pure: the same question always gets the
 * same answer, and nothing here draws a random number or reads a clock.
 */
export interface RateMultiplier {
  /** m(t). */
  at(t: number): number;
  /** ∫ m(s) ds over [from, to], seconds × multiplier; 0 when to ≤ from. */
  integral(from: number, to: number): number;
  /**
   * The least t ≥ `start` with ∫ m(s) ds over [start, t] = `amount` (≥ 0), or Infinity when m
   * never gathers that much. It turns a clock that runs at rate m into real time: the next
   * arrival of a Poisson process of intensity γ·m(t) is `advance(now, E/γ)` with E ~ Exp(1)
   * (exact inversion of the cumulative intensity), and work W done at speed m(t) finishes at
   * `advance(start, W)`.
   */
  advance(start: number, amount: number): number;
}

/**
 * The multiplier that is 1 except on the given pieces, which are steps or linear ramps: a
 * piecewise-linear m(t) on t ≥ 0, right-continuous (a piece holds on [start, end), and at `end`
 * the multiplier is the next piece's, or 1).
 * @param pieces - non-overlapping, with 0 ≤ start < end, values ≥ 0 and finite; any order.
 * @throws RangeError for a piece out of these bounds or two that overlap.
 * @example
 * ```ts
 * // Capacity × 0.3 on [100 s, 110 s):
 * const m = piecewiseLinearMultiplier([{ start: 100, end: 110, from: 0.3, to: 0.3 }]);
 * m.at(105); // 0.3
 * m.advance(99, 2); // 105.666…: 1 s at speed 1, then 1 s of work at speed 0.3
 * ```
 */
export function piecewiseLinearMultiplier(pieces: readonly MultiplierPiece[]): RateMultiplier {
  const sorted = [...pieces].sort((a, b) => a.start - b.start);
  const starts: number[] = [];
  const values: number[] = [];
  const slopes: number[] = [];
  let cursor = 0;
  for (const piece of sorted) {
    checkPiece(piece);
    if (piece.start < cursor) {
      throw new InvalidArgumentError(
        `multiplier pieces should not overlap; one starts at ${piece.start}`,
      );
    }
    if (piece.start > cursor) pushSegment(starts, values, slopes, cursor, 1, 0);
    const slope = piece.end === Infinity ? 0 : (piece.to - piece.from) / (piece.end - piece.start);
    pushSegment(starts, values, slopes, piece.start, piece.from, slope);
    cursor = piece.end;
  }
  if (cursor < Infinity) pushSegment(starts, values, slopes, cursor, 1, 0);
  return new PiecewiseLinear(starts, values, slopes);
}

function checkPiece(piece: MultiplierPiece): void {
  const { start, end, from, to } = piece;
  if (!(Number.isFinite(start) && start >= 0 && end > start)) {
    throw new InvalidArgumentError(
      `a multiplier piece should have 0 ≤ start < end, got [${start}, ${end}) seconds`,
    );
  }
  const finiteTo = end === Infinity || (Number.isFinite(to) && to >= 0);
  if (!(Number.isFinite(from) && from >= 0 && finiteTo)) {
    throw new InvalidArgumentError(
      `multiplier values should be finite and ≥ 0, got ${from} and ${to}`,
    );
  }
}

function pushSegment(
  starts: number[],
  values: number[],
  slopes: number[],
  start: number,
  value: number,
  slope: number,
): void {
  starts.push(start);
  values.push(value);
  slopes.push(slope);
}

/**
 * Segments k = 0…n−1 on [starts[k], starts[k+1]) (the last one unbounded, with slope 0), where
 * m(t) = values[k] + slopes[k]·(t − starts[k]); starts[0] = 0.
 */
class PiecewiseLinear implements RateMultiplier {
  private readonly starts: Float64Array;
  private readonly values: Float64Array;
  private readonly slopes: Float64Array;

  constructor(starts: readonly number[], values: readonly number[], slopes: readonly number[]) {
    this.starts = new Float64Array(starts);
    this.values = new Float64Array(values);
    this.slopes = new Float64Array(slopes);
  }

  at(t: number): number {
    const k = this.segment(t);
    return this.values[k] + this.slopes[k] * (t - this.starts[k]);
  }

  integral(from: number, to: number): number {
    if (!(to > from)) return 0;
    let total = 0;
    let k = this.segment(from);
    let t = from;
    while (t < to) {
      const end = Math.min(this.end(k), to);
      total += this.area(k, t, end);
      t = end;
      k++;
    }
    return total;
  }

  advance(start: number, amount: number): number {
    if (!(amount >= 0)) {
      throw new InvalidArgumentError(`amount should be a number ≥ 0, got ${amount}`);
    }
    let k = this.segment(start);
    let t = start;
    let left = amount;
    for (;;) {
      const value = this.values[k] + this.slopes[k] * (t - this.starts[k]);
      const slope = this.slopes[k];
      const end = this.end(k);
      const area = end === Infinity ? Infinity : this.area(k, t, end);
      if (left <= area) {
        if (left === 0) return t;
        if (slope === 0) return value > 0 ? t + left / value : Infinity;
        // (slope/2)·x² + value·x = left, in the form that does not cancel when slope·left ≪ value².
        const root = Math.sqrt(Math.max(0, value * value + 2 * slope * left));
        return Math.min(t + (2 * left) / (value + root), end);
      }
      left -= area;
      t = end;
      k++;
    }
  }

  /** The segment holding t: the last k with starts[k] ≤ t (0 for t before 0). */
  private segment(t: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle] <= t) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private end(k: number): number {
    return k + 1 < this.starts.length ? this.starts[k + 1] : Infinity;
  }

  /** ∫ m over [from, to] within segment k. */
  private area(k: number, from: number, to: number): number {
    const width = to - from;
    const value = this.values[k] + this.slopes[k] * (from - this.starts[k]);
    return width * (value + (this.slopes[k] * width) / 2);
  }
}
