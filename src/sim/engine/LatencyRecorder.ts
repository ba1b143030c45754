import type { Histogram } from 'hdr-histogram-js';
import { grown } from './grown.js';

/**
 * Sub-buckets per half bucket of the latency histograms (`createLatencyHistogram`: 3 significant
 * digits, so 2 × 10³ values at unit resolution, rounded up to 2¹¹ sub-buckets, half of them
 * 2¹⁰), as a power of two.
 */
const SUB_BUCKET_HALF_COUNT_MAGNITUDE = 10;
const SUB_BUCKET_HALF_COUNT = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
/** Values from here on go straight to the histogram (2³¹ µs, about 36 minutes). */
const DIRECT_FROM = 2 ** 31;
const INITIAL_BUCKETS = 4 * SUB_BUCKET_HALF_COUNT;

/**
 * Counts whole-microsecond latencies in the bucket layout of an HDR histogram built by
 * `createLatencyHistogram` (lowest discernible value 1, 3 significant digits), with integer
 * arithmetic instead of the library's `Math.log2` and `Math.pow` per value, and adds the counts
 * to that histogram on {@link LatencyRecorder.flush}. The histogram ends up exactly as if every
 * value had been recorded in it one by one: the same count in every bucket, the same total, and
 * the same smallest non-zero and largest value (each bucket's count is added under a value of
 * that bucket, and the buckets holding the extremes under the extremes themselves).
 *
 * The simulator records one latency per completed request, so the per-value cost matters.
 * @example
 * ```ts
 * const histogram = createLatencyHistogram();
 * const recorder = new LatencyRecorder(histogram);
 * recorder.record(1500);
 * recorder.flush();
 * histogram.totalCount; // 1
 * ```
 */
export class LatencyRecorder {
  private readonly histogram: Histogram;
  /** Counts by the histogram's counts-array index; grown by doubling. */
  private counts = new Float64Array(INITIAL_BUCKETS);
  /** Highest index counted since the last flush, −1 for none. */
  private highestIndex = -1;
  private largest = 0;
  private smallestNonZero = Number.POSITIVE_INFINITY;

  constructor(histogram: Histogram) {
    this.histogram = histogram;
  }

  /** Records `micros`, a whole number of microseconds ≥ 0. */
  record(micros: number): void {
    if (!(micros >= 0 && micros < DIRECT_FROM)) {
      // Rare (a latency over half an hour), or not a count: the histogram handles (or refuses) it.
      this.histogram.recordValue(micros);
      return;
    }
    const index = indexOf(micros);
    if (index >= this.counts.length) this.grow(index);
    this.counts[index]++;
    if (index > this.highestIndex) this.highestIndex = index;
    if (micros > this.largest) this.largest = micros;
    if (micros < this.smallestNonZero && micros !== 0) this.smallestNonZero = micros;
  }

  private grow(index: number): void {
    let size = this.counts.length;
    while (size <= index) size *= 2;
    this.counts = grown(this.counts, size);
  }

  /** Adds the counts recorded since the last flush to the histogram, and starts afresh. */
  flush(): void {
    const last = this.highestIndex;
    if (last < 0) return;
    const counts = this.counts;
    const smallest = this.smallestNonZero;
    const largest = this.largest;
    const smallestIndex = smallest === Number.POSITIVE_INFINITY ? -1 : indexOf(smallest);
    const largestIndex = indexOf(largest);
    const histogram = this.histogram;
    for (let index = 0; index <= last; index++) {
      const count = counts[index] as number;
      if (count === 0) continue;
      counts[index] = 0;
      if (index === largestIndex) {
        if (index === smallestIndex && count > 1) {
          histogram.recordValueWithCount(smallest, count - 1);
          histogram.recordValueWithCount(largest, 1);
        } else {
          histogram.recordValueWithCount(largest, count);
        }
      } else if (index === smallestIndex) {
        histogram.recordValueWithCount(smallest, count);
      } else {
        // Strictly between the extremes' buckets (or the zero bucket): its lowest value moves
        // neither extreme.
        histogram.recordValueWithCount(lowestValueAt(index), count);
      }
    }
    this.highestIndex = -1;
    this.largest = 0;
    this.smallestNonZero = Number.POSITIVE_INFINITY;
  }
}

/**
 * The histogram's counts-array index of `micros` (< 2³¹): bucket b = max(⌊log₂ v⌋ − 10, 0),
 * sub-bucket ⌊v / 2^b⌋, index (b + 1)·2¹⁰ + (sub-bucket − 2¹⁰) = b·2¹⁰ + sub-bucket.
 */
function indexOf(micros: number): number {
  const bucket = Math.max(31 - Math.clz32(micros) - SUB_BUCKET_HALF_COUNT_MAGNITUDE, 0);
  return (bucket << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + (micros >>> bucket);
}

/** The lowest value whose counts-array index is `index`. */
function lowestValueAt(index: number): number {
  const bucket = Math.max((index >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1, 0);
  return (index - (bucket << SUB_BUCKET_HALF_COUNT_MAGNITUDE)) * 2 ** bucket;
}
