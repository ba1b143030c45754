import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/index.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import { analyzeNetwork, type NetworkModel } from '../../../src/model/index.js';
import { seededRandom } from '../../../src/model/random.js';
import {
  type RetryContext,
  type RetryDecision,
  retryPolicy,
} from '../../../src/policy/retry/RetryPolicy.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';
import { replicateSingleService } from '../../../src/sim/replicate.js';
import { oneService as paperService } from './fixtures.js';

function hotel(retries: Readonly<Record<string, number>>): NetworkModel {
  const text = readFileSync(new URL('../../../examples/hotel.yaml', import.meta.url), 'utf8');
  return toNetworkModel(parseNetwork(text, 'hotel.yaml'), { retries });
}

/** One overloaded service, two classes: the single-service simulator's standard case. */
const oneService: NetworkModel = paperService([5, 1]);

describe('simulateNetwork (routing mode)', () => {
  it('is reproducible with a seed and conserves requests', () => {
    const network = hotel({});
    const a = simulateNetwork(network, { duration: 20, seed: 3 });
    const b = simulateNetwork(network, { duration: 20, seed: 3 });
    const c = simulateNetwork(network, { duration: 20, seed: 4 });
    expect(b).toEqual(a);
    expect(c.endToEnd).not.toEqual(a.endToEnd);
    for (const [name, e] of Object.entries(a.endToEnd)) {
      expect(e.originals, name).toBeGreaterThan(0);
      expect(e.completed + e.rejected, name).toBe(e.originals);
    }
    // Every request measured at a hop either got through or failed there.
    for (const service of Object.values(a.services)) {
      for (const entry of Object.values(service.classes)) {
        if (entry.in === 0) continue;
        expect(entry.out + entry.in * entry.rejection).toBeCloseTo(entry.in, 9);
      }
    }
  });

  it('on one service agrees with simulateSingleService (3 × CI or 0.01)', () => {
    const backoff = { kind: 'random', meanMs: 100 } as const;
    const single = replicateSingleService(
      {
        capacity: 143,
        queue: 50,
        classes: [
          { name: 'high', arrivalRate: 50, retryLimit: 5, backoff },
          { name: 'low', arrivalRate: 250, retryLimit: 1, backoff },
        ],
        duration: 30,
        seed: 11,
      },
      5,
    );
    const network = simulateNetwork(oneService, { duration: 100, seed: 12, backoff });
    for (const name of ['high', 'low']) {
      const reference = single.classes[name];
      const simulated = network.endToEnd[name]?.rejection ?? Number.NaN;
      const tolerance = Math.max(3 * (reference?.rejectionCi95 ?? 0), 0.01);
      expect(
        Math.abs(simulated - (reference?.rejection ?? Number.NaN)),
        JSON.stringify({ name, simulated, reference, tolerance }),
      ).toBeLessThanOrEqual(tolerance);
    }
  });

  // 400 s virtual (40 s warm-up), retry delays random with mean 2 s, so a retry meets a frontend
  // whose state has decorrelated from the rejection, as the independence assumption asks.
  for (const low of [1, 5]) {
    it(`hotel.yaml at k = (5, ${low}) matches analyzeNetwork end to end within 0.02`, () => {
      const network = hotel({ high: 5, low });
      const predicted = analyzeNetwork(network);
      const simulated = simulateNetwork(network, {
        duration: 400,
        seed: 21,
        backoff: { kind: 'random', meanMs: 2000 },
      });
      for (const name of ['high', 'low']) {
        const s = simulated.endToEnd[name]?.rejection ?? Number.NaN;
        const p = predicted.endToEnd[name]?.rejection ?? Number.NaN;
        expect(
          Math.abs(s - p),
          JSON.stringify({ low, name, simulated: s, predicted: p }),
        ).toBeLessThanOrEqual(0.02);
      }
    });
  }

  it('drives the very policy object: same policy, same decisions', () => {
    const calls: { service: number; context: RetryContext; decision: RetryDecision }[] = [];
    const policyRandomSeed = 99;
    simulateNetwork(oneService, {
      duration: 5,
      seed: 5,
      retryPolicy: (service, options) => {
        // A deterministic random of its own, so the policy's draws can be replayed outside.
        const policy = retryPolicy({ ...options, random: seededRandom(policyRandomSeed) });
        return {
          ...policy,
          decide(context) {
            const decision = policy.decide(context);
            calls.push({ service, context: { ...context }, decision });
            return decision;
          },
        };
      },
    });
    expect(calls.length).toBeGreaterThan(100);
    expect(calls.some((c) => c.decision.retry)).toBe(true);
    expect(calls.some((c) => !c.decision.retry)).toBe(true);
    const direct = retryPolicy({
      classes: { high: { retries: 5 }, low: { retries: 1 } },
      defaultClass: 'low',
      backoff: { kind: 'random', meanMs: 100 },
      clock: () => 0,
      random: seededRandom(policyRandomSeed),
    });
    for (const call of calls) {
      expect(direct.decide(call.context)).toEqual(call.decision);
    }
  });

  it('refuses call graphs', () => {
    const network = hotel({});
    const withCalls: NetworkModel = {
      ...network,
      services: network.services.map((s, i) => (i === 0 ? { ...s, calls: [{ to: 1, n: 1 }] } : s)),
    };
    expect(() => simulateNetwork(withCalls, { duration: 1, seed: 1 })).toThrow(RangeError);
  });
});
