/**
 * The LatencyDistribution conformance suite, run against every implementation: the laws every
 * latency law obeys (F̄ non-increasing from the mass to 0, f ≥ 0, F̄' = −f, (∫_0^t x f)' = t f),
 * checked on fixed cases and as fast-check properties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  empiricalLatency,
  exponentialLatency,
  type LatencyDistribution,
  type LatencySample,
  lognormalLatency,
  mixtureLatency,
  seededRandom,
} from '../../../src/model/index.js';
import { BIMODAL, sampleMixture, simpson } from './reference.js';

const bimodal = (): LatencyDistribution =>
  mixtureLatency([
    { weight: 0.7, distribution: lognormalLatency({ median: 0.1, sigma: 0.25 }) },
    { weight: 0.3, distribution: lognormalLatency({ median: 0.5, sigma: 0.25 }) },
  ]);

const draws = sampleMixture(BIMODAL, 2000, seededRandom(11));

/** [name, law, its mean when known] */
const implementations: [string, LatencyDistribution, number | undefined][] = [
  [
    'lognormal(median 0.1, σ 0.25)',
    lognormalLatency({ median: 0.1, sigma: 0.25 }),
    0.1 * Math.exp(0.25 ** 2 / 2),
  ],
  ['lognormal(μ 1, σ 1.5)', lognormalLatency({ mu: 1, sigma: 1.5 }), Math.exp(1 + 1.5 ** 2 / 2)],
  ['exponential(mean 0.3)', exponentialLatency({ mean: 0.3 }), 0.3],
  ['bimodal mixture', bimodal(), 0.7 * 0.1 * Math.exp(0.03125) + 0.3 * 0.5 * Math.exp(0.03125)],
  [
    'empirical (2,000 bimodal draws)',
    empiricalLatency(draws.map((latency) => ({ latency }))),
    undefined,
  ],
  [
    'empirical (censored at 0.6 s, recency weights)',
    empiricalLatency(
      draws.map((latency, i) =>
        latency > 0.6
          ? { latency: 0.6, censored: true, weight: i + 1 }
          : { latency, weight: i + 1 },
      ),
    ),
    undefined,
  ],
  [
    'empirical (three samples)',
    empiricalLatency([{ latency: 0.1 }, { latency: 0.2, weight: 3 }, { latency: 1 }]),
    undefined,
  ],
];

/** Timeouts spanning the law and beyond, log-spaced. */
function span(law: LatencyDistribution, count = 400): number[] {
  const low = law.minObserved / 10;
  const high = law.maxObserved * 10;
  return Array.from({ length: count }, (_, k) => low * (high / low) ** (k / (count - 1)));
}

/** Checks the monotonicity laws at the given timeouts; returns the first violation, if any. */
function monotonicityViolation(law: LatencyDistribution, timeouts: number[]): string | undefined {
  const sorted = [...timeouts].sort((a, b) => a - b);
  const total = law.partialMean(Number.POSITIVE_INFINITY);
  let previous = { t: 0, survival: law.survival(0), partial: law.partialMean(0) };
  for (const t of sorted) {
    const survival = law.survival(t);
    const partial = law.partialMean(t);
    const density = law.density(t);
    if (!(density >= 0)) return `density(${t}) = ${density}`;
    // Monotone up to rounding: sums of mixture terms may differ in the last bits.
    if (!(survival <= previous.survival + 1e-13 * law.mass)) {
      return `survival rises: S(${previous.t}) = ${previous.survival}, S(${t}) = ${survival}`;
    }
    if (!(partial >= previous.partial - 1e-13 * total)) {
      return `partialMean falls: M(${previous.t}) = ${previous.partial}, M(${t}) = ${partial}`;
    }
    if (!(partial <= total * (1 + 1e-12))) return `partialMean(${t}) = ${partial} > mean ${total}`;
    if (!(survival >= 0 && survival <= law.mass * (1 + 1e-12)))
      return `survival(${t}) = ${survival}`;
    previous = { t, survival, partial };
  }
  return undefined;
}

