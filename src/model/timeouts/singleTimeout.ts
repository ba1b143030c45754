import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { AttemptCost, LatencyDistribution } from './LatencyDistribution.js';
import { linearCost } from './linearCost.js';

/** One attempt with timeout t: its mean cost a(t) (s), its timeout probability b(t), and E(t). */
export interface AttemptOutcomeCost {
  /** a(t) = (∫_0^t x f + t F̄(t)) / ∫f + g(t), seconds. */
  readonly a: number;
  /** b(t) = F̄(t) / ∫f: the probability the attempt times out. */
  readonly b: number;
  /** E(t) = a(t) / (1 − b(t)): expected latency (s) when t is repeated until a success. */
  readonly E: number;
}

/**
 * The cost of one attempt with timeout `t` (seconds) and the expected latency of repeating that
 * timeout until an attempt completes (docs/design.md "Timeouts"; a two-state Markov chain:
 * Uncompleted, Completed). E is +∞ when no attempt can complete (b = 1).
 * @param cost - g(t); default {@link linearCost}() (g = 0, so E is the plain expected latency).
 * @example
 * ```ts
 * singleTimeout(exponentialLatency({ mean: 1 }), 2).E; // 1: the exponential is memoryless
 * ```
 */
export function singleTimeout(
  distribution: LatencyDistribution,
  t: number,
  cost: AttemptCost = linearCost(),
): AttemptOutcomeCost {
  if (!(t > 0))
    throw new InvalidArgumentError(`timeout should be a positive number of seconds, got ${t}`);
  const { mass } = distribution;
  const survival = distribution.survival(t);
  // t·F̄(t) is 0 once F̄ is (t = ∞ means no timeout).
  const waited = survival > 0 ? t * survival : 0;
  const a = (distribution.partialMean(t) + waited) / mass + cost.g(t);
  const b = survival / mass;
  const completes = (mass - survival) / mass;
  return { a, b, E: completes > 0 ? a / completes : Number.POSITIVE_INFINITY };
}
