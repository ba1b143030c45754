import { describe, expect, it } from 'vitest';
import {
  type RetryQueueService,
  retryQueueFigures,
  solveRetryQueue,
} from '../../../src/model/exact/retryQueueChain.js';
import type { NetworkModel } from '../../../src/model/index.js';
import { seededRandom } from '../../../src/model/random.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';

/** M/M/1/m: the share of time with n present, ∝ ρ^n (n = 0 … m). */
function mm1mDistribution(rho: number, m: number): number[] {
  const weights = Array.from({ length: m + 1 }, (_, n) => rho ** n);
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => w / total);
}

const oneClass = (
  arrivalRate: number,
  retryLimit: number,
  meanTimeout = Number.POSITIVE_INFINITY,
  meanBackoff = 0.1,
) => [{ arrivalRate, retryLimit, meanTimeout, meanBackoff }];

describe('the exact chain of one service with retries and timeouts', () => {
  it('without retries or timeouts is M/M/1/m: blocking π_m', () => {
    for (const [lambda, mu, m] of [
      [80, 100, 3],
      [150, 100, 5],
      [10, 100, 1],
    ] as const) {
      const figures = retryQueueFigures(
        { capacity: mu, queue: m, classes: oneClass(lambda, 0) },
        0,
      );
      const pi = mm1mDistribution(lambda / mu, m);
      expect(figures.classes[0]?.requestRejection).toBeCloseTo(pi[m] as number, 12);
      expect(figures.utilisation).toBeCloseTo(1 - (pi[0] as number), 12);
      expect(figures.meanQueue).toBeCloseTo(
        pi.reduce((sum, p, n) => sum + n * p, 0),
        12,
      );
    }
  });

  it('with exponential timeouts and no retries: τ = 1 − E[(μ/(μ+θ))^(n+1) | accepted]', () => {
    // Abandoned attempts are still served, so the queue is M/M/1/m whatever times out, and an
    // accepted attempt finding n leaves after an Erlang(n + 1, μ) time: it beats an Exp(θ)
    // timeout with probability (μ/(μ+θ))^(n+1).
    const [lambda, mu, m, theta] = [90, 100, 4, 40];
    const figures = retryQueueFigures(
      { capacity: mu, queue: m, classes: oneClass(lambda, 0, 1 / theta) },
      0,
    );
    const pi = mm1mDistribution(lambda / mu, m);
    const blocked = pi[m] as number;
    let beats = 0;
    for (let n = 0; n < m; n++) beats += (pi[n] as number) * (mu / (mu + theta)) ** (n + 1);
    const tau = 1 - beats / (1 - blocked);
    const only = figures.classes[0];
    expect(only?.attemptRejection).toBeCloseTo(blocked, 12);
    expect(only?.timeoutShare).toBeCloseTo(tau, 12);
    expect(only?.requestRejection).toBeCloseTo(blocked + (1 - blocked) * tau, 12);
  });

  it('keeps its flows balanced: Little for backoff, every accepted attempt served', () => {
    const service: RetryQueueService = {
      capacity: 120,
      queue: 3,
      classes: oneClass(55, 2, 0.027, 0.1),
    };
    const figures = solveRetryQueue(service);
    const only = figures.classes[0];
    if (only === undefined) throw new Error('no class');
    const lambda = 55;
    const attempts = lambda * only.attemptsPerRequest;
    // Requests in backoff leave it at 1/d each: retries per second = n̄ / d.
    const near = (a: number, b: number) => expect(Math.abs(a - b) / b).toBeLessThan(1e-9);
    near(only.meanBackoff / 0.1, attempts - lambda);
    // The server completes every accepted attempt, live or abandoned.
    near(figures.utilisation * 120, attempts * (1 - only.attemptRejection));
    // A request fails every one of its attempts or succeeds once.
    const failuresPerAttempt =
      only.attemptRejection + (1 - only.attemptRejection) * only.timeoutShare;
    const successes = attempts * (1 - failuresPerAttempt);
    near(successes, lambda * (1 - only.requestRejection));
    expect(figures.boundaryMass).toBeLessThan(1e-9);
    expect(figures.residual).toBeLessThan(1e-11);
  });

  it('sees two identical classes as one with their summed arrivals', () => {
    const split = solveRetryQueue({
      capacity: 100,
      queue: 2,
      classes: [...oneClass(30, 1, 0.02), ...oneClass(30, 1, 0.02)],
    });
    const joined = solveRetryQueue({ capacity: 100, queue: 2, classes: oneClass(60, 1, 0.02) });
    for (const entry of split.classes) {
      expect(entry.requestRejection).toBeCloseTo(joined.classes[0]?.requestRejection ?? 0, 9);
      expect(entry.timeoutShare).toBeCloseTo(joined.classes[0]?.timeoutShare ?? 0, 9);
    }
    expect(split.offeredLoad).toBeCloseTo(joined.offeredLoad, 9);
  });

  it('agrees with the simulator run under the same laws', () => {
    // Poisson arrivals, exponential service, exponential per-try timeouts and backoff: the chain
    // is exact for this, so the seeded simulation must land within its noise.
    const [mu, m, lambda, k, meanTimeoutS] = [120, 4, 60, 1, 0.027];
    const exact = solveRetryQueue({
      capacity: mu,
      queue: m,
      classes: oneClass(lambda, k, meanTimeoutS),
    });
    const model: NetworkModel = {
      classes: [{ name: 'only', retryLimit: k }],
      services: [
        {
          name: 's',
          capacity: mu,
          queue: m,
          model: 'mm1m',
          arrivals: [lambda],
          retryLimits: [k],
          routes: [],
        },
      ],
    };
    const random = seededRandom(2026, 3);
    const simulated = simulateNetwork(model, {
      duration: 1500,
      warmup: 20,
      seed: 5,
      backoff: { kind: 'random', meanMs: 100 },
      timeouts: () => ({
        next: () => -meanTimeoutS * 1000 * Math.log(1 - random()),
        observe: () => {},
      }),
    });
    const only = exact.classes[0];
    // About 90,000 requests: the standard error of R ≈ 0.25 is below 0.002 (correlation aside).
    expect(
      Math.abs((simulated.endToEnd.only?.rejection ?? 0) - (only?.requestRejection ?? 0)),
    ).toBeLessThan(0.006);
    expect(
      Math.abs(
        (simulated.endToEnd.only?.attemptsPerRequest ?? 0) - (only?.attemptsPerRequest ?? 0),
      ),
    ).toBeLessThan(0.01);
  });

  it('refuses what it cannot build, saying what', () => {
    expect(() => retryQueueFigures({ capacity: 0, queue: 1, classes: oneClass(1, 0) }, 0)).toThrow(
      /capacity/,
    );
    expect(() =>
      retryQueueFigures({ capacity: 100, queue: 2, classes: oneClass(1, 0, 0) }, 0),
    ).toThrow(/meanTimeout/);
    expect(() =>
      retryQueueFigures({ capacity: 100, queue: 12, classes: oneClass(50, 3, 0.01) }, 64),
    ).toThrow(/could have .* states, more than 2000000/);
  });
});
