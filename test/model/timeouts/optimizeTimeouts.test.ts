import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ceilingTimeout,
  empiricalLatency,
  exponentialLatency,
  type LatencyDistribution,
  linearCost,
  lognormalLatency,
  mixtureLatency,
  optimizeTimeouts,
  seededRandom,
  sequenceLatency,
  singleTimeout,
  type TimeoutNode,
} from '../../../src/model/index.js';
import {
  BIMODAL,
  bruteForceOptimum,
  type MixtureSpec,
  mixtureE0,
  sampleMixture,
} from './reference.js';

function mixtureOf(spec: MixtureSpec): LatencyDistribution {
  return mixtureLatency(
    spec.medians.map((median, i) => ({
      weight: spec.weights[i] as number,
      distribution: lognormalLatency({ median, sigma: spec.sigma }),
    })),
  );
}

const TZ = 1;
const CASES = [
  { depth: 3, c1: 0 },
  { depth: 4, c1: 0 },
  { depth: 3, c1: 0.1 },
  { depth: 4, c1: 0.1 },
];

describe('optimizeTimeouts: the tree search against a brute-force optimum (bimodal law, t_z = 1 s)', () => {
  const law = mixtureOf(BIMODAL);
  for (const { depth, c1 } of CASES) {
    it(`parametric law: depth ${depth}, g = ${c1}·t: E_0 within 1 % of the brute force`, () => {
      const brute = bruteForceOptimum(BIMODAL, { depth, tz: TZ, c1 });
      const tree = optimizeTimeouts(law, { depth, tz: TZ, cost: linearCost({ c1 }) });
      const inputs = { depth, c1, tree: tree.sequence, treeE0: tree.E0, brute };
      expect(tree.sequence, JSON.stringify(inputs)).toHaveLength(depth);
      expect(Math.abs(tree.E0 / brute.E0 - 1), JSON.stringify(inputs)).toBeLessThan(0.01);
      // The test's own recursion on the true law agrees with the Optimizer's E_0.
      expect(mixtureE0(BIMODAL, tree.sequence, c1)).toBeCloseTo(tree.E0, 12);
    });
  }

  // The law known only through 100,000 draws (seededRandom(2024)). Compared: (1) the true E_0
  // of the sequence optimised on empiricalLatency(draws), i.e. what the chosen sequence really
  // costs, and (2) the Optimizer's own estimate E_0 from the empirical law, each against the
  // brute-force optimum on the TRUE law.
  const draws = sampleMixture(BIMODAL, 100_000, seededRandom(2024)).map((latency) => ({ latency }));
  const empirical = empiricalLatency(draws);
  for (const { depth, c1 } of CASES) {
    it(`100,000 samples: depth ${depth}, g = ${c1}·t: true and estimated E_0 within 1 % of the true optimum`, () => {
      const brute = bruteForceOptimum(BIMODAL, { depth, tz: TZ, c1 });
      const fitted = optimizeTimeouts(empirical, { depth, tz: TZ, cost: linearCost({ c1 }) });
      const trueE0 = mixtureE0(BIMODAL, fitted.sequence, c1);
      const inputs = { depth, c1, fitted: fitted.sequence, estimated: fitted.E0, trueE0, brute };
      expect(fitted.sequence, JSON.stringify(inputs)).toHaveLength(depth);
      expect(trueE0 / brute.E0 - 1, JSON.stringify(inputs)).toBeLessThan(0.01);
      expect(trueE0 / brute.E0 - 1, JSON.stringify(inputs)).toBeGreaterThan(-1e-9);
      expect(Math.abs(fitted.E0 / brute.E0 - 1), JSON.stringify(inputs)).toBeLessThan(0.01);
    });
  }
});

