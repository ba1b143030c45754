import { describe, expect, it } from 'vitest';
import {
  exponentialLatency,
  type LatencyDistribution,
  linearCost,
  lognormalLatency,
  mixtureLatency,
  sequenceLatency,
  singleTimeout,
} from '../../../src/model/index.js';
import { simpson } from './reference.js';

/** a, b and E from the density alone, by Simpson's rule over (0, t] (and the mass beyond). */
function integrated(
  density: (x: number) => number,
  t: number,
  c0: number,
  c1: number,
): { a: number; b: number; E: number } {
  const f = density;
  const completed = simpson(f, 0, t);
  const partial = simpson((x) => x * f(x), 0, t);
  const b = 1 - completed;
  const a = partial + t * b + c0 + c1 * t;
  return { a, b, E: a / (1 - b) };
}

const exponentialDensity = (mean: number) => (x: number) => Math.exp(-x / mean) / mean;
const lognormalDensity = (mu: number, sigma: number) => (x: number) =>
  x <= 0
    ? 0
    : Math.exp(-((Math.log(x) - mu) ** 2) / (2 * sigma * sigma)) /
      (x * sigma * Math.sqrt(2 * Math.PI));

const laws: [string, LatencyDistribution, (x: number) => number, number[]][] = [
  [
    'exponential(mean 0.2)',
    exponentialLatency({ mean: 0.2 }),
    exponentialDensity(0.2),
    [0.01, 0.1, 0.5, 2],
  ],
  ['exponential(mean 3)', exponentialLatency({ mean: 3 }), exponentialDensity(3), [0.5, 3, 10]],
  [
    'lognormal(median 0.1, σ 0.25)',
    lognormalLatency({ median: 0.1, sigma: 0.25 }),
    lognormalDensity(Math.log(0.1), 0.25),
    [0.06, 0.1, 0.15, 0.3],
  ],
  [
    'lognormal(μ 0, σ 1)',
    lognormalLatency({ mu: 0, sigma: 1 }),
    lognormalDensity(0, 1),
    [0.2, 1, 5],
  ],
];

describe('singleTimeout: a(t), b(t), E(t) against Simpson integration of the density', () => {
  for (const [name, law, density, timeouts] of laws) {
    for (const t of timeouts) {
      for (const [c0, c1] of [
        [0, 0],
        [0.01, 0.2],
      ] as const) {
        it(`${name}, t = ${t}, g = ${c0} + ${c1}·t`, () => {
          const inputs = { name, t, c0, c1 };
          const got = singleTimeout(law, t, linearCost({ c0, c1 }));
          const want = integrated(density, t, c0, c1);
          for (const key of ['a', 'b', 'E'] as const) {
            const error = Math.abs(got[key] - want[key]) / Math.max(1e-12, Math.abs(want[key]));
            expect(
              error,
              JSON.stringify({ ...inputs, key, got: got[key], want: want[key] }),
            ).toBeLessThan(1e-7);
          }
        });
      }
    }
  }

  it('the exponential is memoryless: E(t) = mean for every t when g = 0', () => {
    const law = exponentialLatency({ mean: 0.4 });
    for (const t of [1e-3, 0.1, 1, 10]) expect(singleTimeout(law, t).E).toBeCloseTo(0.4, 12);
  });

  it('E = ∞ when no attempt can complete, and t = ∞ gives the mean', () => {
    const law = exponentialLatency({ mean: 1 });
    expect(singleTimeout(law, 1e-320).E).toBe(Number.POSITIVE_INFINITY);
    expect(singleTimeout(law, Number.POSITIVE_INFINITY)).toEqual({ a: 1, b: 0, E: 1 });
    expect(() => singleTimeout(law, 0)).toThrow(/positive/);
  });
});

describe('sequenceLatency against the unrolled sum', () => {
  /**
   * E_0 = Σ_{n<z} (Π_{k<n} b_k) a_n + (Π_{k<z} b_k) a_z / (1 − b_z): the expectation summed over
   * "attempt n is reached", written without the recursion.
   */
  function unrolled(law: LatencyDistribution, sequence: number[], c1: number): number {
    const cost = linearCost({ c1 });
    const z = sequence.length - 1;
    let reach = 1;
    let total = 0;
    for (let n = 0; n <= z; n++) {
      const { a, b } = singleTimeout(law, sequence[n] as number, cost);
      total += reach * (n === z ? a / (1 - b) : a);
      reach *= b;
    }
    return total;
  }

  const bimodal = mixtureLatency([
    { weight: 0.7, distribution: lognormalLatency({ median: 0.1, sigma: 0.25 }) },
    { weight: 0.3, distribution: lognormalLatency({ median: 0.5, sigma: 0.25 }) },
  ]);
  const cases: [number[], number][] = [
    [[1], 0],
    [[0.15, 1], 0],
    [[0.12, 0.15, 0.2, 1.2], 0.1],
    [[0.05, 0.3, 0.6, 0.9, 2], 0.5],
  ];
  for (const [sequence, c1] of cases) {
    it(`bimodal, [${sequence}], c1 = ${c1}`, () => {
      const { E0, E } = sequenceLatency(bimodal, sequence, linearCost({ c1 }));
      expect(E).toHaveLength(sequence.length);
      expect(E[0]).toBe(E0);
      expect(E0).toBeCloseTo(unrolled(bimodal, sequence, c1), 12);
      // Each E_n is the sequence's expectation from n on.
      for (let n = 0; n < sequence.length; n++) {
        expect(E[n]).toBeCloseTo(unrolled(bimodal, sequence.slice(n), c1), 12);
      }
    });
  }

  it('rejects sequences that are empty, non-positive or not strictly increasing', () => {
    const law = exponentialLatency({ mean: 1 });
    expect(() => sequenceLatency(law, [])).toThrow(/at least one/);
    expect(() => sequenceLatency(law, [0, 1])).toThrow(/sequence\[0\]/);
    expect(() => sequenceLatency(law, [1, 1])).toThrow(/strictly increasing/);
  });
});
