import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/index.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import type { BackoffDescription } from '../../../src/model/backoff/BackoffDescription.js';
import { analyzeNetwork, type NetworkModel } from '../../../src/model/index.js';
import type { NetworkSimulationResult } from '../../../src/sim/network/NetworkSimulationResult.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';

/** Long retry delays: retries then meet a fresh state, the regime the model describes. */
const LONG_BACKOFF: BackoffDescription = { kind: 'random', meanMs: 2000 };

function hotelCalls(retries: Readonly<Record<string, number>>): NetworkModel {
  const text = readFileSync(new URL('../../../examples/hotel-calls.yaml', import.meta.url), 'utf8');
  return toNetworkModel(parseNetwork(text, 'hotel-calls.yaml'), { retries });
}

/** The bottleneck moved into the call graph: a roomy frontend, profile at 0.99 × 143. */
function movedBottleneck(network: NetworkModel): NetworkModel {
  return {
    ...network,
    services: network.services.map((s) =>
      s.name === 'frontend'
        ? { ...s, capacity: 1000 }
        : s.name === 'profile'
          ? { ...s, capacity: 0.99 * 143 }
          : s,
    ),
  };
}

function expectConservation(result: NetworkSimulationResult): void {
  for (const [name, e] of Object.entries(result.endToEnd)) {
    if (e.originals === 0) continue;
    expect(e.completed + e.rejected, name).toBe(e.originals);
  }
  // Every call measured at a service either succeeded or failed after the hop's retries.
  for (const service of Object.values(result.services)) {
    for (const entry of Object.values(service.classes)) {
      if (entry.in === 0) continue;
      expect(entry.out + entry.in * entry.rejection).toBeCloseTo(entry.in, 9);
    }
  }
}

/** a → b, one class; b overloaded. */
function chain(ka: number, kb: number, call: { n: number; parallel?: boolean }): NetworkModel {
  return {
    mode: 'calls',
    classes: [{ name: 'only', retryLimit: ka }],
    services: [
      {
        name: 'a',
        capacity: 1000,
        queue: 100,
        model: 'mixed',
        arrivals: [40],
        retryLimits: [ka],
        routes: [],
        calls: [{ to: 1, ...call }],
      },
      {
        name: 'b',
        capacity: 20,
        queue: 10,
        model: 'mixed',
        arrivals: [0],
        retryLimits: [kb],
        routes: [],
      },
    ],
  };
}