describe('optimizeTimeouts: the tree', () => {
  // Three modes (0.1, 0.5 and 2.5 s): every level has a minimum after the first mode and one
  // after the second, so the tree branches; with g = 0.3·t the best sequence follows the
  // branch that is not the best at the first level down.
  const TRIMODAL: MixtureSpec = { medians: [0.1, 0.5, 2.5], weights: [0.5, 0.3, 0.2], sigma: 0.25 };
  const law = mixtureOf(TRIMODAL);

  for (const c1 of [0, 0.3]) {
    it(`trimodal law, depth 3 and 4, g = ${c1}·t: branches, and E_0 within 1 % of the brute force`, () => {
      for (const depth of [3, 4]) {
        const tree = optimizeTimeouts(law, { depth, tz: 5, cost: linearCost({ c1 }) });
        const brute = bruteForceOptimum(TRIMODAL, { depth, tz: 5, c1 });
        const inputs = { depth, c1, tree: tree.sequence, E0: tree.E0, brute };
        expect(tree.tree.children.length, JSON.stringify(inputs)).toBe(2);
        expect(Math.abs(tree.E0 / brute.E0 - 1), JSON.stringify(inputs)).toBeLessThan(0.01);
      }
    });
  }

  it('every node is consistent: child t < parent t, E = a(t) + b(t)·E_parent, children ascending', () => {
    const cost = linearCost({ c1: 0.3 });
    const { tree, sequence, E } = optimizeTimeouts(law, { depth: 4, tz: 5, cost });
    const check = (node: TimeoutNode, depth: number): number => {
      let leaves = node.children.length === 0 ? 1 : 0;
      node.children.forEach((child, i) => {
        expect(child.t).toBeLessThan(node.t);
        if (i > 0) expect(child.t).toBeGreaterThan((node.children[i - 1] as TimeoutNode).t);
        const { a, b } = singleTimeout(law, child.t, cost);
        expect(child.E).toBeCloseTo(a + b * node.E, 12);
        leaves += check(child, depth + 1);
      });
      expect(depth).toBeLessThanOrEqual(4);
      return leaves;
    };
    expect(tree.t).toBe(5);
    expect(check(tree, 1)).toBeGreaterThan(1);
    // The answer is a path of the tree.
    let node = tree;
    for (let n = sequence.length - 2; n >= 0; n--) {
      const next = node.children.find((child) => child.t === sequence[n]);
      expect(next).toBeDefined();
      node = next as TimeoutNode;
      expect(node.E).toBe(E[n]);
    }
  });

  it('depth 1 is t_z alone', () => {
    const result = optimizeTimeouts(law, { depth: 1, tz: 5 });
    expect(result.sequence).toEqual([5]);
    expect(result.E0).toBe(singleTimeout(law, 5).E);
    expect(result.tree.children).toEqual([]);
  });

  it('no earlier timeout helps a memoryless law at g = 0: the sequence stays [t_z]', () => {
    // Every sequence costs the mean; the sign of q is rounding only, which the search ignores.
    const law = exponentialLatency({ mean: 1 });
    const result = optimizeTimeouts(law, { depth: 4, tz: 3 });
    expect(result.sequence).toEqual([3]);
    expect(result.E0).toBeCloseTo(1, 12);
    expect(result.tree.children).toEqual([]);
  });

  it('the best single timeout beats every point of a fine grid', () => {
    const bimodal = mixtureOf(BIMODAL);
    const { single } = optimizeTimeouts(bimodal, { depth: 2, tz: 1 });
    for (let t = 0.05; t < 2; t *= 1.001) {
      expect(single.E).toBeLessThanOrEqual(singleTimeout(bimodal, t).E + 1e-12);
    }
    expect(single.timeout).toBeGreaterThan(0.14);
    expect(single.timeout).toBeLessThan(0.17);
  });

  it('rejects bad options, naming them', () => {
    const bimodal = mixtureOf(BIMODAL);
    expect(() => optimizeTimeouts(bimodal, { depth: 0 })).toThrow(/depth/);
    expect(() => optimizeTimeouts(bimodal, { depth: 2.5 })).toThrow(/depth/);
    expect(() => optimizeTimeouts(bimodal, { depth: 2, tz: -1 })).toThrow(/tz/);
    expect(() => optimizeTimeouts(bimodal, { depth: 2, seeds: 1 })).toThrow(/seeds/);
    expect(() => optimizeTimeouts(bimodal, { depth: 2, tz: 1e-9 })).toThrow(/below every latency/);
    expect(() => optimizeTimeouts(mixtureOf(TRIMODAL), { depth: 6, tz: 5, maxNodes: 3 })).toThrow(
      /maxNodes/,
    );
  });
});

