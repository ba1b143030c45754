import { describe, expect, it } from 'vitest';
import { generateMuBench, scaleToBottleneck, toNetworkModel } from '../../../src/config/index.js';
import {
  chainNetwork,
  generatedCallGraph,
} from '../../../src/experiments/callValidation/callCases.js';
import { composeDgg } from '../../../src/experiments/callValidation/composedDgg.js';
import {
  analyzeNetwork,
  callEquilibria,
  type NetworkModel,
  solveCalls,
} from '../../../src/model/index.js';
import { raiseLoad } from '../../../src/model/network/callBranch.js';
import { followCallBranch } from '../../../src/model/network/callContinuation.js';
import { compileCallPlan } from '../../../src/model/network/callPlan.js';
import { CallSweep } from '../../../src/model/network/callSweep.js';
import {
  newtonCalls,
  newtonOnward,
  relaxCalls,
  settleCalls,
} from '../../../src/model/network/relaxCalls.js';
import { evaluateCalls, fixedPointError } from './callGraphReference.js';

/*
 * The rising load (`raiseLoad`) and the relaxation it steps with, on the networks where they used
 * to fail (docs/validation-calls.md): a state is only ever reported converged when it is a fixed
 * point, checked here by a brute-force evaluation of the equations (callGraphReference.ts) and
 * the φ laws of test/model/reference.ts, not by the solver's own residual.
 */

/** generateMuBench 8 services, seed 52, scaled to bottleneck ρ₀ = 1.2 × share, m ≥ 20. */
function seed52(share: number): NetworkModel {
  const spec = generateMuBench({ services: 8, classes: 2, seed: 52, form: 'calls' });
  return toNetworkModel(scaleToBottleneck(spec, 1.2 * share, { minQueue: 20 }));
}

/** The low class's end-to-end rejection at s, from the brute-force tables. */
function lowRejection(network: NetworkModel, s: readonly number[]): number {
  const { callSuccess } = evaluateCalls(network, s);
  let offered = 0;
  let failed = 0;
  network.services.forEach((service, j) => {
    const gamma = service.arrivals[1] ?? 0;
    offered += gamma;
    failed += gamma * (1 - (callSuccess[j]?.[1] as number));
  });
  return failed / offered;
}

