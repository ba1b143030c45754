import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { RandomSource } from '../../model/random.js';

/**
 * The send times of a Poisson stream, drawn in advance: exponential gaps with mean 1/rate,
 * accumulated from 0 while they stay below `durationMs`. Drawing them all before the first send
 * keeps the stream independent of how the system answers (an open loop), and makes it the same
 * on every run with the same random source.
 * @param rate - requests per second, ≥ 0 (0 gives an empty stream).
 * @param durationMs - length of the stream, ms, ≥ 0.
 * @param random - uniforms in [0, 1); pass a seeded one (`seededRandom`).
 * @returns ascending times in ms from the start of the stream.
 * @example
 * ```ts
 * const times = poissonSendTimes(50, 10_000, seededRandom(1)); // about 500 times in [0, 10 s)
 * ```
 */
export function poissonSendTimes(
  rate: number,
  durationMs: number,
  random: RandomSource,
): Float64Array {
  if (!(Number.isFinite(rate) && rate >= 0)) {
    throw new InvalidArgumentError(`rate should be a finite number ≥ 0 (requests/s), got ${rate}`);
  }
  if (!(Number.isFinite(durationMs) && durationMs >= 0)) {
    throw new InvalidArgumentError(`durationMs should be a finite number ≥ 0, got ${durationMs}`);
  }
  if (rate === 0) return new Float64Array(0);
  const meanGapMs = 1000 / rate;
  const times: number[] = [];
  let t = -meanGapMs * Math.log1p(-random());
  while (t < durationMs) {
    times.push(t);
    // Inversion: −ln(1 − u) is exponential with mean 1 for u uniform in [0, 1).
    t += -meanGapMs * Math.log1p(-random());
  }
  return Float64Array.from(times);
}
