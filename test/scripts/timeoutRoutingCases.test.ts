import { describe, expect, it } from 'vitest';
import {
  hotelRoutingWithTimeout,
  routingChain,
  routingCycle,
  simulatorTimeouts,
} from '../../src/experiments/timeoutValidation/timeoutCases.js';
import { analyzeNetwork } from '../../src/model/index.js';
import { usesTimedRouting } from '../../src/model/network/analyzeNetwork.js';

describe('the routing cases of the timeout validation', () => {
  it.each([
    { name: 'chain a → b', network: routingChain({ rho: 0.5, timeoutMs: 100, queue: 50 }) },
    { name: 'cycle a ⇄ b', network: routingCycle({ rho: 0.5, timeoutMs: 100, queue: 10 }) },
    { name: 'hotelReservation', network: hotelRoutingWithTimeout(93, 500) },
  ])(
    '$name: analysed as routing with a timeout at every hop, simulated with the same',
    ({ network }) => {
      expect(usesTimedRouting(network)).toBe(true);
      const report = analyzeNetwork(network);
      expect(report.mode).toBe('routing');
      expect(report.converged).toBe(true);
      const timeouts = simulatorTimeouts(network);
      network.services.forEach((_, i) => {
        expect(timeouts(i)).toBeDefined();
      });
    },
  );

  it('two storms in the chain: the state from idle first (b alone in its storm), the one from saturation second', () => {
    const report = analyzeNetwork(routingChain({ rho: 0.8, timeoutMs: 30, queue: 50 }));
    expect(report.equilibria.map((e) => e.kind)).toEqual(['storm', 'storm']);
    expect(report.tippedAt).toBeGreaterThan(0);
    const [fromIdle, fromSaturation] = report.equilibria;
    // a healthy, b rejecting all: only the 20 % that leave after a complete.
    expect(fromIdle?.services.a?.s).toBeLessThan(1e-6);
    expect(fromIdle?.endToEnd.low?.rejection).toBeCloseTo(0.8, 2);
    expect(fromSaturation?.endToEnd.low?.rejection).toBeGreaterThan(0.999);
    // The main figures are the state from idle's.
    expect(report.endToEnd.low?.rejection).toBe(fromIdle?.endToEnd.low?.rejection);
  });

  it('the nominal loads are what the cases say: b at ρ in the chain, a at ρ in the cycle', () => {
    const chain = routingChain({ rho: 0.8, timeoutMs: 1e6, queue: 50 });
    const cycle = routingCycle({ rho: 0.8, timeoutMs: 1e6, queue: 50 });
    // With a timeout far beyond any sojourn and light rejection, the offered loads are nominal.
    const light = (n: typeof chain) => ({
      ...n,
      services: n.services.map((s) => ({ ...s, queue: 1000 })),
    });
    expect(analyzeNetwork(light(chain)).services.b?.rho).toBeCloseTo(0.8, 3);
    expect(analyzeNetwork(light(cycle)).services.a?.rho).toBeCloseTo(0.8, 3);
  });
});
