import { describe, expect, it } from 'vitest';
import { generateMuBench, scaleToBottleneck, toNetworkModel } from '../../../src/config/index.js';
import { type NetworkModel, solveCalls } from '../../../src/model/index.js';
import { raiseLoad } from '../../../src/model/network/callBranch.js';
import { callEquilibria } from '../../../src/model/network/callEquilibria.js';
import { compileCallPlan } from '../../../src/model/network/callPlan.js';
import { CallSweep } from '../../../src/model/network/callSweep.js';
import { newtonCalls, settleCalls } from '../../../src/model/network/relaxCalls.js';
import { callSolution } from '../../../src/model/network/solveCalls.js';
import { toLayout, topDownLayout } from '../../../src/model/network/topDownLayout.js';
import { fixedPointError } from './callGraphReference.js';

/*
 * The solver lays a call graph out parents before children (`topDownLayout`) so its sweeps walk
 * every table front to back. Nothing it reports may change by it: the reference here is the same
 * solve on the plan compiled from the network as numbered, whose tables must come out equal in
 * every bit (the mixing and Newton's sums still run in the caller's order).
 */

/** One M/M/1/m service of the test networks, calling `calls` (one call each, in order). */
function service(
  name: string,
  calls: readonly number[],
  arrivals: number,
): NetworkModel['services'][number] {
  return {
    name,
    capacity: 100,
    queue: 20,
    model: 'mm1m',
    arrivals: [arrivals],
    retryLimits: [2],
    routes: [],
    calls: calls.map((to) => ({ to, n: 1 })),
  };
}

/** A front end (0) calling 3, which calls 1 and then 2: numbered children before their caller. */
const bottomUp: NetworkModel = {
  mode: 'calls',
  classes: [{ name: 'all', retryLimit: 2 }],
  services: [
    service('front', [3], 60),
    service('left', [], 0),
    service('right', [], 0),
    service('middle', [1, 2], 0),
  ],
};

/** µBench-like, 60 services (numbered breadth-first, not top-down), bottleneck load 1.5. */
function muBench60(): NetworkModel {
  const spec = generateMuBench({ services: 60, classes: 2, seed: 52, form: 'calls' });
  return toNetworkModel(scaleToBottleneck(spec, 1.5, { minQueue: 20 }));
}

/** {@link muBench60} with a per-try timeout of 30 mean service times into every third service. */
function timed60(): NetworkModel {
  const network = muBench60();
  return {
    ...network,
    services: network.services.map((s, j) =>
      j % 3 === 1 ? { ...s, timeouts: s.arrivals.map(() => 30 / s.capacity) } : s,
    ),
  };
}

/** generateMuBench 8 services, seed 52, at 1.2 × its bottleneck: it tips as the load rises. */
function seed52(): NetworkModel {
  const spec = generateMuBench({ services: 8, classes: 2, seed: 52, form: 'calls' });
  return toNetworkModel(scaleToBottleneck(spec, 1.2, { minQueue: 20 }));
}

describe('topDownLayout', () => {
  it('renumbers parents before children and points every call at the new numbers', () => {
    const layout = topDownLayout(bottomUp);
    expect(layout.identity).toBe(false);
    expect(Array.from(layout.order)).toEqual([0, 3, 1, 2]);
    expect(Array.from(layout.position)).toEqual([0, 2, 3, 1]);
    expect(layout.network.services.map((s) => s.name)).toEqual([
      'front',
      'middle',
      'left',
      'right',
    ]);
    expect(layout.network.services.map((s) => (s.calls ?? []).map((c) => c.to))).toEqual([
      [1],
      [2, 3],
      [],
      [],
    ]);
    expect(toLayout(layout, ['a', 'b', 'c', 'd'])).toEqual(['a', 'd', 'b', 'c']);
  });

  it('leaves a network numbered top-down as it is', () => {
    const topDown = topDownLayout(bottomUp).network;
    expect(topDownLayout(topDown).identity).toBe(true);
    expect(topDownLayout(topDown).network).toBe(topDown);
  });

  it('leaves a call to no service, or calls round a cycle, for the solver to name', () => {
    const dangling: NetworkModel = {
      ...bottomUp,
      services: [service('front', [3], 60), ...bottomUp.services.slice(1, 3)],
    };
    expect(topDownLayout(dangling).identity).toBe(true);
    expect(() => solveCalls(dangling)).toThrow(RangeError);
    const cycle: NetworkModel = {
      ...bottomUp,
      services: [service('a', [1], 10), service('b', [0], 0)],
    };
    expect(topDownLayout(cycle).identity).toBe(true);
    expect(() => callEquilibria(cycle)).toThrow(/DAG/);
  });
});

