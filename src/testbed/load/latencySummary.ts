import type { Histogram } from 'hdr-histogram-js';
import { latencyPercentileSeconds, MICROSECONDS_PER_SECOND } from '../../stats/latencyHistogram.js';

/** Latency figures of a set of requests, seconds (NaN when there are none). */
export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** The {@link LatencySummary} of an HdrHistogram of microseconds (`createLatencyHistogram`). */
export function summarizeLatency(histogram: Histogram): LatencySummary {
  const count = histogram.totalCount;
  return {
    count,
    mean: count > 0 ? histogram.mean / MICROSECONDS_PER_SECOND : Number.NaN,
    p50: latencyPercentileSeconds(histogram, 50),
    p90: latencyPercentileSeconds(histogram, 90),
    p99: latencyPercentileSeconds(histogram, 99),
    max: count > 0 ? histogram.maxValue / MICROSECONDS_PER_SECOND : Number.NaN,
  };
}
