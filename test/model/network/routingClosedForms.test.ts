import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeNetwork, type NetworkModel, solveRouting } from '../../../src/model/index.js';
import { expectClose } from '../reference.js';
import { networkArbitrary } from './networkArbitraries.js';
import {
  completionByPaths,
  jacobiRouting,
  linearFlows,
  maxRelativeDifference,
  routingMatrix,
} from './networkReference.js';

/**
 * The network with every service fluid and its capacity 10× the flow the linear equations give it
 * (times k + 1, the most attempts a request can make): nothing is ever rejected.
 */
function farBelowCapacity(network: NetworkModel): { network: NetworkModel; flows: number[][] } {
  const perClass = network.classes.map((_, p) =>
    linearFlows(
      network.services.map((s) => s.arrivals[p] ?? 0),
      routingMatrix(network, p),
    ),
  );
  const flows = network.services.map((_, i) =>
    network.classes.map((_, p) => perClass[p]?.[i] as number),
  );
  return {
    flows,
    network: {
      ...network,
      services: network.services.map((s, i) => {
        const worst = (flows[i] as number[]).reduce(
          (sum, x, p) => sum + x * ((s.retryLimits[p] ?? 0) + 1),
          0,
        );
        return { ...s, model: 'fluid' as const, capacity: 10 * worst + 1 };
      }),
    },
  };
}

describe('routing mode with no overload: λin = γ (I − F)⁻¹', () => {
  for (const topology of ['dag', 'cyclic'] as const) {
    it(`${topology}: flows solve the linear system (Gaussian elimination), to 1e-10 relative`, () => {
      // Cyclic: row sums ≤ 0.9, so Gauss–Seidel stopped at a 1e-12 relative step is within
      // 1e-12 / (1 − 0.9) of the solution; a DAG is exact up to rounding.
      fc.assert(
        fc.property(networkArbitrary({ topology, maxRowSum: 0.9 }), (drawn) => {
          const { network, flows } = farBelowCapacity(drawn);
          const solution = solveRouting(network);
          const report = analyzeNetwork(network);
          const floor = 1e-9 * flows.flat().reduce((a, b) => a + b, 0);
          const inputs = { network, flows, lambdaIn: solution.lambdaIn };
          expect(solution.converged, JSON.stringify(inputs)).toBe(true);
          expect(
            maxRelativeDifference(solution.lambdaIn, flows, floor),
            JSON.stringify(inputs),
          ).toBeLessThanOrEqual(1e-10);
          expect(
            maxRelativeDifference(solution.lambdaOut, flows, floor),
            JSON.stringify(inputs),
          ).toBeLessThanOrEqual(1e-10);
          expect(
            maxRelativeDifference(solution.attempts, flows, floor),
            JSON.stringify(inputs),
          ).toBeLessThanOrEqual(1e-10);
          for (const s of solution.s) expect(s, JSON.stringify(inputs)).toBe(0);
          for (const row of solution.completion)
            for (const c of row) expect(c, JSON.stringify(inputs)).toBeCloseTo(1, 12);
          for (const end of Object.values(report.endToEnd))
            expectClose(end.rejection, 0, { abs: 1e-12 }, inputs);
        }),
        { numRuns: topology === 'dag' ? 200 : 100 },
      );
    });
  }
});

describe('routing mode, k = 0 and fluid on a DAG: completion is the path-weighted product', () => {
  it('per-service s = max(0, 1 − μ/Σλin) and 1 − rejection = Σ_paths Π acceptance × routing', () => {
    // With k = 0 a class makes one attempt per visit, so s_i = max(0, 1 − μ_i / Σ_p λin_i^p)
    // exactly and every class is accepted with 1 − s_i. The flows are propagated n + 1 times
    // (enough for any DAG of n services); completion enumerates every path from each entry.
    fc.assert(
      fc.property(
        networkArbitrary({
          topology: 'dag',
          models: ['fluid'],
          maxRetries: 0,
          maxLoad: 2,
          maxRowSum: 1,
        }),
        (network) => {
          const n = network.services.length;
          const f = network.classes.map((_, p) => routingMatrix(network, p));
          const gamma = network.services.map((s) => [...s.arrivals]);
          let lambdaIn = gamma.map((row) => [...row]);
          let s = new Array<number>(n).fill(0);
          for (let pass = 0; pass <= n; pass++) {
            s = network.services.map((service, i) =>
              Math.max(
                0,
                1 - service.capacity / (lambdaIn[i] as number[]).reduce((a, b) => a + b, 0),
              ),
            );
            const out = lambdaIn.map((row, i) => row.map((x) => x * (1 - (s[i] as number))));
            lambdaIn = gamma.map((row, i) =>
              row.map((g, p) => {
                let value = g;
                for (let j = 0; j < n; j++)
                  value += (out[j]?.[p] as number) * (f[p]?.[j]?.[i] as number);
                return value;
              }),
            );
          }
          const accept = s.map((x) => 1 - x);
          const report = analyzeNetwork(network);
          const inputs = { network, s };
          network.services.forEach((service, i) => {
            expectClose(
              report.services[service.name]?.s ?? Number.NaN,
              s[i] as number,
              { abs: 1e-12 },
              inputs,
            );
          });
          network.classes.forEach((c, p) => {
            let arrivals = 0;
            let done = 0;
            gamma.forEach((row, i) => {
              const g = row[p] as number;
              if (g <= 0) return;
              arrivals += g;
              done += g * completionByPaths(f[p] as number[][], accept, i);
            });
            expectClose(
              report.endToEnd[c.name]?.rejection ?? Number.NaN,
              1 - done / arrivals,
              { abs: 1e-11 },
              { ...inputs, p },
            );
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('routing mode agrees with an independent Jacobi solve', () => {
  // Compared only where the fixed point is unique (a DAG; or cyclic with class-independent
  // routing and P ≤ 2), so both solvers must find the same one. Jacobi runs to 1e-14 relative;
  // the solver stops at a 1e-12 relative step with row sums ≤ 0.9.
  const cases = [
    { name: 'DAG, P ≤ 3, any routing', shape: { topology: 'dag' as const }, runs: 150 },
    {
      name: 'cyclic, P ≤ 2, class-independent routing',
      shape: { topology: 'cyclic' as const, maxClasses: 2, classIndependent: true },
      runs: 50,
    },
  ];
  for (const { name, shape, runs } of cases) {
    it(`${name}: λin to 1e-9 relative, s to 1e-9, end-to-end rejection to 1e-9`, () => {
      fc.assert(
        fc.property(networkArbitrary(shape), (network) => {
          const solution = solveRouting(network);
          const report = analyzeNetwork(network);
          const reference = jacobiRouting(network);
          const floor =
            1e-9 *
            network.services.reduce((sum, s) => sum + s.arrivals.reduce((a, b) => a + b, 0), 0);
          const inputs = { network, solved: solution.lambdaIn, reference: reference.lambdaIn };
          expect(
            maxRelativeDifference(solution.lambdaIn, reference.lambdaIn, floor),
            JSON.stringify(inputs),
          ).toBeLessThanOrEqual(1e-9);
          solution.s.forEach((s, i) => {
            expectClose(s, reference.s[i] as number, { abs: 1e-9 }, inputs);
          });
          network.classes.forEach((c, p) => {
            expectClose(
              report.endToEnd[c.name]?.rejection ?? Number.NaN,
              1 - (reference.endToEnd[p] as number),
              { abs: 1e-9 },
              inputs,
            );
          });
        }),
        { numRuns: runs },
      );
    });
  }
});