describe('the solvers with the layout: every figure as without it, to the bit', () => {
  it('solveCalls from idle and from saturation (µBench-like, 60 services)', () => {
    const network = muBench60();
    expect(topDownLayout(network).identity).toBe(false);
    for (const saturated of [false, true]) {
      const sweep = new CallSweep(compileCallPlan(network));
      const relaxed = settleCalls(sweep, 1, { tolerance: 1e-12, maxIterations: 1000, saturated });
      expect(relaxed.converged).toBe(true);
      expect(solveCalls(network, { saturated })).toEqual(callSolution(sweep, 1, relaxed));
    }
  });

  it('solveCalls with per-try timeouts, whose coordinates are ln ρ', () => {
    const network = timed60();
    const sweep = new CallSweep(compileCallPlan(network));
    expect(sweep.timed).toBe(true);
    const relaxed = settleCalls(sweep, 1, { tolerance: 1e-12, maxIterations: 1000 });
    expect(relaxed.converged).toBe(true);
    const solved = solveCalls(network);
    expect(solved).toEqual(callSolution(sweep, 1, relaxed));
    expect(solved.timeoutProbability.some((row) => row.some((tau) => tau > 0))).toBe(true);
  });

  it('Newton–Krylov with per-try timeouts: the same steps, the ln ρ coordinates kept whole', () => {
    const network = timed60();
    const layout = topDownLayout(network);
    const plain = new CallSweep(compileCallPlan(network));
    const laid = new CallSweep(compileCallPlan(layout.network), layout.order);
    for (const sweep of [plain, laid]) {
      expect(settleCalls(sweep, 0.8, { maxIterations: 1000 }).converged).toBe(true);
    }
    const a = newtonCalls(plain, 1, { tolerance: 1e-12, maxEvaluations: 200 });
    const b = newtonCalls(laid, 1, { tolerance: 1e-12, maxEvaluations: 200 });
    expect(b).toEqual(a);
    expect(a.iterations).toBeGreaterThan(1);
    expect(toLayout(layout, Array.from(plain.rho))).toEqual(Array.from(laid.rho));
  });

  it('solveCalls from a given state, given in the network’s numbering', () => {
    const network = muBench60();
    const from = solveCalls(network, { scale: 0.8 });
    const plain = new CallSweep(compileCallPlan(network));
    plain.rho.set(from.rho);
    const relaxed = settleCalls(plain, 1, { tolerance: 1e-12, maxIterations: 1000 });
    expect(solveCalls(network, { initialRho: from.rho })).toEqual(callSolution(plain, 1, relaxed));
  });

  it('callEquilibria: the rising load tips where it did, into the same state (8 µBench services)', () => {
    const network = seed52();
    expect(topDownLayout(network).identity).toBe(false);
    const plain = new CallSweep(compileCallPlan(network));
    const raised = raiseLoad(plain, 1);
    const found = callEquilibria(network);
    expect(found.tips).toEqual(raised.tips);
    expect(found.tips).toHaveLength(1);
    const rising = found.equilibria[0]?.solution;
    expect(rising).toEqual(
      callSolution(plain, 1, {
        converged: true,
        stable: raised.stable !== false,
        iterations: raised.iterations,
        residual: raised.residual,
      }),
    );
    // And it is the network's fixed point in its own numbering (brute force).
    expect(fixedPointError(network, rising?.s ?? [])).toBeLessThan(1e-9);
  });
});
