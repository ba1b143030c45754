import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/index.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import { analyzeNetwork, type NetworkModel, solveService } from '../../../src/model/index.js';
import { expectClose } from '../reference.js';

function example(file: string): NetworkModel {
  const text = readFileSync(new URL(`../../../examples/${file}`, import.meta.url), 'utf8');
  return toNetworkModel(parseNetwork(text, file));
}

/*
 * DeathStarBench hotelReservation in its two forms. The fan-out, counted by hand from the call
 * graph (one frontend request, every call succeeding):
 *   search 60 %:     search, geo, rate, reservation, profile  5 × 0.6   = 3.0
 *   recommend 39 %:  recommendation, profile                  2 × 0.39  = 0.78
 *   user 0.5 %:      user                                     1 × 0.005 = 0.005
 *   reserve 0.5 %:   user, reservation                        2 × 0.005 = 0.01
 * = 3.795 internal calls per request. The routing form's visits (search, geo, rate 0.6;
 * reservation 0.605; profile 0.99; recommendation 0.39; user 0.01) add up to the same.
 */
const FAN_OUT = 3 + 0.78 + 0.005 + 0.01;

describe('examples/hotel.yaml and examples/hotel-calls.yaml', () => {
  const routing = analyzeNetwork(example('hotel.yaml'));
  const calls = analyzeNetwork(example('hotel-calls.yaml'));

  it('are solved in their own modes and converge', () => {
    expect(routing.mode).toBe('routing');
    expect(calls.mode).toBe('calls');
    expect(routing.converged).toBe(true);
    expect(calls.converged).toBe(true);
    expect(routing.structure.dag).toBe(true);
    expect(calls.structure.dag).toBe(true);
  });

  it('give the same end-to-end rejection per class when only the frontend is loaded (1e-12)', () => {
    // Downstream services run at ρ ≤ 0.5 with m = 50, so their blocking is below 1e-15: a request
    // fails only at the frontend, in either form.
    for (const name of ['high', 'low']) {
      const a = routing.endToEnd[name]?.rejection ?? Number.NaN;
      const b = calls.endToEnd[name]?.rejection ?? Number.NaN;
      expectClose(b, a, { abs: 1e-12 }, { name, routing: routing.endToEnd, calls: calls.endToEnd });
    }
    for (const report of [routing, calls]) {
      for (const [name, service] of Object.entries(report.services)) {
        if (name !== 'frontend')
          expect(service.s, `${report.mode} ${name}`).toBeLessThanOrEqual(1e-12);
      }
    }
  });

  it('the frontend is the one-service model at γ = (50, 250), μ = 143, m = 50', () => {
    const single = solveService({
      capacity: 143,
      queue: 50,
      model: 'mixed',
      classes: [
        { arrivalRate: 50, retryLimit: 5 },
        { arrivalRate: 250, retryLimit: 1 },
      ],
    });
    for (const report of [routing, calls]) {
      expectClose(report.services.frontend?.s ?? Number.NaN, single.s, { abs: 1e-11 }, report.mode);
      expectClose(
        report.endToEnd.high?.rejection ?? Number.NaN,
        single.classes[0]?.rejection ?? Number.NaN,
        { abs: 1e-10 },
        report.mode,
      );
      expectClose(
        report.endToEnd.low?.rejection ?? Number.NaN,
        single.classes[1]?.rejection ?? Number.NaN,
        { abs: 1e-10 },
        report.mode,
      );
    }
  });

  it('internalPerSuccess is the fan-out 3.795 to 1e-9 in both forms', () => {
    expectClose(routing.load.internalPerSuccess, FAN_OUT, { abs: 1e-9 }, routing.load);
    expectClose(calls.load.internalPerSuccess, FAN_OUT, { abs: 1e-9 }, calls.load);
  });
});
