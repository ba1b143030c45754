import fc from 'fast-check';
import type { Histogram, JsHistogram } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { LatencyRecorder } from '../../src/sim/engine/LatencyRecorder.js';
import { createLatencyHistogram } from '../../src/stats/latencyHistogram.js';

/** The count in every bucket (the histograms are JS ones: `createLatencyHistogram` builds no WASM). */
function bucketCounts(histogram: Histogram): number[] {
  const js = histogram as unknown as JsHistogram;
  return Array.from({ length: js.countsArrayLength }, (_, index) => js.getCountAtIndex(index));
}

/** Everything a reader of a latency histogram can see: counts per bucket, total, extremes, moments. */
function state(histogram: Histogram) {
  const percentiles = [0, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100].map((p) =>
    histogram.getValueAtPercentile(p),
  );
  return {
    totalCount: histogram.totalCount,
    minNonZeroValue: histogram.minNonZeroValue,
    maxValue: histogram.maxValue,
    mean: histogram.mean,
    stdDeviation: histogram.stdDeviation,
    percentiles,
    distribution: histogram.outputPercentileDistribution(),
    buckets: bucketCounts(histogram),
  };
}

/** The same values recorded one by one, and through a recorder (flushed every `every` values). */
function both(values: readonly number[], every = Number.POSITIVE_INFINITY) {
  const direct = createLatencyHistogram();
  for (const value of values) direct.recordValue(value);
  const batched = createLatencyHistogram();
  const recorder = new LatencyRecorder(batched);
  values.forEach((value, i) => {
    recorder.record(value);
    if ((i + 1) % every === 0) recorder.flush();
  });
  recorder.flush();
  return { direct: state(direct), batched: state(batched) };
}

describe('LatencyRecorder', () => {
  it('leaves the histogram exactly as recording each value would, at bucket edges too', () => {
    const edges: number[] = [0, 1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096];
    for (let power = 12; power < 31; power++) {
      edges.push(2 ** power - 1, 2 ** power, 2 ** power + 1, 3 * 2 ** (power - 1));
    }
    edges.push(2 ** 31 - 1, 2 ** 31, 3_600_000_000, 5_000_000_000);
    const { direct, batched } = both(edges);
    expect(batched).toEqual(direct);
  });

  it('matches value-by-value recording on any latencies, flushed at any pace', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 3000 }),
            fc.integer({ min: 0, max: 2 ** 31 + 5 }),
            fc.constantFrom(0, 1, 2048, 2 ** 20),
          ),
          { maxLength: 200 },
        ),
        fc.integer({ min: 1, max: 50 }),
        (values, every) => {
          const { direct, batched } = both(values, every);
          expect(batched, JSON.stringify({ values, every })).toEqual(direct);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses what the histogram refuses', () => {
    const recorder = new LatencyRecorder(createLatencyHistogram());
    expect(() => recorder.record(-1)).toThrow();
  });
});
