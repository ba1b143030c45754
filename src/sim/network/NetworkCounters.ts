import type { Histogram } from 'hdr-histogram-js';
import { createLatencyHistogram } from '../../stats/latencyHistogram.js';

/**
 * What a network run counts of its measured requests: per cell (service × classCount + class)
 * the calls that arrived, passed, the attempts, the attempts rejected at admission, the calls
 * that failed after the hop's retries and the per-try timeouts; per class the originals, the
 * completed and rejected ones and their end-to-end latency; and the attempts made at hops other
 * than a request's entry. The run increments them in place; {@link networkResult} reads them.
 */
export class NetworkCounters {
  readonly arrived: Float64Array;
  readonly passed: Float64Array;
  readonly attempts: Float64Array;
  readonly attemptRejections: Float64Array;
  readonly hopRejections: Float64Array;
  readonly timeouts: Float64Array;
  readonly originals: Float64Array;
  readonly completed: Float64Array;
  readonly rejected: Float64Array;
  /** End-to-end latency of completed requests, whole µs (a JS histogram: nothing to free). */
  readonly latency: readonly Histogram[];
  /** The exact sum of those latencies, seconds. */
  readonly latencySum: Float64Array;
  /** Attempts at hops other than the request's entry (internal calls). */
  internalAttempts = 0;

  constructor(serviceCount: number, classCount: number) {
    const cells = serviceCount * classCount;
    this.arrived = new Float64Array(cells);
    this.passed = new Float64Array(cells);
    this.attempts = new Float64Array(cells);
    this.attemptRejections = new Float64Array(cells);
    this.hopRejections = new Float64Array(cells);
    this.timeouts = new Float64Array(cells);
    this.originals = new Float64Array(classCount);
    this.completed = new Float64Array(classCount);
    this.rejected = new Float64Array(classCount);
    this.latency = Array.from({ length: classCount }, () => createLatencyHistogram());
    this.latencySum = new Float64Array(classCount);
  }
}
