import { describe, expect, it } from 'vitest';
import {
  generateCyclic,
  generateDgg,
  generateMuBench,
  type NetworkSpec,
  scaleToBottleneck,
  toNetworkModel,
} from '../../../src/config/index.js';
import { analyzeNetwork } from '../../../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { nominalLoads } from '../../../src/model/network/nominalLoads.js';
import { replicateNetwork } from '../../../src/sim/network/replicateNetwork.js';

/**
 * The network analysis against the simulator in the regime it describes (docs/validation.md,
 * "Networks"; the full study is `npm run validate:networks`): routing mode, every queue m ≥ 20,
 * retry delays long against the service times (random, mean 2 s). Four networks of the
 * validation's main set (same generators, seeds, queues and loads), two DAGs and two cyclic, each
 * with several overloaded services. The simulated per-class end-to-end rejection must lie within
 * 0.02 of the analysis (the study's target); the standard error of each simulated figure here is
 * at most about 0.004.
 */

const TOLERANCE = 0.02;
const BACKOFF = { kind: 'random', meanMs: 2000 } as const;
const REPLICATIONS = 3;
const DURATION = 100;
const WARMUP = 30;

/** Queues raised to 20 and arrivals scaled so the most loaded service has nominal load `rho0`. */
function shaped(spec: NetworkSpec, rho0: number): NetworkModel {
  return toNetworkModel(scaleToBottleneck(spec, rho0, { minQueue: 20 }));
}

const NETWORKS = [
  { name: 'DGG DAG, seed 105', spec: generateDgg({ services: 6, seed: 105 }), rho0: 1.45 },
  {
    name: 'µBench DAG, seed 112',
    spec: generateMuBench({ services: 6, seed: 112 }),
    rho0: 1.375,
  },
  {
    name: 'cyclic, seed 203',
    spec: generateCyclic({ services: 12, seed: 203, backEdges: 2 }),
    rho0: 1.3,
  },
  {
    name: 'cyclic, seed 206',
    spec: generateCyclic({ services: 6, seed: 206, backEdges: 2 }),
    rho0: 1.9,
  },
] as const;

describe('analyzeNetwork against simulateNetwork (routing, m ≥ 20, long retry delays)', () => {
  NETWORKS.forEach(({ name, spec, rho0 }, index) => {
    it(`${name}, bottleneck ρ₀ = ${rho0}: every class within ${TOLERANCE}`, () => {
      const network = shaped(spec, rho0);
      const loads = nominalLoads(network);
      expect(Math.max(...loads)).toBeCloseTo(rho0, 9);
      expect(loads.filter((rho) => rho > 1).length).toBeGreaterThanOrEqual(2);
      const predicted = analyzeNetwork(network);
      expect(predicted.converged).toBe(true);
      expect(predicted.mode).toBe('routing');
      expect(predicted.structure.dag).toBe(!name.startsWith('cyclic'));

      const simulated = replicateNetwork(
        network,
        { duration: DURATION, warmup: WARMUP, seed: 61, stream: 10 * index, backoff: BACKOFF },
        REPLICATIONS,
      );
      // Analysis with every retry limit 0: the simulation must tell it apart, so the check has
      // the power to fail.
      const noRetries = analyzeNetwork({
        ...network,
        services: network.services.map((s) => ({ ...s, retryLimits: s.retryLimits.map(() => 0) })),
      });
      let separated = false;
      for (const { name: cls } of network.classes) {
        const sim = simulated.endToEnd[cls]?.rejection ?? Number.NaN;
        const pred = predicted.endToEnd[cls]?.rejection ?? Number.NaN;
        expect(Math.abs(sim - pred), `${cls}: analysis ${pred}, simulation ${sim}`).toBeLessThan(
          TOLERANCE,
        );
        const wrong = noRetries.endToEnd[cls]?.rejection ?? Number.NaN;
        if (Math.abs(sim - wrong) > TOLERANCE) separated = true;
      }
      expect(separated).toBe(true);
      // The overload is real: some class loses more than 5 % of its requests.
      expect(
        Math.max(...network.classes.map((c) => predicted.endToEnd[c.name]?.rejection ?? 0)),
      ).toBeGreaterThan(0.05);
    });
  });
});
