import { describe, expect, it } from 'vitest';
import { generateDgg } from '../../../src/config/generators/generateDgg.js';
import { generateMuBench } from '../../../src/config/generators/generateMuBench.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { solveCalls } from '../../../src/model/network/solveCalls.js';
import { mixedPhi } from '../../../src/model/phi/index.js';
import { seededRandom } from '../../../src/model/random.js';
import {
  type CallSolver,
  CONGESTED_START,
  callGraphPlan,
  checkCallConfiguration,
  drawCallConfiguration,
  tallyChecks,
} from '../../../src/model/uniqueness/index.js';

/**
 * A chain s0 → s1 → … of one class: each accepted attempt calls the next service `calls` times
 * in sequence, every hop retried up to `retries` times; capacities fall by half down the chain.
 */
function chain(options: {
  depth: number;
  arrivalRate: number;
  leafCapacity: number;
  retries: number;
  calls: number;
  model: 'fluid' | 'mixed';
}): NetworkModel {
  const { depth } = options;
  return {
    classes: [{ name: 'c1', retryLimit: options.retries }],
    mode: 'calls',
    services: Array.from({ length: depth }, (_, i) => ({
      name: `s${i}`,
      capacity: options.leafCapacity * 2 ** (depth - 1 - i),
      queue: 50,
      model: options.model,
      arrivals: [i === 0 ? options.arrivalRate : 0],
      retryLimits: [options.retries],
      routes: [],
      calls: i + 1 < depth ? [{ to: i + 1, n: options.calls }] : [],
    })),
  };
}

describe('checkCallConfiguration', () => {
  it('finds the one fixed point of a chain without retries, where it follows hop by hop', () => {
    // With k = 0 nothing is retried, so each s follows from its callers' alone: s0 = φ(γ/μ0),
    // then s1 = φ(γ (1 − s0)/μ1), one call per accepted attempt at s0. Every start must end there.
    const network = chain({
      depth: 2,
      arrivalRate: 180,
      leafCapacity: 150,
      retries: 0,
      calls: 1,
      model: 'mixed',
    });
    const phi = mixedPhi(50);
    const s0 = phi(180 / 300);
    const s1 = phi((180 * (1 - s0)) / 150);
    const reached: (readonly number[])[] = [];
    const solve: CallSolver = (net, initialS) => {
      const solution = solveCalls(net, initialS === undefined ? {} : { initialS });
      reached.push(solution.s);
      return solution;
    };
    const check = checkCallConfiguration(network, { inits: 12, random: seededRandom(4), solve });
    expect(check).toMatchObject({ guarantee: 'none', runs: 12, converged: 12, nonConverged: 0 });
    expect(check.distinct).toBeUndefined();
    expect(reached).toHaveLength(12);
    for (const s of reached) {
      expect(s[0]).toBeCloseTo(s0, 10);
      expect(s[1]).toBeCloseTo(s1, 10);
    }
  });

  it('reports a deep chain with big retry limits at heavy load as bistable: healthy and storm', () => {
    // Four services, two sequential calls per hop, k = 8, the leaf at 96 % of its capacity when
    // healthy. Started idle it stays healthy; started congested, the leaf's rejections fail its
    // callers' attempts, which their callers retry with both calls again: a storm that sustains
    // itself. Both are fixed points — a property of the model, not a failure of the solver.
    const network = chain({
      depth: 4,
      arrivalRate: 12,
      leafCapacity: 100,
      retries: 8,
      calls: 2,
      model: 'fluid',
    });
    const check = checkCallConfiguration(network, { inits: 10, random: seededRandom(1) });
    const distinct = check.distinct;
    expect(distinct).toBeDefined();
    if (distinct === undefined) return;
    expect(distinct.healthy.init).toBe(0);
    expect(distinct.healthy.s.every((s) => s < 1e-9)).toBe(true);
    expect(distinct.healthy.completion).toBeCloseTo(1, 12);
    expect(distinct.storm.s[3]).toBeGreaterThan(0.9);
    expect(distinct.storm.completion).toBeLessThan(0.5);
    expect(distinct.storm.attemptsPerRequest).toBeGreaterThan(
      10 * distinct.healthy.attemptsPerRequest,
    );
    expect(distinct.difference).toBeGreaterThan(0.9);
    expect(tallyChecks([check]).counterexamples).toBe(1);
  });

  it('starts run 0 idle, run 1 congested and the others uniformly in [0, 1), in order', () => {
    const network = chain({
      depth: 3,
      arrivalRate: 50,
      leafCapacity: 100,
      retries: 2,
      calls: 1,
      model: 'mixed',
    });
    const starts: (readonly number[] | undefined)[] = [];
    const solve: CallSolver = (net, initialS) => {
      starts.push(initialS);
      return {
        s: net.services.map(() => 0.1),
        attempts: net.services.map(() => [1]),
        callSuccess: net.services.map(() => [1]),
        converged: true,
        iterations: 3,
      };
    };
    const check = checkCallConfiguration(network, { inits: 4, random: seededRandom(9), solve });
    expect(check.distinct).toBeUndefined();
    expect(starts[0]).toBeUndefined();
    expect(starts[1]).toEqual([CONGESTED_START, CONGESTED_START, CONGESTED_START]);
    const random = seededRandom(9);
    for (const start of starts.slice(2)) {
      expect(start).toEqual([random(), random(), random()]);
    }
  });

  it('counts runs that did not converge apart, never as a finding', () => {
    const network = chain({
      depth: 2,
      arrivalRate: 50,
      leafCapacity: 100,
      retries: 2,
      calls: 1,
      model: 'mixed',
    });
    let call = 0;
    const solve: CallSolver = (net) => {
      const converged = call % 2 === 0;
      const value = call++ / 10;
      return {
        s: net.services.map(() => (converged ? 0.2 : value)),
        attempts: net.services.map(() => [1]),
        callSuccess: net.services.map(() => [1]),
        converged,
        iterations: converged ? 5 : 1000,
      };
    };
    const check = checkCallConfiguration(network, { inits: 6, random: seededRandom(2), solve });
    expect(check).toMatchObject({ converged: 3, nonConverged: 3, maxIterations: 1000 });
    expect(check.distinct).toBeUndefined();
  });
});

