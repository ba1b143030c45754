import { build, type Histogram } from 'hdr-histogram-js';

/** Latency percentiles reported, in percent, and the result field each one fills. */
export const LATENCY_PERCENTILES = [
  { percentile: 50, field: 'latencyP50' },
  { percentile: 90, field: 'latencyP90' },
  { percentile: 99, field: 'latencyP99' },
  { percentile: 99.9, field: 'latencyP999' },
] as const;

/** Microseconds per second: latencies are recorded as whole microseconds. */
export const MICROSECONDS_PER_SECOND = 1e6;

/**
 * An empty latency histogram: whole microseconds, 3 significant digits, growing past one hour
 * if it must.
 */
export function createLatencyHistogram(): Histogram {
  return build({
    numberOfSignificantValueDigits: 3,
    highestTrackableValue: 3_600 * MICROSECONDS_PER_SECOND,
    autoResize: true,
  });
}

/** The `percentile` (0..100) of a latency histogram in seconds; NaN when it is empty. */
export function latencyPercentileSeconds(histogram: Histogram, percentile: number): number {
  if (histogram.totalCount === 0) return Number.NaN;
  return histogram.getValueAtPercentile(percentile) / MICROSECONDS_PER_SECOND;
}
