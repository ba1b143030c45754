import { describe, expect, it } from 'vitest';
import {
  chainNetwork,
  generatedCallGraph,
} from '../../src/experiments/callValidation/callCases.js';
import { simulateRuns } from '../../src/experiments/simulation/simulateRuns.js';
import {
  simulatorTimeouts,
  timedService,
} from '../../src/experiments/timeoutValidation/timeoutCases.js';
import { analyzeNetwork } from '../../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../src/model/network/NetworkModel.js';

/*
 * A few cases of the call-graph and timeout validations (docs/validation-calls.md,
 * docs/validation-timeouts-model.md; the full studies are `npm run validate:calls` and
 * `npm run validate:timeouts-model`), re-run with short simulations: cases where the analysis and
 * the simulator agree there, so a change to either that breaks the agreement fails here.
 *
 * The check cannot pass by accident: each run must be precise enough (every class's 95 %
 * half-width below half the tolerance), and a wrong analysis — the same network with every retry
 * limit 0, or without its timeouts — must miss the simulation by more than the tolerance for some
 * class.
 */

const BACKOFF = { kind: 'random', meanMs: 2000 } as const;

interface AgreementCase {
  readonly name: string;
  readonly network: NetworkModel;
  /** The analysis the simulation must tell apart from the real one. */
  readonly wrong: NetworkModel;
  readonly tolerance: number;
  readonly replications: number;
  readonly warmup: number;
  readonly duration: number;
  readonly timed?: boolean;
}

const withoutRetries = (network: NetworkModel): NetworkModel => ({
  ...network,
  services: network.services.map((s) => ({ ...s, retryLimits: s.retryLimits.map(() => 0) })),
});

const withoutTimeouts = (network: NetworkModel): NetworkModel => ({
  ...network,
  services: network.services.map(({ timeouts: _, ...s }) => s),
});

const CALL_CASES: AgreementCase[] = [
  // 55 µBench services, bottleneck ρ₀ = 2.125, 33 services overloaded.
  { index: 8, replications: 5, warmup: 60, duration: 60 },
  // 43 services in composed DGG graphs, ρ₀ = 2.2, 30 overloaded.
  { index: 15, replications: 4, warmup: 60, duration: 60 },
].map(({ index, ...run }) => {
  const g = generatedCallGraph(index);
  return {
    name: `${g.id} (${g.services} services, ρ₀ = ${g.rho0})`,
    network: g.network,
    wrong: withoutRetries(g.network),
    tolerance: 0.03,
    ...run,
  };
});

const CHAIN = chainNetwork(40, 3, 10);
CALL_CASES.push({
  name: 'chain of 40, m = 10, load 3 (ρ ≈ 0.98 a hop)',
  network: CHAIN,
  wrong: withoutRetries(CHAIN),
  tolerance: 0.01,
  replications: 3,
  warmup: 20,
  duration: 30,
});

const TIMED = timedService({ queue: 10, retries: 1, rho: 1.3, timeoutServiceTimes: 10 });
const TIMEOUT_CASE: AgreementCase = {
  name: 'one service, m = 10, k = 1, ρ = 1.3, T = 10 service times',
  network: TIMED,
  wrong: withoutTimeouts(TIMED),
  tolerance: 0.02,
  replications: 10,
  warmup: 30,
  duration: 400,
  timed: true,
};

function checkAgreement(c: AgreementCase): void {
  const report = analyzeNetwork(c.network);
  expect(report.converged, c.name).toBe(true);
  expect(report.equilibria, c.name).toHaveLength(1);
  const simulated = simulateRuns(
    c.network,
    {
      duration: c.duration,
      warmup: c.warmup,
      seed: 12,
      backoff: BACKOFF,
      ...(c.timed ? { timeouts: simulatorTimeouts(c.network) } : {}),
    },
    c.replications,
    0,
  );
  const wrong = analyzeNetwork(c.wrong);
  let separated = false;
  for (const { name } of c.network.classes) {
    const pred = report.endToEnd[name]?.rejection ?? Number.NaN;
    const { mean: sim, ci95 } = simulated.rejection[name] ?? { mean: Number.NaN, ci95: 0 };
    const inputs = `${c.name}, class ${name}: analysis ${pred}, simulation ${sim} ± ${ci95}`;
    expect(ci95, inputs).toBeLessThan(c.tolerance / 2);
    expect(Math.abs(pred - sim), inputs).toBeLessThanOrEqual(c.tolerance);
    const off = wrong.endToEnd[name]?.rejection ?? Number.NaN;
    if (Math.abs(off - sim) > c.tolerance) separated = true;
  }
  expect(separated, `${c.name}: the wrong analysis is not told apart`).toBe(true);
}

describe('call-graph analysis against the simulator (cases of npm run validate:calls)', () => {
  it.each(CALL_CASES)('$name: every class within $tolerance', (c) => checkAgreement(c));
});

describe('per-try timeouts against the simulator (a case of npm run validate:timeouts-model)', () => {
  it(`${TIMEOUT_CASE.name}: within ${TIMEOUT_CASE.tolerance}`, () => checkAgreement(TIMEOUT_CASE));
});
