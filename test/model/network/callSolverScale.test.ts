import { describe, expect, it } from 'vitest';
import { formatAnalysis } from '../../../src/cli/analyzeCommand.js';
import { generateMuBench, scaleToBottleneck, toNetworkModel } from '../../../src/config/index.js';
import {
  analyzeNetwork,
  type NetworkModel,
  type NetworkService,
  solveCalls,
} from '../../../src/model/index.js';
import { fixedPointError } from './callGraphReference.js';

const TWO_CLASSES = [
  { name: 'high', retryLimit: 5 },
  { name: 'low', retryLimit: 1 },
];

/** A chain s0 → s1 → … of `length` services (μ = 1000/s, m = 10), γ = load × (50, 250) at s0. */
function chain(length: number, load = 1): NetworkModel {
  const services: NetworkService[] = Array.from({ length }, (_, i) => ({
    name: `s${i}`,
    capacity: 1000,
    queue: 10,
    model: 'mixed',
    arrivals: i === 0 ? [50 * load, 250 * load] : [0, 0],
    retryLimits: [5, 1],
    routes: [],
    calls: i < length - 1 ? [{ to: i + 1, n: 1 }] : [],
  }));
  return { mode: 'calls', classes: TWO_CLASSES, services };
}

describe('call-graph solver at scale', () => {
  it('chains of 40 and 300 at light load converge to the healthy state (the old sweeps reported 0.96)', () => {
    for (const length of [20, 40, 300]) {
      const report = analyzeNetwork(chain(length));
      expect(report.converged, `length ${length}`).toBe(true);
      expect(report.equilibria).toHaveLength(1);
      expect(report.endToEnd.low?.rejection, `length ${length}`).toBeLessThan(1e-9);
      expect(report.endToEnd.high?.rejection, `length ${length}`).toBeLessThan(1e-12);
    }
    const solution = solveCalls(chain(40));
    expect(fixedPointError(chain(40), solution.s)).toBeLessThan(1e-12);
  });

  it('a 5,000-deep chain: iterative passes, no recursion, converged', () => {
    const network = chain(5000);
    const solution = solveCalls(network);
    expect(solution.converged).toBe(true);
    expect(1 - (solution.callSuccess[0]?.[1] as number)).toBeLessThan(1e-9);
  });

  it('a 300-chain at heavy load (ρ ≈ 0.98 at every hop): the same state from idle and from saturation', () => {
    const network = chain(300, 3);
    const idle = solveCalls(network);
    const saturated = solveCalls(network, { saturated: true });
    expect(idle.converged).toBe(true);
    expect(saturated.converged).toBe(true);
    idle.s.forEach((s, j) => {
      expect(Math.abs(s - (saturated.s[j] as number)), `service ${j}`).toBeLessThan(1e-9);
    });
    expect(fixedPointError(network, idle.s)).toBeLessThan(1e-10);
    const report = analyzeNetwork(network);
    expect(report.equilibria).toHaveLength(1);
  });

  it('generated µBench call graphs of 50, 100 and 300 services converge to a verified fixed point', () => {
    for (const services of [50, 100, 300]) {
      const network = toNetworkModel(
        generateMuBench({ services, classes: 2, seed: 0, form: 'calls' }),
      );
      const solution = solveCalls(network);
      expect(solution.converged, `${services} services`).toBe(true);
      expect(fixedPointError(network, solution.s), `${services} services`).toBeLessThan(1e-9);
    }
  });

  it('a call graph is never reported as uniquely solved because it is a DAG', () => {
    const report = analyzeNetwork(chain(3));
    expect(report.structure.dag).toBe(true);
    expect(report.structure.uniqueness).toBe('none');
    expect(formatAnalysis(report)).not.toContain('guaranteed (a DAG)');
    expect(formatAnalysis(report)).toContain(
      'one equilibrium: the same state from idle and from saturation',
    );
  });

  it('nested retries alone can make a call graph bistable: a healthy state and a storm at one load', () => {
    // Found by the generated-network scan: 50 µBench services, bottleneck ρ₀ = 0.85, m ≥ 20.
    const spec = scaleToBottleneck(
      generateMuBench({ services: 50, classes: 2, seed: 136, form: 'calls' }),
      0.85,
      {
        minQueue: 20,
      },
    );
    const report = analyzeNetwork(toNetworkModel(spec));
    expect(report.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
    const [healthy, storm] = report.equilibria;
    expect(storm?.endToEnd.low?.rejection).toBeGreaterThan(
      (healthy?.endToEnd.low?.rejection ?? 1) + 0.1,
    );
    expect(formatAnalysis(report)).toMatch(
      /bistable: healthy \(high [\d.]+ %, low [\d.]+ %\) or storm/,
    );
    // The main figures are the healthy state's.
    expect(report.endToEnd).toEqual(healthy?.endToEnd);
  });

  it('the report always lists the equilibria, the main figures being the first', () => {
    const report = analyzeNetwork(chain(5, 2));
    expect(report.equilibria).toHaveLength(1);
    expect(report.equilibria[0]?.kind).toBe('healthy');
    expect(report.equilibria[0]?.endToEnd).toEqual(report.endToEnd);
    expect(Object.keys(report.equilibria[0]?.services ?? {})).toEqual(
      report.services && Object.keys(report.services),
    );
    expect(report.equilibria[0]?.services.s0?.rho).toBeCloseTo(
      report.services.s0?.rho as number,
      12,
    );
  });
});