describe('drawCallConfiguration', () => {
  const base = toNetworkModel(
    generateMuBench({ services: 12, classes: 1, seed: 3, form: 'calls' }),
  );

  it('is reproducible and keeps the graph: same services, same callees', () => {
    const a = drawCallConfiguration(base, seededRandom(5));
    expect(drawCallConfiguration(base, seededRandom(5))).toEqual(a);
    expect(a.mode).toBe('calls');
    expect(a.services.map((s) => s.name)).toEqual(base.services.map((s) => s.name));
    a.services.forEach((service, i) => {
      expect(service.calls?.map((c) => [c.to, c.n])).toEqual(
        base.services[i]?.calls?.map((c) => [c.to, c.n]),
      );
      for (const call of service.calls ?? []) {
        if (call.classIndex !== undefined) expect(call.classIndex).toBeLessThan(a.classes.length);
      }
      expect(service.arrivals.some((g) => g > 0)).toBe(i === 0);
    });
  });

  it('draws P in 1 … maxClasses and retry limits in 0 … 8', () => {
    const counts = new Set<number>();
    for (let seed = 0; seed < 60; seed++) {
      const network = drawCallConfiguration(base, seededRandom(seed), { maxClasses: 4 });
      counts.add(network.classes.length);
      for (const s of network.services) {
        for (const k of s.retryLimits) expect(k >= 0 && k <= 8).toBe(true);
      }
    }
    expect([...counts].sort()).toEqual([1, 2, 3, 4]);
    expect(() => drawCallConfiguration(base, seededRandom(1), { maxClasses: 0 })).toThrow(
      /maxClasses should be an integer from 1 to 20, got 0/,
    );
  });

  it('plans µBench-like and DGG-like graphs within their sizes, from the seed alone', () => {
    const kinds = new Set<string>();
    for (let graph = 0; graph < 40; graph++) {
      const plan = callGraphPlan(7, graph);
      expect(callGraphPlan(7, graph)).toEqual(plan);
      kinds.add(plan.kind);
      const [least, most] = plan.kind === 'dgg' ? [2, 7] : [3, 30];
      expect(plan.services >= least && plan.services <= most).toBe(true);
      const options = { services: plan.services, classes: 1, seed: plan.generatorSeed };
      const spec =
        plan.kind === 'dgg'
          ? generateDgg({ ...options, form: 'calls' })
          : generateMuBench({ ...options, form: 'calls' });
      expect(spec.services).toHaveLength(plan.services);
    }
    expect([...kinds].sort()).toEqual(['dgg', 'mubench']);
  });
});