describe('LatencyDistribution conformance', () => {
  for (const [name, law, mean] of implementations) {
    describe(name, () => {
      it('F̄(0) = mass, F̄(∞) = 0, ∫_0^0 x f = 0, and a sensible observed range', () => {
        expect(law.survival(0)).toBe(law.mass);
        expect(law.survival(Number.POSITIVE_INFINITY)).toBe(0);
        expect(law.partialMean(0)).toBe(0);
        expect(law.density(0)).toBeGreaterThanOrEqual(0);
        expect(law.mass).toBeGreaterThan(0);
        expect(law.mass).toBeLessThanOrEqual(1 + 1e-12);
        expect(law.minObserved).toBeGreaterThan(0);
        expect(law.maxObserved).toBeGreaterThanOrEqual(law.minObserved);
        if (mean !== undefined) {
          expect(law.mass).toBe(1);
          expect(law.partialMean(Number.POSITIVE_INFINITY)).toBeCloseTo(mean, 12);
        }
      });

      it('F̄ non-increasing, f ≥ 0, ∫_0^t x f non-decreasing and ≤ the mean', () => {
        expect(monotonicityViolation(law, span(law))).toBeUndefined();
      });

      it('F̄(t1) − F̄(t2) = ∫ f and ∫_0^t2 x f − ∫_0^t1 x f = ∫ x f (Simpson on ln t)', () => {
        const points = span(law, 9);
        for (let k = 0; k + 1 < points.length; k++) {
          const y1 = Math.log(points[k] as number);
          const y2 = Math.log(points[k + 1] as number);
          const inputs = { name, t1: Math.exp(y1), t2: Math.exp(y2) };
          const completed = simpson((y) => law.density(Math.exp(y)) * Math.exp(y), y1, y2, 40_000);
          const weighted = simpson(
            (y) => law.density(Math.exp(y)) * Math.exp(2 * y),
            y1,
            y2,
            40_000,
          );
          expect(
            Math.abs(law.survival(inputs.t1) - law.survival(inputs.t2) - completed),
            JSON.stringify(inputs),
          ).toBeLessThan(1e-7 * law.mass);
          expect(
            Math.abs(law.partialMean(inputs.t2) - law.partialMean(inputs.t1) - weighted),
            JSON.stringify(inputs),
          ).toBeLessThan(1e-7 * law.partialMean(Number.POSITIVE_INFINITY));
        }
      });
    });
  }
});

const lognormalArbitrary = fc
  .record({
    median: fc.double({ min: 1e-3, max: 100, noNaN: true }),
    sigma: fc.double({ min: 0.05, max: 3, noNaN: true }),
  })
  .map((options) => lognormalLatency(options));
const lawArbitrary: fc.Arbitrary<LatencyDistribution> = fc.oneof(
  lognormalArbitrary,
  fc.double({ min: 1e-3, max: 100, noNaN: true }).map((mean) => exponentialLatency({ mean })),
  fc
    .array(
      fc.record({
        weight: fc.double({ min: 0.01, max: 1, noNaN: true }),
        distribution: lognormalArbitrary,
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    )
    .map((components) => mixtureLatency(components)),
  fc
    .array(
      fc.record({
        latency: fc.double({ min: 1e-3, max: 10, noNaN: true }),
        censored: fc.boolean(),
        weight: fc.double({ min: 0, max: 5, noNaN: true }),
      }),
      { minLength: 1, maxLength: 60 },
    )
    .map((samples): LatencySample[] => [{ latency: 0.05 + samples.length / 100 }, ...samples])
    .map((samples) => empiricalLatency(samples)),
);

describe('LatencyDistribution properties (fast-check)', () => {
  it('F̄ non-increasing, f ≥ 0, ∫_0^t x f non-decreasing and ≤ the mean, at random timeouts', () => {
    fc.assert(
      fc.property(
        lawArbitrary,
        fc.array(fc.double({ min: 1e-5, max: 1e4, noNaN: true }), { minLength: 2, maxLength: 40 }),
        (law, timeouts) => {
          expect(monotonicityViolation(law, timeouts)).toBeUndefined();
        },
      ),
      { numRuns: 300, seed: 20261129 },
    );
  });
});
