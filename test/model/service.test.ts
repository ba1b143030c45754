import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fluidPhi, type ModelName, type ServiceLoad, solveService } from '../../src/model/index.js';
import { FIXED_POINT_TOLERANCE } from '../../src/model/service.js';
import {
  attemptsReference,
  bisectIncreasing,
  expectClose,
  fixedPointResidual,
  mm1mReference,
  offeredLoadReference,
  rootSlack,
  solveReference,
} from './reference.js';

const models = fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed');

/** Loads with 1..4 classes, λ_p up to `maxLoad` · μ each and retry limits up to `maxK`. */
function loads(maxLoad: number, maxK: number, maxQueue = 60) {
  return fc
    .record({
      model: models,
      capacity: fc.double({ min: 0.1, max: 1000, noNaN: true }),
      queue: fc.integer({ min: 1, max: maxQueue }),
      shares: fc.array(
        fc.record({
          load: fc.oneof(
            fc.double({ min: 0, max: maxLoad, noNaN: true }),
            fc.constant(0),
            fc.double({ min: 0, max: 1.5 / 4, noNaN: true }),
          ),
          retryLimit: fc.integer({ min: 0, max: maxK }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    })
    .map(({ model, capacity, queue, shares }) => ({
      model,
      capacity,
      queue,
      classes: shares.map((c) => ({ arrivalRate: c.load * capacity, retryLimit: c.retryLimit })),
    }));
}

type Load = ServiceLoad & { readonly model: ModelName };

/** h(s) = s − φ(ρ(s)) with the reference φ and ρ. */
function residual(load: Load, s: number): number {
  return fixedPointResidual(load.model, load.capacity, load.queue, load.classes)(s);
}

/** How far s may honestly be from the exact root (see `rootSlack`). */
function slack(load: Load, s: number): number {
  return rootSlack((x) => residual(load, x), s);
}

describe('solveService: the fixed point s = φ(ρ(s))', () => {
  it('s lies in [0, 1) for random loads, every model, P ≤ 4', () => {
    fc.assert(
      fc.property(loads(50, 20, 1000), (load) => {
        const { s } = solveService(load);
        const message = JSON.stringify({ load, s });
        expect(s, message).toBeGreaterThanOrEqual(0);
        expect(s, message).toBeLessThan(1);
      }),
      { numRuns: 500 },
    );
  });

  it('s satisfies s = φ(ρ(s)) to 1e-11 and the root lies within 1e-12 + slack of s', () => {
    // Brent stops once the bracket is narrower than 2·(2ε|s| + 1e-12/2), so the true root is
    // within ~1.1e-12 of s, unless h is so flat there that its rounding noise (~4e-15) hides the
    // sign (a critical load, λ ≈ μ): `rootSlack` adds 4e-15/|h'|. Then h(s − δ) < 0 < h(s + δ).
    // The residual |h(s)| is at most |h'| · 1.1e-12: with λ/μ ≤ 5 per class, P ≤ 4, k ≤ 6 the
    // slope can reach ~100 near s = 1, so the 1e-11 bound is scaled by max(1, |h'|).
    fc.assert(
      fc.property(loads(5, 6), (load) => {
        const { s } = solveService(load);
        const inputs = { load, s };
        const delta = 1e-12 + slack(load, s);
        // At s = 0 only the upper side can be checked (h(0) = −φ(ρ(0)) ≤ 0 always).
        if (s > 0) expect(residual(load, s - delta), JSON.stringify(inputs)).toBeLessThan(0);
        expect(residual(load, s + delta), JSON.stringify(inputs)).toBeGreaterThan(0);
        const h = 1e-7;
        const lo = Math.max(0, s - h);
        const hi = Math.min(1 - 1e-9, s + h);
        const slope = Math.abs((residual(load, hi) - residual(load, lo)) / (hi - lo));
        expectClose(residual(load, s), 0, { abs: 1e-11 * Math.max(1, slope) }, inputs);
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with an independent bisection solve of s = φ(ρ(s))', () => {
    // Brent's root is within 1.1e-12 + slack of the exact one, bisection's within slack.
    fc.assert(
      fc.property(loads(5, 6), (load) => {
        const { s } = solveService(load);
        const reference = solveReference(load.model, load.capacity, load.queue, load.classes);
        expectClose(s, reference, { abs: 1.1e-12 + 2 * slack(load, reference) }, { load });
      }),
      { numRuns: 300 },
    );
  });

  it('reports R_p = s^(k_p+1), Λ_p = λ_p (1 − s^(k+1))/(1 − s), E_p = λ_p (1 − R_p) and ρ', () => {
    fc.assert(
      fc.property(loads(5, 10), (load) => {
        const report = solveService(load);
        const { s } = report;
        expectClose(
          report.rho,
          offeredLoadReference(s, load.capacity, load.classes),
          { rel: 1e-12 },
          { load, s },
        );
        load.classes.forEach((c, p) => {
          const got = report.classes[p];
          const inputs = { load, s, p };
          expect(got, JSON.stringify(inputs)).toBeDefined();
          if (got === undefined) return;
          const rejection = s ** (c.retryLimit + 1);
          expect(got.arrivalRate).toBe(c.arrivalRate);
          expectClose(got.rejection, rejection, { rel: 1e-12, abs: 1e-300 }, inputs);
          expectClose(
            got.attempts,
            c.arrivalRate * attemptsReference(s, c.retryLimit),
            { rel: 1e-12 },
            inputs,
          );
          expectClose(got.goodput, c.arrivalRate * (1 - rejection), { rel: 1e-12 }, inputs);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('one class, k = 0, mm1m: s is the M/M/1/m blocking at ρ = λ/μ', () => {
    // ρ does not depend on s, so s = P_m(λ/μ) up to Brent's 1e-12 tolerance.
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        (capacity, load, queue) => {
          const arrivalRate = load * capacity;
          const report = solveService({
            capacity,
            queue,
            model: 'mm1m',
            classes: [{ arrivalRate, retryLimit: 0 }],
          });
          const rho = arrivalRate / capacity;
          const inputs = { capacity, arrivalRate, queue };
          expectClose(report.s, mm1mReference(rho, queue), { abs: 1.1e-12 }, inputs);
          expectClose(report.rho, rho, { rel: 1e-15 }, inputs);
        },
      ),
      { numRuns: 300 },
    );
    // A hand-checked case: λ = 2, μ = 3, m = 5 → 32/665.
    const report = solveService({
      capacity: 3,
      queue: 5,
      model: 'mm1m',
      classes: [{ arrivalRate: 2, retryLimit: 0 }],
    });
    expectClose(report.s, 32 / 665, { abs: 1e-12 }, { capacity: 3, arrivalRate: 2, queue: 5 });
  });
});

describe('solveService: fluid model', () => {
  it('in overload (Σλ > μ) the goodputs add up to μ', () => {
    // Σ E_p = μ ρ (1 − s) = μ exactly at the root; an error of 1.1e-12 in s moves Σ E_p by at most
    // Σ λ_p (k_p + 1) · 1.1e-12 ≤ 20μ · 11 · 1.1e-12 < 3e-10 μ: so 1e-9 relative.
    fc.assert(
      fc.property(
        loads(5, 10),
        fc.double({ min: 1 + 1e-6, max: 20, noNaN: true }),
        (generated, overload) => {
          const total = generated.classes.reduce((sum, c) => sum + c.arrivalRate, 0);
          fc.pre(total >= 1e-6 * generated.capacity);
          // Rescale so that Σλ = overload · μ > μ.
          const factor = (overload * generated.capacity) / total;
          const load = {
            ...generated,
            model: 'fluid' as const,
            classes: generated.classes.map((c) => ({ ...c, arrivalRate: c.arrivalRate * factor })),
          };
          const report = solveService(load);
          const goodput = report.classes.reduce((sum, c) => sum + c.goodput, 0);
          expectClose(goodput, load.capacity, { rel: 1e-9 }, { load, s: report.s });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with Σλ ≤ μ, s = 0 and nothing is rejected', () => {
    fc.assert(
      fc.property(loads(1, 20), fc.double({ min: 0, max: 1, noNaN: true }), (generated, scale) => {
        const total = generated.classes.reduce((sum, c) => sum + c.arrivalRate, 0);
        // Rescale so that Σλ = scale · μ ≤ μ.
        const factor =
          total >= 1e-6 * generated.capacity ? (scale * generated.capacity) / total : 0;
        const load = {
          ...generated,
          model: 'fluid' as const,
          classes: generated.classes.map((c) => ({ ...c, arrivalRate: c.arrivalRate * factor })),
        };
        fc.pre(load.classes.reduce((sum, c) => sum + c.arrivalRate, 0) <= load.capacity);
        const report = solveService(load);
        const message = JSON.stringify({ load, report });
        expect(report.s, message).toBe(0);
        for (const [p, c] of report.classes.entries()) {
          expect(c.rejection, message).toBe(0);
          expect(c.attempts, message).toBe(load.classes[p]?.arrivalRate);
          expect(c.goodput, message).toBe(load.classes[p]?.arrivalRate);
        }
      }),
      { numRuns: 300 },
    );
    expect(
      solveService({ capacity: 10, queue: 1, model: 'fluid', classes: [] }).s,
      'no classes',
    ).toBe(0);
  });

  it('one class with retries: s solves λ (1 − s^(k+1)) = μ (bisection reference)', () => {
    // Fluid: s = 1 − 1/ρ ⇔ ρ (1 − s) = 1 ⇔ λ (1 − s^(k+1)) = μ. The left side rises in s, so
    // bisection on g(s) = μ − λ (1 − s^(k+1)) is exact to the last bit; Brent's s is within 1.1e-12.
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 1000, noNaN: true }),
        fc.double({ min: 1.001, max: 20, noNaN: true }),
        fc.integer({ min: 0, max: 20 }),
        (capacity, overload, retryLimit) => {
          const arrivalRate = overload * capacity;
          const report = solveService({
            capacity,
            queue: 10,
            model: 'fluid',
            classes: [{ arrivalRate, retryLimit }],
          });
          const reference = bisectIncreasing(
            (s) => capacity - arrivalRate * (1 - s ** (retryLimit + 1)),
            0,
            1,
          );
          const inputs = { capacity, arrivalRate, retryLimit };
          expectClose(report.s, reference, { abs: 1.1e-12 }, inputs);
          if (retryLimit === 0) expectClose(report.s, 1 - 1 / overload, { abs: 1.1e-12 }, inputs);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('solveService: DiffTry laws (monotone in retry limits)', () => {
  it('raising k_p by 1 lowers R_p (weakly) and raises every other R_q (weakly)', () => {
    fc.assert(
      fc.property(loads(5, 10), fc.nat(3), (load, pick) => {
        const p = pick % load.classes.length;
        const before = solveService(load);
        const after = solveService({
          ...load,
          classes: load.classes.map((c, q) =>
            q === p ? { ...c, retryLimit: c.retryLimit + 1 } : c,
          ),
        });
        const loadAfter = {
          ...load,
          classes: load.classes.map((c, q) =>
            q === p ? { ...c, retryLimit: c.retryLimit + 1 } : c,
          ),
        };
        // Each solve is within its slack of its root; R_q = s^(k_q+1) moves by ≤ (k_q + 1)·Δs.
        const slackS = slack(load, before.s) + slack(loadAfter, after.s);
        for (let q = 0; q < load.classes.length; q++) {
          const r0 = before.classes[q]?.rejection ?? Number.NaN;
          const r1 = after.classes[q]?.rejection ?? Number.NaN;
          const allowed = ((load.classes[q]?.retryLimit ?? 0) + 2) * slackS;
          const message = JSON.stringify({ load, raised: p, q, before: r0, after: r1 });
          if (q === p) expect(r1, message).toBeLessThanOrEqual(r0 + allowed);
          else expect(r1, message).toBeGreaterThanOrEqual(r0 - allowed);
        }
        // More attempts offered: s itself does not fall.
        expect(after.s, JSON.stringify({ load, raised: p })).toBeGreaterThanOrEqual(
          before.s - slackS,
        );
      }),
      { numRuns: 400 },
    );
  });
});

describe('solveService: the published example (γ_high = 50, γ_low = 250, μ = 143, m = 50)', () => {
  const example = (model: ModelName, kHigh: number, kLow: number) =>
    ({
      capacity: 143,
      queue: 50,
      model,
      classes: [
        { arrivalRate: 50, retryLimit: kHigh },
        { arrivalRate: 250, retryLimit: kLow },
      ],
    }) as const;

  it('fluid, k = (5, 5): both classes have R = s^6 = 157/300', () => {
    // 300 (1 − s^6) = 143 ⇒ s^6 = 157/300.
    const report = solveService(example('fluid', 5, 5));
    const inputs = example('fluid', 5, 5);
    expectClose(report.s, (157 / 300) ** (1 / 6), { abs: 1.1e-12 }, inputs);
    for (const c of report.classes) expectClose(c.rejection, 157 / 300, { abs: 1e-11 }, inputs);
    expectClose(report.classes[0]?.goodput ?? 0, 50 * (143 / 300), { abs: 1e-9 }, inputs);
  });

  it('fluid, k = (5, 1): s solves 50 (1 − s^6) + 250 (1 − s^2) = 143 and R_high < R_low', () => {
    const inputs = example('fluid', 5, 1);
    const s = bisectIncreasing((x) => 143 - 50 * (1 - x ** 6) - 250 * (1 - x ** 2), 0, 1);
    const report = solveService(inputs);
    expectClose(report.s, s, { abs: 1.1e-12 }, inputs);
    const [high, low] = report.classes;
    expectClose(high?.rejection ?? Number.NaN, s ** 6, { abs: 1e-11 }, inputs);
    expectClose(low?.rejection ?? Number.NaN, s ** 2, { abs: 1e-11 }, inputs);
    expect(high?.rejection ?? 1, JSON.stringify(inputs)).toBeLessThan(low?.rejection ?? 0);
    // Differential retries beat uniform ones for the high class.
    const uniform = solveService(example('fluid', 5, 5));
    expect(high?.rejection ?? 1).toBeLessThan(uniform.classes[0]?.rejection ?? 0);
  });

  for (const model of ['mm1m', 'mixed'] as const) {
    it(`${model}, k = (5, 1) and (5, 5): independent bisection agrees and R_high < R_low`, () => {
      for (const [kHigh, kLow] of [
        [5, 1],
        [5, 5],
        [0, 0],
      ] as const) {
        const inputs = example(model, kHigh, kLow);
        const s = solveReference(model, 143, 50, inputs.classes);
        const report = solveService(inputs);
        const h = fixedPointResidual(model, 143, 50, inputs.classes);
        expectClose(report.s, s, { abs: 1.1e-12 + 2 * rootSlack(h, s) }, inputs);
        const [high, low] = report.classes;
        if (kHigh > kLow) {
          expect(high?.rejection ?? 1, JSON.stringify(inputs)).toBeLessThan(low?.rejection ?? 0);
        } else {
          expect(high?.rejection, JSON.stringify(inputs)).toBe(low?.rejection);
        }
      }
    });
  }
});

describe('solveService: options', () => {
  it('defaults to the mixed model and accepts a φ function', () => {
    const classes = [
      { arrivalRate: 50, retryLimit: 5 },
      { arrivalRate: 250, retryLimit: 1 },
    ];
    const base = { capacity: 143, queue: 50, classes };
    expect(solveService(base).s).toBe(solveService({ ...base, model: 'mixed' }).s);
    expect(solveService({ ...base, model: fluidPhi }).s).toBe(
      solveService({ ...base, model: 'fluid' }).s,
    );
    expect(FIXED_POINT_TOLERANCE).toBe(1e-12);
  });

  it('throws RangeError naming the bad value and its place', () => {
    const good = { capacity: 10, queue: 5, classes: [{ arrivalRate: 1, retryLimit: 1 }] };
    const cases: [ServiceLoad, string][] = [
      [{ ...good, capacity: 0 }, 'capacity'],
      [{ ...good, capacity: Number.NaN }, 'NaN'],
      [{ ...good, capacity: Number.POSITIVE_INFINITY }, 'Infinity'],
      [{ ...good, queue: 0 }, 'queue'],
      [{ ...good, queue: 2.5 }, '2.5'],
      [{ ...good, classes: [{ arrivalRate: -1, retryLimit: 1 }] }, 'classes[0].arrivalRate'],
      [{ ...good, classes: [{ arrivalRate: Number.NaN, retryLimit: 1 }] }, 'NaN'],
      [{ ...good, classes: [{ arrivalRate: 1, retryLimit: -1 }] }, 'classes[0].retryLimit'],
      [{ ...good, classes: [{ arrivalRate: 1, retryLimit: 1.5 }] }, '1.5'],
      [{ ...good, classes: [{ arrivalRate: 1, retryLimit: 1001 }] }, '1001'],
      [
        {
          ...good,
          classes: [
            good.classes[0] ?? { arrivalRate: 1, retryLimit: 1 },
            { arrivalRate: 1, retryLimit: 1, residualAlphas: [0.5, 1.5] },
          ],
        },
        'classes[1].residualAlphas',
      ],
      [
        { ...good, classes: [{ arrivalRate: 1, retryLimit: 1, residualAlphas: [Number.NaN] }] },
        'NaN',
      ],
    ];
    for (const [load, named] of cases) {
      expect(() => solveService(load), JSON.stringify(load)).toThrow(RangeError);
      expect(() => solveService(load), JSON.stringify(load)).toThrow(named);
    }
  });
});

describe('solveService: extreme overload', () => {
  it('s stays below 1 and Σ E_p = μ when λ/μ = 1e13 (fluid, k = 0)', () => {
    // Exact: s = 1 − μ/λ = 1 − 1e-13 (representable to ~1e-3 relative in 1 − s) and E = μ = 1.
    // The solver's absolute 1e-12 tolerance on s accepts s = 1 itself: s = 1, rejection 1,
    // goodput 0, contradicting "s in [0, 1)" and the fluid law Σ E_p = μ.
    const load = {
      capacity: 1,
      queue: 1,
      model: 'fluid' as const,
      classes: [{ arrivalRate: 1e13, retryLimit: 0 }],
    };
    const report = solveService(load);
    expect(report.s, JSON.stringify(load)).toBeLessThan(1);
    expectClose(report.classes[0]?.goodput ?? 0, 1, { rel: 1e-2 }, load);
  });
});
