import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeNetwork, solveRouting } from '../../../src/model/index.js';
import { networkArbitrary } from './networkArbitraries.js';

describe('solveRouting convergence', () => {
  it('cyclic networks (row sums ≤ 0.9): converged, more than one sweep, residual ≤ 1e-12', () => {
    fc.assert(
      fc.property(
        networkArbitrary({ topology: 'cyclic', maxRowSum: 0.9, maxLoad: 2 }),
        (network) => {
          const solution = solveRouting(network);
          const report = analyzeNetwork(network);
          const message = JSON.stringify({
            network,
            converged: solution.converged,
            iterations: solution.iterations,
            residual: solution.residual,
          });
          expect(solution.converged, message).toBe(true);
          expect(solution.iterations, message).toBeGreaterThan(1);
          expect(solution.residual, message).toBeLessThanOrEqual(1e-12);
          expect(report.converged, message).toBe(true);
          expect(report.iterations, message).toBe(solution.iterations);
          expect(report.residual, message).toBe(solution.residual);
          expect(report.structure.dag, message).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a looser tolerance is honoured: residual ≤ tolerance, and never more sweeps than at 1e-12', () => {
    fc.assert(
      fc.property(
        networkArbitrary({ topology: 'cyclic', maxRowSum: 0.9 }),
        fc.double({ min: 1e-10, max: 1e-3, noNaN: true }),
        (network, tolerance) => {
          const loose = solveRouting(network, { tolerance });
          const tight = solveRouting(network);
          const message = JSON.stringify({
            network,
            tolerance,
            loose: loose.iterations,
            tight: tight.iterations,
          });
          expect(loose.converged, message).toBe(true);
          expect(loose.residual, message).toBeLessThanOrEqual(tolerance);
          expect(loose.iterations, message).toBeLessThanOrEqual(tight.iterations);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('maxIterations: 1 on a cyclic network stops after one sweep with converged false', () => {
    // The arbitrary forces the 2-cycle s0 ⇄ s1 with s0 an entry, so the first sweep moves λin
    // of s1 away from γ: that sweep cannot be the last.
    fc.assert(
      fc.property(networkArbitrary({ topology: 'cyclic', maxRowSum: 0.9 }), (network) => {
        const solution = solveRouting(network, { maxIterations: 1 });
        const report = analyzeNetwork(network, { maxIterations: 1 });
        const message = JSON.stringify({ network, solution });
        expect(solution.converged, message).toBe(false);
        expect(solution.iterations, message).toBe(1);
        expect(solution.residual, message).toBeGreaterThan(1e-12);
        expect(report.converged, message).toBe(false);
        expect(report.iterations, message).toBe(1);
      }),
      { numRuns: 100 },
    );
  });

  it('a DAG is one pass: converged, iterations 1, residual 0', () => {
    fc.assert(
      fc.property(networkArbitrary({ topology: 'dag', maxRowSum: 1 }), (network) => {
        const solution = solveRouting(network, { maxIterations: 1 });
        const message = JSON.stringify({ network, solution });
        expect(solution.converged, message).toBe(true);
        expect(solution.iterations, message).toBe(1);
        expect(solution.residual, message).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});
