import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinExample } from '../../../src/config/examples.js';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import { analyzeNetwork } from '../../../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import type { ModelName } from '../../../src/model/phi/Phi.js';
import { solveService } from '../../../src/model/service.js';
import {
  assessNetwork,
  comparable,
  type TuneConstraint,
  type TunePoint,
  type TuneResult,
  tuneMetrics,
  tuneRetryLimits,
} from '../../../src/model/tune/index.js';

function example(name: string, retries?: Record<string, number>): NetworkModel {
  const { fileName, text } = builtinExample(name);
  return toNetworkModel(parseNetwork(text, fileName), { retries });
}

const HIGH_REJECTION: TuneConstraint = {
  metric: 'rejection',
  class: 'high',
  op: '<=',
  bound: 0.05,
};

/** `--example single` solved directly, one service: μ = 143, m = 50, γ = (50, 250). */
function singleByHand(high: number, low: number) {
  const report = solveService({
    capacity: 143,
    queue: 50,
    model: 'mixed',
    classes: [
      { arrivalRate: 50, retryLimit: high },
      { arrivalRate: 250, retryLimit: low },
    ],
  });
  const [h, l] = report.classes as [
    (typeof report.classes)[number],
    (typeof report.classes)[number],
  ];
  return {
    limits: [high, low],
    highRejection: h.rejection,
    lowRejection: l.rejection,
    highGoodput: h.goodput,
    lowGoodput: l.goodput,
    attemptsPerRequest: (h.attempts + l.attempts) / 300,
    rho: report.rho,
  };
}

describe('reference: --example single, high.rejection ≤ 0.05, weights high 10, low 1', () => {
  it('chooses the optimum an exhaustive loop over solveService finds', () => {
    const result = tuneRetryLimits(example('single'), {
      weights: [10, 1],
      constraints: [HIGH_REJECTION],
    });
    // The independent search: every (k_high, k_low) in 0..8², best weighted goodput among those
    // with high rejection ≤ 0.05; ties to fewer total retries, then smaller limits (none occur).
    let best: { limits: number[]; objective: number } | undefined;
    let feasible = 0;
    for (let high = 0; high <= 8; high++) {
      for (let low = 0; low <= 8; low++) {
        const point = singleByHand(high, low);
        if (!(point.highRejection <= 0.05)) continue;
        feasible++;
        const objective = 10 * point.highGoodput + point.lowGoodput;
        if (best === undefined || objective > best.objective)
          best = { limits: [high, low], objective };
      }
    }
    expect(best).toBeDefined();
    expect(result.evaluated).toBe(81);
    expect(result.feasibleCount).toBe(feasible);
    expect(result.best?.limits).toEqual(best?.limits);
    expect(result.best?.objective).toBeCloseTo(best?.objective ?? Number.NaN, 8);
    expect(result.best?.metrics.rejection[0]).toBeLessThanOrEqual(0.05);
    expect(result.best?.feasible).toBe(true);
    expect(result.leastViolating).toBeUndefined();
    // The best is the frontier's first point.
    expect(result.frontier[0]).toBe(result.best);
  });

  it('agrees with solveService on every point’s figures', () => {
    const result = tuneRetryLimits(example('single'), { weights: [10, 1] });
    for (const point of result.points) {
      const [high, low] = point.limits as [number, number];
      const reference = singleByHand(high, low);
      const where = `limits ${point.limits}`;
      expect(point.metrics.rejection[0], where).toBeCloseTo(reference.highRejection, 10);
      expect(point.metrics.rejection[1], where).toBeCloseTo(reference.lowRejection, 10);
      expect(point.metrics.goodput[0], where).toBeCloseTo(reference.highGoodput, 8);
      expect(point.metrics.goodput[1], where).toBeCloseTo(reference.lowGoodput, 8);
      expect(point.metrics.attemptsPerRequest, where).toBeCloseTo(reference.attemptsPerRequest, 10);
      expect(point.metrics.maxRho, where).toBeCloseTo(reference.rho, 10);
      expect(point.objective, where).toBeCloseTo(
        10 * reference.highGoodput + reference.lowGoodput,
        7,
      );
    }
  });
});