describe('raiseLoad and callEquilibria: the state an idle network reaches', () => {
  it('8 µBench services (seed 52): below the fold two states, above it the storm, tipped where the fold is', () => {
    // At 85 % of the load the healthy state still exists beside the storm.
    const below = callEquilibria(seed52(0.85));
    expect(below.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
    expect(below.tips).toEqual([]);
    // At the full load the rising load tips; the state it reached is labelled a storm (it used
    // to be the fallback solve from idle, labelled healthy).
    const full = callEquilibria(seed52(1));
    expect(full.equilibria[0]?.kind).toBe('storm');
    expect(full.tips).toHaveLength(1);
    // The same fold seen from a load of 0.86: the tip, as a share of the rates, is the same load.
    const near = callEquilibria(seed52(0.86));
    expect(near.tips).toHaveLength(1);
    expect((near.tips[0] as number) * 0.86).toBeCloseTo(full.tips[0] as number, 3);
    expect(full.tips[0] as number).toBeGreaterThan(0.85);
    expect(full.tips[0] as number).toBeLessThan(0.86);
    for (const [share, found] of [
      [0.85, below],
      [0.86, near],
      [1, full],
    ] as const) {
      for (const { solution } of found.equilibria) {
        expect(solution.converged, `share ${share}`).toBe(true);
        expect(fixedPointError(seed52(share), solution.s), `share ${share}`).toBeLessThan(1e-9);
      }
    }
  });

  it('mubench-338 (113 services): the rising load settles near the simulated state, a tip only at its jump', () => {
    // The sweeps from idle used to stop after 346 sweeps (residual 1.2e-3) and report the
    // near-idle iterate (low class 0.0000); the simulation has 0.3427 ± 0.0058
    // (docs/validation-calls.csv, seed 2027, 5 runs of 100 s).
    const { network } = generatedCallGraph(38);
    const sweep = new CallSweep(compileCallPlan(network));
    const raised = raiseLoad(sweep, 1);
    expect(raised.settled).toBe(true);
    expect(raised.reached).toBe(1);
    // The state jumps at 0.7644 of the load into the one it ends in. Whether that jump is listed
    // as a tip is decided by rounding: the hysteresis there is narrower than the search's
    // 1/4096 step, so lowering the load by one step lands either side (with every rate ×
    // (1 + ε), ε = 0, ±1e-13, 2e-13, 1e-12, it was listed four times in five, on two codes
    // differing only in the last bits of S). Where it is listed, it is that jump.
    expect(raised.tips.length).toBeLessThanOrEqual(1);
    for (const tip of raised.tips) expect(Math.abs(tip - 0.7644)).toBeLessThan(2 / 4096);
    const s = Array.from(sweep.s);
    expect(fixedPointError(network, s)).toBeLessThan(1e-9);
    expect(Math.abs(lowRejection(network, s) - 0.3427)).toBeLessThan(0.03);
    const report = analyzeNetwork(network);
    expect(report.converged).toBe(true);
    expect(report.tippedAt).toBe(raised.tips[0]);
    expect(report.endToEnd.low?.rejection).toBeCloseTo(lowRejection(network, s), 9);
  }, 60_000);

  it('a cascade of folds (composed DGG-like, 80 services, seed 2): followed to the state a slow rise reaches', () => {
    // Four subtrees tip one after another between 0.63 and 0.74 of the load (each raising the
    // load on the rest through the callers' retries). The reference rises in 1,024 equal steps,
    // each settled in full from the last: no probes, no halving, no crossing.
    const network = toNetworkModel(composeDgg({ services: 80, seed: 2 }));
    const sweep = new CallSweep(compileCallPlan(network));
    const raised = raiseLoad(sweep, 1);
    expect(raised.settled).toBe(true);
    const slow = new CallSweep(compileCallPlan(network));
    const steps = 1024;
    let firstJump: number | undefined;
    for (let k = 1; k <= steps; k++) {
      const before = Float64Array.from(slow.attemptSuccess);
      expect(settleCalls(slow, k / steps, { maxIterations: 20_000 }).converged).toBe(true);
      if (firstJump === undefined && slow.distanceTo(before) > 0.05) firstJump = (k - 1) / steps;
    }
    // The first tip only, pinned inside the step where the slow rise first jumps.
    expect(raised.tips).toHaveLength(1);
    expect(firstJump).toBeDefined();
    expect(raised.tips[0] as number).toBeGreaterThanOrEqual(firstJump as number);
    expect(raised.tips[0] as number).toBeLessThan((firstJump as number) + 1 / steps);
    // The same state at the full load, and a fixed point by brute force.
    for (let j = 0; j < network.services.length; j++)
      expect(Math.abs((sweep.s[j] as number) - (slow.s[j] as number))).toBeLessThan(1e-9);
    expect(fixedPointError(network, Array.from(sweep.s))).toBeLessThan(1e-9);
  }, 60_000);

  it('a run cut short is never reported as converged', () => {
    const { network } = generatedCallGraph(38);
    const solution = solveCalls(network, { maxIterations: 5 });
    expect(solution.converged).toBe(false);
    expect(solution.residual).toBeGreaterThan(1e-12);
    expect(analyzeNetwork(network, { maxIterations: 5 }).converged).toBe(false);
  }, 60_000);

  it('a 300-chain of mm1m services at load 4 (ρ₀ = 1.2 a hop) converges to a verified fixed point', () => {
    const chain = chainNetwork(300, 4, 10);
    const network = {
      ...chain,
      services: chain.services.map((s) => ({ ...s, model: 'mm1m' as const })),
    };
    const solution = solveCalls(network);
    expect(solution.converged).toBe(true);
    expect(fixedPointError(network, solution.s)).toBeLessThan(1e-10);
    // The head blocks as an M/M/1/10 queue at its own load: an overloaded chain is limited there.
    expect(solution.s[0] as number).toBeGreaterThan(0.4);
  }, 60_000);
});

describe('settleCalls: slow mixed sweeps handed over to Newton', () => {
  it('generatedCallGraph(39) at its full load: the state the mixed sweeps alone reach after thousands of sweeps, in a few hundred', () => {
    const { network } = generatedCallGraph(39);
    const alone = new CallSweep(compileCallPlan(network));
    const mixed = relaxCalls(alone, 1, { maxIterations: 20_000 });
    expect(mixed.converged).toBe(true);
    // The case: the mixed sweeps crawl (3,167 sweeps when this test was written).
    expect(mixed.iterations).toBeGreaterThan(1000);
    const sweep = new CallSweep(compileCallPlan(network));
    const settled = settleCalls(sweep, 1);
    expect(settled.converged).toBe(true);
    expect(settled.stable).not.toBe(false);
    // Newton from where the mixed sweeps were after 150 (174 sweeps in all when written).
    expect(settled.iterations).toBeLessThan(mixed.iterations / 4);
    for (let j = 0; j < network.services.length; j++)
      expect(Math.abs((sweep.s[j] as number) - (alone.s[j] as number))).toBeLessThan(1e-9);
    expect(fixedPointError(network, Array.from(sweep.s))).toBeLessThan(1e-9);
  }, 60_000);

  it('a handoff that finds nothing leaves the relaxation exactly as it was, its sweeps counted', () => {
    const { network } = generatedCallGraph(39);
    const plain = new CallSweep(compileCallPlan(network));
    const reference = relaxCalls(plain, 1, { maxIterations: 20_000 });
    expect(reference.iterations).toBeGreaterThan(3);
    const sweep = new CallSweep(compileCallPlan(network));
    let calls = 0;
    const relaxed = relaxCalls(sweep, 1, {
      maxIterations: 20_000,
      handoff: {
        after: 3,
        below: Number.POSITIVE_INFINITY,
        attempt: () => {
          calls++;
          // What a failed Newton does: sweeps from elsewhere, the state put back.
          const s = Float64Array.from(sweep.s);
          const rho = Float64Array.from(sweep.rho);
          const q = Float64Array.from(sweep.attemptSuccess);
          sweep.s.fill(0.5);
          sweep.sweep(0.9);
          sweep.s.set(s);
          sweep.rho.set(rho);
          sweep.attemptSuccess.set(q);
          return 7;
        },
      },
    });
    expect(calls).toBe(1);
    expect(relaxed.converged).toBe(reference.converged);
    expect(relaxed.iterations).toBe(reference.iterations + 7);
    expect(Array.from(sweep.s)).toEqual(Array.from(plain.s));
  }, 60_000);

  it('a handoff that finds a state ends the relaxation with it', () => {
    const { network } = generatedCallGraph(39);
    const sweep = new CallSweep(compileCallPlan(network));
    const found = { converged: true, iterations: 11, residual: 0 } as const;
    const relaxed = relaxCalls(sweep, 1, {
      maxIterations: 20_000,
      handoff: { after: 5, below: Number.POSITIVE_INFINITY, attempt: () => found },
    });
    expect(relaxed).toEqual({ ...found, iterations: 5 + 11 });
  }, 60_000);
});

describe('newtonOnward: a Newton stage cut short near a state goes on', () => {
  /** generatedCallGraph(39) at its full load, after 50 mixed sweeps from idle. */
  function started(): { network: NetworkModel; sweep: CallSweep } {
    const { network } = generatedCallGraph(39);
    const sweep = new CallSweep(compileCallPlan(network));
    relaxCalls(sweep, 1, { maxIterations: 50 });
    return { network, sweep };
  }

  it('ended within 1e-4 of a fixed point: goes on from there and finds the state', () => {
    const { network, sweep: reference } = started();
    const settled = settleCalls(reference, 1);
    expect(settled.converged).toBe(true);
    // 15 evaluations leave Newton near the state, unconverged (|F| = 3.9e-5 when written).
    const cut = newtonCalls(started().sweep, 1, { tolerance: 1e-12, maxEvaluations: 15 });
    expect(cut.converged).toBe(false);
    expect(cut.residual).toBeLessThanOrEqual(1e-4);
    const { sweep } = started();
    const onward = newtonOnward(sweep, 1, { tolerance: 1e-12, maxEvaluations: 15 });
    expect(onward.converged).toBe(true);
    expect(onward.stable).toBe(true);
    expect(onward.iterations).toBeGreaterThan(15);
    for (let j = 0; j < network.services.length; j++)
      expect(Math.abs((sweep.s[j] as number) - (reference.s[j] as number))).toBeLessThan(1e-9);
    expect(fixedPointError(network, Array.from(sweep.s))).toBeLessThan(1e-9);
  }, 60_000);

  it('ended further away: exactly the one Newton stage, nothing more', () => {
    const a = started().sweep;
    const cut = newtonCalls(a, 1, { tolerance: 1e-12, maxEvaluations: 10 });
    expect(cut.converged).toBe(false);
    expect(cut.residual).toBeGreaterThan(1e-4);
    const b = started().sweep;
    const onward = newtonOnward(b, 1, { tolerance: 1e-12, maxEvaluations: 10 });
    expect(onward).toEqual(cut);
    expect(Array.from(b.s)).toEqual(Array.from(a.s));
  }, 60_000);
});

describe('raiseLoad: crossing a fold where plain sweeps overshoot into a cycle', () => {
  it('µBench-like 1,000 services, seed 3, rates × (1 + 1e-13): damped sweeps settle the crossing the plain sweeps cycle in', () => {
    const network = toNetworkModel(
      generateMuBench({ services: 1000, classes: 2, seed: 3, form: 'calls' }),
    );
    const nudged: NetworkModel = {
      ...network,
      services: network.services.map((service) => ({
        ...service,
        arrivals: service.arrivals.map((rate) => rate * (1 + 1e-13)),
      })),
    };
    const sweep = new CallSweep(compileCallPlan(nudged));
    const raised = raiseLoad(sweep, 1);
    expect(raised.settled).toBe(true);
    // The fold the unperturbed rates tip at (docs/benchmarks.md: 0.6064 of the load).
    expect(raised.tips).toEqual([2484 / 4096]);
    // Every quick crossing cycled and the slow ones took 4,000 plain sweeps each: 21,403 sweeps
    // of the rising load before the damped sweeps (3,623 with them when last measured). Every
    // sweep is counted, the fold checks' too.
    expect(raised.iterations).toBeLessThan(6000);
    expect(raised.iterations).toBe(sweep.sweeps);
    expect(fixedPointError(nudged, Array.from(sweep.s))).toBeLessThan(1e-9);
  }, 120_000);
});

describe('followCallBranch: its budget covers the settles of its starting points', () => {
  it('µBench-like 1,000 services, seed 8, from saturation with 300 sweeps: stops within them', () => {
    const network = toNetworkModel(
      generateMuBench({ services: 1000, classes: 2, seed: 8, form: 'calls' }),
    );
    const sweep = new CallSweep(compileCallPlan(network));
    const followed = followCallBranch(sweep, 1, {
      tolerance: 1e-12,
      from: 'saturated',
      maxEvaluations: 300,
    });
    // Its storm is not found within 300 sweeps. The settles at 4, 16 and 64 times the load used
    // to take up to 600 sweeps each on top of the budget; now each gets what is left of it, and
    // only the one that spends it may go past, by its last Newton stage (settleCalls: at least
    // 400 evaluations and 200 sweeps of stability check). Every sweep is counted.
    expect(followed.reached).toBe(false);
    expect(followed.evaluations).toBe(sweep.sweeps);
    expect(followed.evaluations).toBeLessThanOrEqual(300 + 400 + 200);
  }, 60_000);
});
