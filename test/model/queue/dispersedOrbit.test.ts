import { describe, expect, it } from 'vitest';
import { netCountVariance } from '../../../src/model/queue/netCountVariance.js';
import { CHAIN_WORK_BUDGET, orbitQueue } from '../../../src/model/queue/orbitQueue.js';

describe('the variance rate of the orbit’s net count over a moving queue', () => {
  it('is the two-state modulated Poisson count’s closed form at m = 1', () => {
    // Arrivals at λ; at L = 1 they are rejected (marked +1), at L = 0 accepted (unmarked);
    // service at μ. The count of rejections has variance rate λπ₁ + 2λ²π₀π₁/(λ + μ).
    const lambda = 3;
    const mu = 5;
    const p0 = mu / (lambda + mu);
    const p1 = lambda / (lambda + mu);
    const variance = netCountVariance(
      Float64Array.from([p0, p1]),
      lambda,
      lambda * p1,
      Float64Array.from([0, lambda]),
      Float64Array.from([0, 0]),
      Float64Array.from([lambda, 0]),
      new Float64Array(1),
    );
    expect(variance).toBeCloseTo(lambda * p1 + (2 * lambda ** 2 * p0 * p1) / (lambda + mu), 12);
  });

  it('is the Poisson u + v where the marks do not depend on the queue', () => {
    const m = 6;
    const rho = 0.8;
    const law = Float64Array.from({ length: m + 1 }, (_, L) => rho ** L);
    const total = law.reduce((a, b) => a + b, 0);
    for (let L = 0; L <= m; L++) law[L] = (law[L] as number) / total;
    const up = new Float64Array(m + 1).fill(2);
    const down = new Float64Array(m + 1).fill(1.5);
    const idle = new Float64Array(m + 1).fill(4.5);
    const variance = netCountVariance(law, 8, 0.5, up, down, idle, new Float64Array(m));
    expect(variance).toBeCloseTo(3.5, 12);
  });
});

describe('the dispersed orbit law against the joint chain', () => {
  const service = (backoff: number, solver: 'chain' | 'dispersed' | 'auto') =>
    orbitQueue({
      capacity: 100,
      queue: 20,
      solver,
      classes: [{ arrivalRate: 50, retryLimit: 1, timeout: 3, meanBackoff: backoff }],
    });
  const rejection = (backoff: number, solver: 'chain' | 'dispersed' | 'auto') =>
    service(backoff, solver).classes[0]?.requestRejection ?? Number.NaN;

  it('comes close to the chain where the backoff is long against the queue', () => {
    // Backoff 200 service times: the chain says 0.2421 here.
    const chain = rejection(2, 'chain');
    const dispersed = rejection(2, 'dispersed');
    expect(chain).toBeGreaterThan(0.23);
    expect(Math.abs(dispersed - chain)).toBeLessThan(0.015);
  });

  it('balances the flows: every request rejected, completed or still retrying', () => {
    const figures = service(2, 'dispersed');
    const c = figures.classes[0];
    expect(c?.requestRejection).toBeGreaterThan(0);
    expect(c?.requestRejection).toBeLessThan(1);
    // k = 1: attempts per request are 1 + P(first fails), and only those can give up.
    expect(c?.requestRejection).toBeLessThan((c?.attemptsPerRequest ?? 0) - 1);
  });

  it('is what auto picks once the chain’s work passes the budget', () => {
    // levels ≈ 2 λ d + 16; the chain's work levels · 21³.
    const long = 200;
    expect(((2 * 50 * long + 16) * 21 ** 3) / CHAIN_WORK_BUDGET).toBeGreaterThan(1);
    expect(rejection(long, 'auto')).toBe(rejection(long, 'dispersed'));
    expect(rejection(0.1, 'auto')).toBe(rejection(0.1, 'chain'));
  });
});
