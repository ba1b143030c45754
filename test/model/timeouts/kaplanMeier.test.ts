import { describe, expect, it } from 'vitest';
import {
  empiricalLatency,
  kaplanMeier,
  type LatencySample,
  seededRandom,
} from '../../../src/model/index.js';

/**
 * Exponential latencies (mean 1) with random censoring: each attempt also gets an exponential
 * timeout (mean 2); when it fires first the sample is censored at it. About a third of the
 * samples are censored, and the observed min(X, C) is exponential with mean 2/3, so counting
 * timeouts as completions would estimate S(t) = e^(−1.5t) instead of e^(−t).
 */
function censoredExponential(count: number, seed: number): LatencySample[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const latency = -Math.log(1 - random());
    const timeout = -2 * Math.log(1 - random());
    return timeout < latency ? { latency: timeout, censored: true } : { latency };
  });
}

const SAMPLES = censoredExponential(20_000, 5);
/** Where data exist: S(t) from 0.95 down to 0.1 (about 600 samples still at risk at the end). */
const TIMEOUTS = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.3];

describe('Kaplan–Meier under random censoring (exponential mean 1, censoring mean 2, 20,000 samples, seededRandom(5))', () => {
  it('about a third of the samples are censored', () => {
    const censored = SAMPLES.filter((s) => s.censored).length / SAMPLES.length;
    expect(censored).toBeGreaterThan(0.3);
    expect(censored).toBeLessThan(0.37);
  });

  it('the step estimate is within 3 % of e^(−t) (relative) where S ≥ 0.1', () => {
    const estimate = kaplanMeier(SAMPLES);
    for (const t of TIMEOUTS) {
      const truth = Math.exp(-t);
      const error = Math.abs(estimate.survival(t) / truth - 1);
      expect(error, JSON.stringify({ t, estimate: estimate.survival(t), truth })).toBeLessThan(
        0.03,
      );
    }
  });

  it('the smoothed estimate (empiricalLatency) is within 4 % of e^(−t) where S ≥ 0.1', () => {
    const law = empiricalLatency(SAMPLES);
    for (const t of TIMEOUTS) {
      const truth = Math.exp(-t);
      const got = law.survival(t) / law.mass;
      const inputs = { t, got, truth, bandwidth: law.bandwidth, mass: law.mass };
      expect(Math.abs(got / truth - 1), JSON.stringify(inputs)).toBeLessThan(0.04);
    }
  });

  it('treating timeouts as completions is clearly biased: S ≈ e^(−1.5t), 20 % to 60 % low', () => {
    const naive = empiricalLatency(SAMPLES.map((s) => ({ latency: s.latency })));
    for (const t of [0.5, 1, 1.5]) {
      const truth = Math.exp(-t);
      const got = naive.survival(t);
      expect(got / truth - 1, JSON.stringify({ t, got, truth })).toBeLessThan(-0.2);
      expect(Math.abs(got / Math.exp(-1.5 * t) - 1)).toBeLessThan(0.05);
    }
  });

  it('dropping the timeouts is biased too (only short latencies beat their timeouts)', () => {
    const dropped = empiricalLatency(SAMPLES.filter((s) => !s.censored));
    expect(dropped.survival(1) / Math.exp(-1) - 1).toBeLessThan(-0.2);
  });
});

describe('kaplanMeier', () => {
  it('matches a hand computation with ties, censoring and weights', () => {
    // At risk 6: t = 1 completes weight 2 → S = 4/6. t = 2: one completes (1) and one is
    // censored (1), at risk 4 → S = 4/6 · 3/4 = 1/2. t = 3 censored (weight 2): no jump, and
    // nothing is left at risk: S stays 1/2, so the known mass is 1/2.
    const estimate = kaplanMeier([
      { latency: 2, censored: true },
      { latency: 1, weight: 2 },
      { latency: 2 },
      { latency: 3, censored: true, weight: 2 },
    ]);
    expect([...estimate.times]).toEqual([1, 2]);
    expect(estimate.masses[0]).toBeCloseTo(1 / 3, 15);
    expect(estimate.masses[1]).toBeCloseTo(1 / 6, 15);
    expect(estimate.mass).toBeCloseTo(0.5, 15);
    expect(estimate.survival(0.5)).toBe(1);
    expect(estimate.survival(1.5)).toBeCloseTo(2 / 3, 15);
    expect(estimate.survival(10)).toBeCloseTo(0.5, 15);
    expect(estimate.minLatency).toBe(1);
    expect(estimate.maxLatency).toBe(3);
    expect(estimate.effectiveEvents).toBeCloseTo(9 / 5, 15); // (2 + 1)² / (4 + 1)
  });

  it('without censoring it is the weighted empirical law and the mass is 1', () => {
    const estimate = kaplanMeier([{ latency: 3 }, { latency: 1, weight: 3 }]);
    expect([...estimate.masses]).toEqual([0.75, 0.25]);
    expect(estimate.mass).toBe(1);
  });

  it('mass < 1 when the largest samples are censored: 1 − e^(−T) for a timeout T', () => {
    const random = seededRandom(9);
    const T = 1.2;
    const samples = Array.from({ length: 20_000 }, () => {
      const latency = -Math.log(1 - random());
      return latency > T ? { latency: T, censored: true } : { latency };
    });
    const law = empiricalLatency(samples);
    expect(law.kaplanMeier.mass).toBeCloseTo(1 - Math.exp(-T), 2);
    expect(law.mass).toBeCloseTo(law.kaplanMeier.mass, 12);
    expect(law.maxObserved).toBe(T);
  });

  it('rejects bad samples, naming them', () => {
    expect(() => kaplanMeier([])).toThrow(/at least one sample/);
    expect(() => kaplanMeier([{ latency: 0 }])).toThrow(/samples\[0\]\.latency/);
    expect(() => kaplanMeier([{ latency: 1 }, { latency: 1, weight: -1 }])).toThrow(
      /samples\[1\]\.weight/,
    );
    expect(() => kaplanMeier([{ latency: 1, censored: true }])).toThrow(/uncensored/);
  });
});
