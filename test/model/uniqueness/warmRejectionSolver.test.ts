/**
 * The warm single-service solver of the uniqueness check against `attemptRejection` (Brent's
 * method from [0, 1], the reference): the same root within the tolerances, from any guess.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ModelName, phiFor } from '../../../src/model/phi/index.js';
import { attemptRejection } from '../../../src/model/service.js';
import { warmRejectionSolver } from '../../../src/model/uniqueness/warmRejectionSolver.js';

const models = fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed');
const queues = fc.constantFrom(1, 2, 5, 10, 20, 50, 100);
const rate = fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 5000, noNaN: true }));
const classes = fc.array(fc.record({ rate, retryLimit: fc.integer({ min: 0, max: 8 }) }), {
  minLength: 1,
  maxLength: 9,
});
/** A guess anywhere, including outside [0, 1] and NaN (the cold start). */
const guess = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.constantFrom(Number.NaN, -1, 2, 0, 1),
);

/** The reference root: attemptRejection to 1e-14, as the routing solver calls it. */
function reference(
  model: ModelName,
  queue: number,
  capacity: number,
  drawn: readonly { rate: number; retryLimit: number }[],
): number {
  const loads = drawn.map((c) => ({ arrivalRate: c.rate, retryLimit: c.retryLimit }));
  return attemptRejection(phiFor(model, queue), capacity, loads, 'flow', 1e-14).s;
}

describe('warmRejectionSolver', () => {
  it("finds attemptRejection's root to 1e-13, from any guess (1 − s to 1e-9 relative)", () => {
    fc.assert(
      fc.property(
        models,
        queues,
        fc.double({ min: 1, max: 2000, noNaN: true }),
        classes,
        guess,
        (model, queue, capacity, drawn, start) => {
          const solver = warmRejectionSolver(
            model,
            queue,
            capacity,
            drawn.map((c) => c.retryLimit),
          );
          const rates = Float64Array.from(drawn, (c) => c.rate);
          const s = solver.solve(rates, 0, start, 1e-14);
          const expected = reference(model, queue, capacity, drawn);
          const inputs = JSON.stringify({ model, queue, capacity, drawn, start });
          expect(Math.abs(s - expected), inputs).toBeLessThanOrEqual(1e-13);
          // In overload the goodput λ(1 − s^(k+1)) lives on 1 − s.
          if (1 - expected < 1e-3) {
            expect(Math.abs(s - expected) / (1 - expected), inputs).toBeLessThanOrEqual(1e-9);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('steps from a warm guess in about two evaluations', () => {
    const solver = warmRejectionSolver('mixed', 50, 143, [5, 1]);
    const rates = Float64Array.of(50, 250);
    let s = solver.solve(rates, 0, Number.NaN, 1e-14);
    const cold = solver.evaluations;
    let warm = 0;
    for (let step = 1; step <= 20; step++) {
      rates[1] = 250 + 1e-4 * step;
      const before = solver.evaluations;
      s = solver.solve(rates, 0, s, 1e-14);
      warm += solver.evaluations - before;
      const expected = reference('mixed', 50, 143, [
        { rate: 50, retryLimit: 5 },
        { rate: rates[1] as number, retryLimit: 1 },
      ]);
      expect(Math.abs(s - expected)).toBeLessThanOrEqual(1e-14);
    }
    expect(cold).toBeGreaterThan(2);
    expect(warm / 20).toBeLessThanOrEqual(3);
  });

  it('reads the rates at an offset, and gives 0 without arrivals and at a fluid underload', () => {
    const solver = warmRejectionSolver('fluid', 1, 100, [2, 0]);
    expect(solver.solve(Float64Array.of(9, 0, 0, 9), 1, 0.5, 1e-14)).toBe(0);
    expect(solver.solve(Float64Array.of(9, 10, 20, 9), 1, 0.5, 1e-14)).toBe(0);
    const overloaded = solver.solve(Float64Array.of(9, 100, 200, 9), 1, 0.5, 1e-14);
    expect(overloaded).toBeCloseTo(
      reference('fluid', 1, 100, [
        { rate: 100, retryLimit: 2 },
        { rate: 200, retryLimit: 0 },
      ]),
      13,
    );
  });

  it('stops within the tolerance it is given, looser when asked', () => {
    const solver = warmRejectionSolver('mm1m', 10, 100, [3]);
    const rates = Float64Array.of(95);
    const exact = reference('mm1m', 10, 100, [{ rate: 95, retryLimit: 3 }]);
    expect(Math.abs(solver.solve(rates, 0, 0.9, 1e-6) - exact)).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(solver.solve(rates, 0, 0.9, 1e-14) - exact)).toBeLessThanOrEqual(1e-14);
  });
});
