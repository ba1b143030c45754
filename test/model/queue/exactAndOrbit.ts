import { solveRetryQueue } from '../../../src/model/exact/retryQueueChain.js';
import { type OrbitClass, orbitQueue } from '../../../src/model/queue/orbitQueue.js';

/** One small service for the exact chain: μ, m, and per class λ, k, mean timeout T (s), backoff d (s). */
export interface ExactCase {
  readonly mu: number;
  readonly m: number;
  readonly classes: readonly { l: number; k: number; T: number; d: number }[];
}

/**
 * The exact chain and the orbit law (its mean mix, or `mix`) on one case, both with
 * exponentially distributed timeouts.
 */
export function exactAndOrbit(c: ExactCase, mix: 'mean' | 'level' = 'mean') {
  const exact = solveRetryQueue({
    capacity: c.mu,
    queue: c.m,
    classes: c.classes.map((x) => ({
      arrivalRate: x.l,
      retryLimit: x.k,
      meanTimeout: x.T,
      meanBackoff: x.d,
    })),
  });
  const orbit = orbitQueue({
    capacity: c.mu,
    queue: c.m,
    mix,
    classes: c.classes.map(
      (x): OrbitClass => ({
        arrivalRate: x.l,
        retryLimit: x.k,
        timeout: c.mu * x.T,
        timeoutLaw: 'exponential',
        meanBackoff: x.d,
      }),
    ),
  });
  return { exact, orbit };
}

/** Cases with more retries and two classes, small enough for the exact chain in a test. */
export const SMALL_EXACT_CASES: readonly ExactCase[] = [
  { mu: 100, m: 3, classes: [{ l: 50, k: 2, T: 0.03, d: 0.1 }] },
  {
    mu: 100,
    m: 2,
    classes: [
      { l: 25, k: 1, T: 0.03, d: 0.1 },
      { l: 30, k: 1, T: 0.015, d: 0.2 },
    ],
  },
];
