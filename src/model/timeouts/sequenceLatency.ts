import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { AttemptCost, LatencyDistribution } from './LatencyDistribution.js';
import { linearCost } from './linearCost.js';
import { singleTimeout } from './singleTimeout.js';

/** Expected latencies of a timeout sequence, seconds. */
export interface SequenceLatency {
  /** E_0: the expected latency of a call that starts at the first timeout. */
  readonly E0: number;
  /** E_n for every n: the expected remaining latency when attempt n starts. */
  readonly E: readonly number[];
}

/**
 * The expected latency of the timeout sequence t_0 < … < t_z, the last repeated until an attempt
 * completes: E_z = a_z / (1 − b_z), E_n = a_n + b_n E_(n+1) (docs/design.md "Timeouts").
 * @param sequence - strictly increasing positive timeouts (s).
 * @param cost - g(t); default {@link linearCost}().
 * @example
 * ```ts
 * sequenceLatency(lognormalLatency({ median: 0.1, sigma: 0.5 }), [0.2, 1]).E0;
 * ```
 */
export function sequenceLatency(
  distribution: LatencyDistribution,
  sequence: readonly number[],
  cost: AttemptCost = linearCost(),
): SequenceLatency {
  checkSequence(sequence);
  const z = sequence.length - 1;
  const E = new Array<number>(sequence.length);
  E[z] = singleTimeout(distribution, sequence[z] as number, cost).E;
  for (let n = z - 1; n >= 0; n--) {
    const { a, b } = singleTimeout(distribution, sequence[n] as number, cost);
    E[n] = a + b * (E[n + 1] as number);
  }
  return { E0: E[0] as number, E };
}

/** Throws unless `sequence` is a non-empty, strictly increasing list of positive timeouts. */
export function checkSequence(sequence: readonly number[]): void {
  if (sequence.length === 0)
    throw new InvalidArgumentError('a timeout sequence needs at least one timeout');
  for (const [n, t] of sequence.entries()) {
    if (!(t > 0))
      throw new InvalidArgumentError(`sequence[${n}] should be a positive timeout, got ${t}`);
    if (n > 0 && !(t > (sequence[n - 1] as number))) {
      throw new InvalidArgumentError(
        `sequence should be strictly increasing, got sequence[${n - 1}] = ${sequence[n - 1]} and sequence[${n}] = ${t}`,
      );
    }
  }
}