describe('the default ceiling t_z', () => {
  it('is 1.5 × the 99th percentile: exponential(mean 1) → 1.5 ln 100', () => {
    expect(ceilingTimeout(exponentialLatency({ mean: 1 }))).toBeCloseTo(1.5 * Math.log(100), 8);
  });

  it('is capped at 2 × the largest observation', () => {
    // Censored at 0.3 s with 30 % of the mass beyond: the known-mass percentile stays near 0.3.
    const law = empiricalLatency([
      { latency: 0.1 },
      { latency: 0.2 },
      { latency: 0.25, weight: 5 },
      { latency: 0.3, censored: true, weight: 3 },
    ]);
    expect(ceilingTimeout(law)).toBeLessThanOrEqual(2 * 0.3);
    const wide = lognormalLatency({ median: 1, sigma: 3 });
    expect(ceilingTimeout({ ...wide, maxObserved: 2 })).toBe(4);
  });

  it('is what optimizeTimeouts uses when tz is not given', () => {
    const law = mixtureOf(BIMODAL);
    const result = optimizeTimeouts(law, { depth: 3 });
    expect(result.tz).toBe(ceilingTimeout(law));
    expect(result.sequence[result.sequence.length - 1]).toBe(result.tz);
  });
});

describe('optimizeTimeouts properties (fast-check)', () => {
  const lawArbitrary = fc
    .array(
      fc.record({
        weight: fc.double({ min: 0.05, max: 1, noNaN: true }),
        median: fc.double({ min: 0.01, max: 5, noNaN: true }),
        sigma: fc.double({ min: 0.1, max: 1.5, noNaN: true }),
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map((components) =>
      mixtureLatency(
        components.map(({ weight, median, sigma }) => ({
          weight,
          distribution: lognormalLatency({ median, sigma }),
        })),
      ),
    );

  it('sequences are strictly increasing, end at t_z, have at most `depth` timeouts, and E_0 is theirs', () => {
    fc.assert(
      fc.property(
        lawArbitrary,
        fc.integer({ min: 1, max: 5 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        // t_z from half the law's observed maximum up (lower, it can be below every latency).
        fc.option(fc.double({ min: 0.5, max: 5, noNaN: true }), { nil: undefined }),
        (law, depth, c1, ceilingFactor) => {
          const cost = linearCost({ c1 });
          const tz = ceilingFactor === undefined ? undefined : ceilingFactor * law.maxObserved;
          const result = optimizeTimeouts(law, { depth, tz, cost });
          const { sequence } = result;
          expect(sequence.length).toBeGreaterThanOrEqual(1);
          expect(sequence.length).toBeLessThanOrEqual(depth);
          expect(sequence[sequence.length - 1]).toBe(result.tz);
          if (tz !== undefined) expect(result.tz).toBe(tz);
          for (let n = 1; n < sequence.length; n++) {
            expect(sequence[n]).toBeGreaterThan(sequence[n - 1] as number);
          }
          const { E0 } = sequenceLatency(law, sequence, cost);
          expect(result.E0).toBeCloseTo(E0, 10);
          // Never worse than t_z alone, the tree's root.
          expect(result.E0).toBeLessThanOrEqual(
            singleTimeout(law, result.tz, cost).E * (1 + 1e-12),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
