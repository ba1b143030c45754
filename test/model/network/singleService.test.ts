import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyzeNetwork,
  type ModelName,
  type NetworkModel,
  solveService,
} from '../../../src/model/index.js';
import { expectClose, fixedPointResidual } from '../reference.js';

/**
 * How far a root s of h found to 1e-12 may lie from the exact one: 1.1e-12 plus the band where
 * |h| is under its rounding noise (4e-15) divided by the slope there (a chord over ±1e-7). Unlike
 * the single-service tests' `rootSlack` the slope is not floored at 4e-9: at a fluid load within
 * 1e-13 of μ with k = 4, h(s) ≈ s⁵ − 2.6e-14 and the band is ~1e-6 wide (floored at 4e-12, so
 * at most 1e-3).
 */
function rootBand(h: (s: number) => number, s: number): number {
  const lo = Math.max(0, s - 1e-7);
  const hi = Math.min(1, s + 1e-7);
  const slope = Math.abs((h(hi) - h(lo)) / (hi - lo));
  return 1.1e-12 + 4e-15 / Math.max(slope, 4e-12);
}

const load = fc.record({
  model: fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed'),
  capacity: fc.double({ min: 0.1, max: 1000, noNaN: true }),
  queue: fc.integer({ min: 1, max: 60 }),
  classes: fc.array(
    fc.record({
      // Subnormal rates are left to their own test below.
      load: fc.oneof(fc.constant(0), fc.double({ min: 1e-9, max: 4, noNaN: true })),
      retryLimit: fc.integer({ min: 0, max: 8 }),
      // One α for every retry (the residual-time correction), or the independent model.
      alpha: fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { freq: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

describe('a one-service network', () => {
  it('equals solveService: s, ρ, and per class in, out, attempts, rejection (every model)', () => {
    // Both solve the same equation by Brent (the network to 1e-14, solveService to 1e-12), so s
    // agrees to 1.1e-12 plus twice the flat band of h at its root (`rootBand`); a per-class
    // figure f(s) then agrees to |f'(s)| times that: |dR/ds| ≤ k + 1, and λ (k + 1)² / (1 − s)²
    // bounds the derivative of attempts and goodput.
    fc.assert(
      fc.property(load, (drawn) => {
        const classes = drawn.classes.map((c) => ({
          arrivalRate: c.load * drawn.capacity,
          retryLimit: c.retryLimit,
          residualAlphas:
            c.alpha === null ? undefined : new Array<number>(c.retryLimit).fill(c.alpha),
        }));
        const network: NetworkModel = {
          classes: classes.map((c, p) => ({ name: `c${p}`, retryLimit: c.retryLimit })),
          services: [
            {
              name: 'only',
              capacity: drawn.capacity,
              queue: drawn.queue,
              model: drawn.model,
              arrivals: classes.map((c) => c.arrivalRate),
              retryLimits: classes.map((c) => c.retryLimit),
              residualAlphas: classes.map((c) => c.residualAlphas ?? []),
              routes: [],
            },
          ],
        };
        const single = solveService({
          capacity: drawn.capacity,
          queue: drawn.queue,
          model: drawn.model,
          classes,
        });
        const report = analyzeNetwork(network);
        const service = report.services.only;
        const inputs = { drawn, single, report };
        expect(service, JSON.stringify(inputs)).toBeDefined();
        if (service === undefined) return;
        const h = fixedPointResidual(
          drawn.model,
          drawn.capacity,
          drawn.queue,
          drawn.classes.map((c) => ({
            arrivalRate: c.load * drawn.capacity,
            retryLimit: c.retryLimit,
            alpha: c.alpha === null || c.retryLimit === 0 ? undefined : c.alpha,
          })),
          'flow',
        );
        const ds = 1.1e-12 + 2 * rootBand(h, single.s);
        expectClose(service.s, single.s, { abs: ds }, inputs);
        expect(report.converged).toBe(true);
        expect(report.iterations).toBe(1);
        expect(report.structure.uniqueness).toBe('dag');
        const gap = Math.max(1e-300, 1 - Math.max(single.s, service.s));
        classes.forEach((c, p) => {
          const got = service.classes[`c${p}`];
          const want = single.classes[p];
          expect(got, JSON.stringify(inputs)).toBeDefined();
          if (got === undefined || want === undefined) return;
          const slope = ((c.retryLimit + 1) ** 2 / gap ** 2) * c.arrivalRate;
          const tolerance = { rel: 1e-12, abs: slope * ds + 1e-300 };
          expectClose(got.in, c.arrivalRate, { rel: 0 }, inputs);
          expectClose(got.attempts, want.attempts, tolerance, inputs);
          expectClose(got.out, want.goodput, tolerance, inputs);
          // R = s^(k+1): |dR/ds| ≤ k + 1.
          const rejectionTolerance = { rel: 1e-12, abs: (c.retryLimit + 1) * ds };
          expectClose(got.rejection, want.rejection, rejectionTolerance, inputs);
          const end = report.endToEnd[`c${p}`];
          if (c.arrivalRate > 0) {
            expectClose(end?.rejection ?? Number.NaN, want.rejection, rejectionTolerance, inputs);
          } else {
            expect(end?.completion, JSON.stringify(inputs)).toBeNaN();
          }
        });
        const totalSlope = classes.reduce(
          (sum, c) => sum + ((c.retryLimit + 1) ** 2 / gap ** 2) * c.arrivalRate,
          0,
        );
        expectClose(
          service.rho,
          single.rho,
          { rel: 1e-12, abs: (totalSlope * ds) / drawn.capacity },
          inputs,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('a class whose arrival rate is subnormal gets end-to-end rejection 1 where its hop rejects 0.5', () => {
    // One fluid service, μ = 1, k = 0, classes offered 5e-324 and 2 requests/s: s = 0.5, so
    // every class is rejected with 0.5. analyzeNetwork reports the tiny class's end-to-end
    // rejection as Σγ(1 − C)/Σγ computed through γ·C = 5e-324 · 0.5, which rounds to 0: the
    // rejection comes out as 1 (completion 0). solveService takes care to keep subnormal rates'
    // precision (it works with shares of the total rate); the network's end-to-end figures do
    // not (e.g. weighting C by γ/Σγ would).
    const report = analyzeNetwork({
      classes: [
        { name: 'tiny', retryLimit: 0 },
        { name: 'big', retryLimit: 0 },
      ],
      services: [
        {
          name: 'only',
          capacity: 1,
          queue: 10,
          model: 'fluid',
          arrivals: [5e-324, 2],
          retryLimits: [0, 0],
          routes: [],
        },
      ],
    });
    expect(report.services.only?.classes.tiny?.rejection).toBe(0.5);
    expect(report.endToEnd.tiny?.rejection).toBeCloseTo(0.5, 12);
  });
});
