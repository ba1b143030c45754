/**
 * The allocation-free forms of the single-service law against the law itself: they must give the
 * same numbers bit for bit, since the routing solver uses them in place of `attemptRejection`
 * and `retryFlow` wherever a service has no residual-time correction.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { independentRejectionSolver } from '../../src/model/independentAttemptRejection.js';
import { type ModelName, phiFor } from '../../src/model/phi/index.js';
import { independentRetryFlows, retryFlow } from '../../src/model/retryFlow.js';
import { attemptRejection } from '../../src/model/service.js';

const models = fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed');
const queues = fc.constantFrom(1, 2, 5, 10, 20, 50, 100);
/** Rates with zeros among them, as a drawn configuration has. */
const rate = fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 5000, noNaN: true }));
const classes = fc.array(fc.record({ rate, retryLimit: fc.integer({ min: 0, max: 12 }) }), {
  minLength: 1,
  maxLength: 12,
});

describe('independentRetryFlows', () => {
  it('gives retryFlow(s, k) for every k up to the largest, bit for bit', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 40 }),
        (s, most) => {
          const attempts = new Float64Array(most + 1);
          const rejection = new Float64Array(most + 1);
          independentRetryFlows(s, most, attempts, rejection);
          for (let k = 0; k <= most; k++) {
            const flow = retryFlow(s, k);
            expect(attempts[k], `s = ${s}, k = ${k}`).toBe(flow.attemptsPerRequest);
            expect(rejection[k], `s = ${s}, k = ${k}`).toBe(flow.rejection);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('independentRejectionSolver', () => {
  it("finds attemptRejection's root bit for bit, whatever the rates and limits", () => {
    fc.assert(
      fc.property(
        models,
        queues,
        fc.double({ min: 1, max: 2000, noNaN: true }),
        classes,
        fc.integer({ min: 0, max: 3 }),
        (model, queue, capacity, drawn, offset) => {
          const phi = phiFor(model, queue);
          const limits = drawn.map((c) => c.retryLimit);
          const solve = independentRejectionSolver(phi, capacity, limits, 1e-14);
          // The rates sit at an offset inside a longer table, as in the routing solver's state.
          const table = new Float64Array(offset + drawn.length + 2).fill(7);
          drawn.forEach((c, p) => {
            table[offset + p] = c.rate;
          });
          const loads = drawn.map((c) => ({ arrivalRate: c.rate, retryLimit: c.retryLimit }));
          const expected = attemptRejection(phi, capacity, loads, 'flow', 1e-14).s;
          expect(solve(table, offset), JSON.stringify({ model, queue, capacity, drawn })).toBe(
            expected,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives 0 with no load, and refines in extreme overload as attemptRejection does', () => {
    const phi = phiFor('fluid', 10);
    const solve = independentRejectionSolver(phi, 1, [3, 0]);
    expect(solve(Float64Array.of(0, 0), 0)).toBe(0);
    const loads = [
      { arrivalRate: 1e9, retryLimit: 3 },
      { arrivalRate: 5e8, retryLimit: 0 },
    ];
    const s = solve(Float64Array.of(1e9, 5e8), 0);
    expect(1 - s).toBeLessThan(1e-6);
    expect(s).toBe(attemptRejection(phi, 1, loads, 'flow').s);
  });
});