describe('constraints', () => {
  const constraints: TuneConstraint[] = [
    HIGH_REJECTION,
    { metric: 'attemptsPerRequest', op: '<=', bound: 1.3 },
    { metric: 'goodput', class: 'low', op: '>=', bound: 94 },
    { metric: 'completion', class: 'low', op: '>=', bound: 0.3 },
    { metric: 'maxRho', op: '<=', bound: 2.66 },
  ];

  it('holds exactly where the figures meet every bound, with the excess of each', () => {
    const result = tuneRetryLimits(example('single'), { weights: [10, 1], constraints });
    let feasible = 0;
    for (const point of result.points) {
      const [high, low] = point.limits as [number, number];
      const r = singleByHand(high, low);
      const excess = [
        Math.max(0, r.highRejection - 0.05),
        Math.max(0, r.attemptsPerRequest - 1.3),
        Math.max(0, 94 - r.lowGoodput),
        Math.max(0, 0.3 - (1 - r.lowRejection)),
        Math.max(0, r.rho - 2.66),
      ];
      const where = `limits ${point.limits}`;
      excess.forEach((e, i) => {
        expect(point.excess[i], `${where}, constraint ${i}`).toBeCloseTo(e, 8);
      });
      const meets = excess.every((e) => e === 0);
      if (meets) feasible++;
      // Away from the bounds the two must agree on feasibility.
      if (excess.every((e) => e === 0 || e > 1e-8)) expect(point.feasible, where).toBe(meets);
      expect(point.violation, where).toBeCloseTo(
        excess[0] / 0.05 + excess[1] / 1.3 + excess[2] / 94 + excess[3] / 0.3 + excess[4] / 2.66,
        6,
      );
    }
    expect(result.feasibleCount).toBe(feasible);
    expect(feasible).toBeGreaterThan(0);
    expect(result.best?.excess.every((e) => e === 0)).toBe(true);
  });

  it('with no constraints every converged point is feasible', () => {
    const result = tuneRetryLimits(example('single'));
    expect(result.feasibleCount).toBe(81);
    expect(result.constraints).toEqual([]);
  });

  it.each<[string, TuneConstraint, RegExp]>([
    ['an unknown class', { ...HIGH_REJECTION, class: 'gold' }, /class should be one of.*got gold/],
    ['a class metric without a class', { metric: 'rejection', op: '<=', bound: 0.1 }, /one class/],
    [
      'a network metric with a class',
      { metric: 'maxRho', class: 'high', op: '<=', bound: 1 },
      /whole network/,
    ],
    [
      'an unknown metric',
      { metric: 'latency' as 'maxRho', op: '<=', bound: 1 },
      /metric should be one of/,
    ],
    ['a bad operator', { ...HIGH_REJECTION, op: '<' as '<=' }, /op should be/],
    ['a bound that is not a number', { ...HIGH_REJECTION, bound: Number.NaN }, /finite number/],
  ])('refuses %s', (_name, constraint, message) => {
    expect(() => tuneRetryLimits(example('single'), { constraints: [constraint] })).toThrow(
      message,
    );
  });

  it('refuses a class metric of a class without traffic, and bad weights', () => {
    const network = example('single');
    const idle: NetworkModel = {
      ...network,
      services: network.services.map((s) => ({ ...s, arrivals: [50, 0] })),
    };
    expect(() =>
      tuneRetryLimits(idle, {
        constraints: [{ metric: 'rejection', class: 'low', op: '<=', bound: 0.1 }],
      }),
    ).toThrow(/class low has no external arrivals/);
    expect(() => tuneRetryLimits(network, { weights: [1] })).toThrow(/one entry per class/);
    expect(() => tuneRetryLimits(network, { weights: [1, -2] })).toThrow(/weights\[1\]/);
  });
});

describe('when nothing is feasible', () => {
  it('returns the point that breaks the constraints least, and by how much', () => {
    const constraints: TuneConstraint[] = [
      { metric: 'rejection', class: 'high', op: '<=', bound: 0.001 },
      { metric: 'attemptsPerRequest', op: '<=', bound: 1.2 },
    ];
    const result = tuneRetryLimits(example('single'), { weights: [10, 1], constraints });
    expect(result.best).toBeUndefined();
    expect(result.feasibleCount).toBe(0);
    expect(result.frontier).toEqual([]);
    // Independently: the smallest Σ excess / bound over the grid.
    let least: { limits: number[]; violation: number; excess: number[] } | undefined;
    for (let high = 0; high <= 8; high++) {
      for (let low = 0; low <= 8; low++) {
        const r = singleByHand(high, low);
        const excess = [
          Math.max(0, r.highRejection - 0.001),
          Math.max(0, r.attemptsPerRequest - 1.2),
        ];
        const violation = excess[0] / 0.001 + excess[1] / 1.2;
        if (least === undefined || violation < least.violation) {
          least = { limits: [high, low], violation, excess };
        }
      }
    }
    const found = result.leastViolating;
    expect(found?.limits).toEqual(least?.limits);
    expect(found?.violation).toBeCloseTo(least?.violation ?? Number.NaN, 6);
    expect(found?.excess[0]).toBeCloseTo(least?.excess[0] ?? Number.NaN, 9);
    expect(found?.excess[1]).toBeCloseTo(least?.excess[1] ?? Number.NaN, 9);
    for (const point of result.points) {
      expect(point.violation).toBeGreaterThanOrEqual((found?.violation ?? 0) * (1 - 1e-9));
    }
  });
});