describe('simulateNetwork (call-graph mode)', () => {
  it.each([
    [5, 1],
    [5, 5],
  ])('hotel-calls with k = (%i, %i) agrees with analyzeNetwork within 0.02', (high, low) => {
    const network = hotelCalls({ high, low });
    expect(network.mode).toBe('calls');
    const predicted = analyzeNetwork(network);
    const simulated = simulateNetwork(network, {
      duration: 200,
      seed: 7,
      backoff: LONG_BACKOFF,
    });
    expect(simulated.mode).toBe('calls');
    expectConservation(simulated);
    for (const name of ['high', 'low']) {
      expect(simulated.endToEnd[name]?.originals, name).toBeGreaterThan(1000);
      expect(
        Math.abs(
          (simulated.endToEnd[name]?.rejection as number) -
            (predicted.endToEnd[name]?.rejection as number),
        ),
        name,
      ).toBeLessThan(0.02);
    }
  });

  it('with the bottleneck in the call graph, fewer low retries protect the high class', () => {
    // The call-graph model is an approximation here (retries of a subtree meet a correlated
    // state), so only the ordering is asserted.
    const run = (low: number) =>
      simulateNetwork(movedBottleneck(hotelCalls({ high: 5, low })), {
        duration: 100,
        // The retry storm under k = (5, 5) takes tens of seconds to build up.
        warmup: 100,
        seed: 8,
        backoff: LONG_BACKOFF,
      });
    const k51 = run(1);
    const k55 = run(5);
    expectConservation(k51);
    expectConservation(k55);
    const high51 = k51.endToEnd.high?.rejection as number;
    const high55 = k55.endToEnd.high?.rejection as number;
    expect(high51).toBeLessThan(high55);
    expect(high51).toBeLessThan(0.05);
  });

  it('a chain a → b with b overloaded: at most (k_a + 1)(k_b + 1) attempts at b per request', () => {
    const ka = 2;
    const kb = 3;
    const result = simulateNetwork(chain(ka, kb, { n: 1 }), { duration: 100, seed: 9 });
    expectConservation(result);
    const e = result.endToEnd.only;
    expect(e?.originals).toBeGreaterThan(3000);
    const perRequest =
      ((result.services.b?.classes.only?.attempts as number) * result.duration) /
      (e?.originals as number);
    expect(perRequest).toBeLessThanOrEqual((ka + 1) * (kb + 1));
    // b is heavily overloaded (40 calls/s, up to 12 attempts each, against 20/s): most calls
    // use most of their attempts.
    expect(perRequest).toBeGreaterThan(0.5 * (ka + 1) * (kb + 1));
    // Calls into b = attempts at a that were accepted; every attempt at a is accepted.
    const a = result.services.a?.classes.only;
    expect(result.services.a?.s).toBe(0);
    expect(result.services.b?.classes.only?.in).toBeCloseTo(a?.attempts as number, 9);
    expect(a?.attempts).toBeLessThanOrEqual((ka + 1) * (a?.in as number));
    expect(e?.rejection).toBeGreaterThan(0.1);
  });

  it('makes n sequential calls until one fails, and all n parallel calls', () => {
    // b never rejects: every call succeeds, so both forms make all n calls.
    const roomy = (call: { n: number; parallel?: boolean }) => {
      const network = chain(0, 0, call);
      return {
        ...network,
        services: network.services.map((s) => (s.name === 'b' ? { ...s, capacity: 500 } : s)),
      };
    };
    for (const parallel of [false, true]) {
      const result = simulateNetwork(roomy({ n: 3, parallel }), {
        duration: 20,
        seed: 10,
      });
      const b = result.services.b?.classes.only;
      expect(b?.in, `parallel ${parallel}`).toBeGreaterThan(0);
      expect(result.endToEnd.only?.completion).toBeGreaterThan(0.99);
      expect(b?.in).toBeCloseTo(3 * (result.services.a?.classes.only?.out as number), 9);
    }
    // b overloaded, no retries: sequential calls stop at the first failure, parallel make all 3.
    const sequential = simulateNetwork(chain(0, 0, { n: 3 }), { duration: 50, seed: 11 });
    const parallel = simulateNetwork(chain(0, 0, { n: 3, parallel: true }), {
      duration: 50,
      seed: 11,
    });
    const callsPerAttempt = (r: NetworkSimulationResult) =>
      (r.services.b?.classes.only?.in as number) / (r.services.a?.classes.only?.attempts as number);
    expect(callsPerAttempt(sequential)).toBeLessThan(2.9);
    expect(callsPerAttempt(parallel)).toBeCloseTo(3, 9);
    expectConservation(sequential);
    expectConservation(parallel);
  });

  it('is reproducible and refuses calls in a routing network and cycles', () => {
    const network = chain(1, 1, { n: 2 });
    expect(simulateNetwork(network, { duration: 5, seed: 1 })).toEqual(
      simulateNetwork(network, { duration: 5, seed: 1 }),
    );
    expect(() =>
      simulateNetwork({ ...network, mode: 'routing' }, { duration: 1, seed: 1 }),
    ).toThrow(RangeError);
    const cycle: NetworkModel = {
      ...network,
      services: network.services.map((s) =>
        s.name === 'b' ? { ...s, calls: [{ to: 0, n: 1 }] } : s,
      ),
    };
    expect(() => simulateNetwork(cycle, { duration: 1, seed: 1 })).toThrow(RangeError);
  });
});