describe('ties and resolution', () => {
  it('at a coarse resolution, gains below it do not buy retries', () => {
    // Deep underload: s ≈ 1e-7, so every limit gives the same goodput to 4 digits.
    const network: NetworkModel = {
      classes: [
        { name: 'a', retryLimit: 3 },
        { name: 'b', retryLimit: 3 },
      ],
      services: [
        {
          name: 'api',
          capacity: 1000,
          queue: 10,
          model: 'mm1m',
          arrivals: [100, 100],
          retryLimits: [3, 3],
          routes: [],
        },
      ],
    };
    const coarse = tuneRetryLimits(network, { significantDigits: 4 });
    expect(coarse.best?.limits).toEqual([0, 0]);
    expect(coarse.frontier.map((p) => p.limits)).toEqual([[0, 0]]);
    // At full resolution each retry still buys a sliver of goodput.
    const fine = tuneRetryLimits(network);
    expect(fine.best?.limits).not.toEqual([0, 0]);
    expect(() => tuneRetryLimits(network, { significantDigits: 0 })).toThrow(/significantDigits/);
  });
});

/** Random routing DAGs: 1–3 services, 1–3 classes (each with traffic), sometimes α lists. */
const randomNetworks = fc
  .record({
    classCount: fc.integer({ min: 1, max: 3 }),
    serviceCount: fc.integer({ min: 1, max: 3 }),
  })
  .chain(({ classCount, serviceCount }) =>
    fc.record({
      model: fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed'),
      residual: fc.boolean(),
      services: fc.array(
        fc.record({
          capacity: fc.double({ min: 5, max: 200, noNaN: true }),
          queue: fc.integer({ min: 1, max: 30 }),
          arrivals: fc.array(fc.double({ min: 0, max: 150, noNaN: true }), {
            minLength: classCount,
            maxLength: classCount,
          }),
          weights: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), {
            minLength: serviceCount,
            maxLength: serviceCount,
          }),
          alphas: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), {
            minLength: 4,
            maxLength: 4,
          }),
        }),
        { minLength: serviceCount, maxLength: serviceCount },
      ),
    }),
  )
  .map(({ model, residual, services }): NetworkModel => {
    const classCount = services[0]?.arrivals.length ?? 1;
    return {
      classes: Array.from({ length: classCount }, (_, p) => ({ name: `c${p}`, retryLimit: 1 })),
      services: services.map((s, i) => {
        const later = s.weights.slice(i + 1);
        const total = later.reduce((a, b) => a + b, 0);
        return {
          name: `s${i}`,
          capacity: s.capacity,
          queue: s.queue,
          model,
          // Every class enters at the first service, so every class has traffic.
          arrivals: s.arrivals.map((a) => (i === 0 ? a + 1 : a)),
          retryLimits: s.arrivals.map(() => 1),
          residualAlphas: residual ? s.arrivals.map(() => s.alphas) : undefined,
          routes: later.map((w, j) => ({ to: i + 1 + j, p: (0.9 * w) / Math.max(1, total) })),
        };
      }),
    };
  });

const randomGrids = (classCount: number) =>
  fc.array(
    fc
      .record({ min: fc.integer({ min: 0, max: 2 }), length: fc.integer({ min: 1, max: 3 }) })
      .map(({ min, length }) => ({ min, max: min + length - 1 })),
    { minLength: classCount, maxLength: classCount },
  );

const randomConstraints = (classCount: number) =>
  fc.subarray([
    ...Array.from(
      { length: classCount },
      (_, p): TuneConstraint => ({ metric: 'rejection', class: `c${p}`, op: '<=', bound: 0.3 }),
    ),
    { metric: 'attemptsPerRequest', op: '<=', bound: 2 } as TuneConstraint,
    { metric: 'goodput', op: '>=', bound: 50 } as TuneConstraint,
    { metric: 'maxRho', op: '<=', bound: 1.5 } as TuneConstraint,
  ]);

const tuneCases = randomNetworks.chain((network) =>
  fc.record({
    network: fc.constant(network),
    grid: randomGrids(network.classes.length),
    constraints: randomConstraints(network.classes.length),
    weights: fc.array(fc.double({ min: 0, max: 10, noNaN: true }), {
      minLength: network.classes.length,
      maxLength: network.classes.length,
    }),
    significantDigits: fc.constantFrom(3, 6, 10),
  }),
);

/** Whether `a` dominates `b` over (objective ↑, attempts per request ↓) at the result's digits. */
function dominance(result: TuneResult) {
  const key = (p: TunePoint) => ({
    objective: comparable(p.objective, result.significantDigits),
    attempts: comparable(p.metrics.attemptsPerRequest, result.significantDigits),
  });
  const weakly = (a: TunePoint, b: TunePoint) => {
    const [ka, kb] = [key(a), key(b)];
    return ka.objective >= kb.objective && ka.attempts <= kb.attempts;
  };
  const strictly = (a: TunePoint, b: TunePoint) => {
    const [ka, kb] = [key(a), key(b)];
    return weakly(a, b) && (ka.objective > kb.objective || ka.attempts < kb.attempts);
  };
  return { weakly, strictly };
}

describe('the Pareto frontier (objective ↑, attempts per request ↓)', () => {
  it('no frontier point is dominated; every other feasible point is matched or beaten', () => {
    fc.assert(
      fc.property(tuneCases, ({ network, grid, constraints, weights, significantDigits }) => {
        const result = tuneRetryLimits(network, {
          grid,
          constraints,
          weights,
          significantDigits,
        });
        const { weakly, strictly } = dominance(result);
        const feasible = result.points.filter((p) => p.feasible);
        expect(result.feasibleCount).toBe(feasible.length);
        for (const f of result.frontier) {
          expect(f.feasible).toBe(true);
          for (const p of feasible)
            expect(strictly(p, f), `${p.limits} over ${f.limits}`).toBe(false);
        }
        const onFrontier = new Set(result.frontier);
        for (const p of feasible) {
          if (onFrontier.has(p)) continue;
          expect(
            result.frontier.some((f) => weakly(f, p)),
            `${p.limits} is matched by no frontier point`,
          ).toBe(true);
        }
        // Highest objective first; the best is a point of the highest objective level.
        for (let i = 1; i < result.frontier.length; i++) {
          expect(result.frontier[i]?.objective).toBeLessThan(
            result.frontier[i - 1]?.objective as number,
          );
        }
        if (feasible.length === 0) {
          expect(result.best).toBeUndefined();
          expect(result.leastViolating).toBeDefined();
          const least = result.leastViolating as TunePoint;
          for (const p of result.points) {
            expect(comparable(p.violation, significantDigits)).toBeGreaterThanOrEqual(
              comparable(least.violation, significantDigits),
            );
          }
        } else {
          const best = result.best as TunePoint;
          expect(best.feasible).toBe(true);
          expect(result.leastViolating).toBeUndefined();
          const top = comparable(best.objective, significantDigits);
          for (const p of feasible) {
            expect(comparable(p.objective, significantDigits)).toBeLessThanOrEqual(top);
          }
          expect(result.frontier[0]).toBe(best);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('call graphs', () => {
  it('are tuned through analyzeNetwork, one solve per point', () => {
    const result = tuneRetryLimits(example('hotel-calls'), {
      grid: [
        { min: 0, max: 2 },
        { min: 0, max: 1 },
      ],
    });
    expect(result.analyses).toBe(6);
  });
});

describe('assessNetwork', () => {
  it('judges a network as it is, like the tuner judges a grid point', () => {
    const network = example('single');
    const current = assessNetwork(network, { weights: [10, 1], constraints: [HIGH_REJECTION] });
    expect(current.limits).toEqual([5, 1]);
    const reference = singleByHand(5, 1);
    expect(current.metrics.rejection[0]).toBeCloseTo(reference.highRejection, 10);
    expect(current.objective).toBeCloseTo(10 * reference.highGoodput + reference.lowGoodput, 7);
    expect(current.feasible).toBe(false);
    expect(current.excess[0]).toBeCloseTo(reference.highRejection - 0.05, 10);
    const report = analyzeNetwork(network);
    expect(tuneMetrics(report, ['high', 'low'], [50, 250]).rejection).toEqual(
      current.metrics.rejection,
    );
  });
});
