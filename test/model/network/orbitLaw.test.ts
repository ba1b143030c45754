import { describe, expect, it } from 'vitest';
import { meanRetryDelays } from '../../../src/model/backoff/meanRetryDelays.js';
import { analyzeNetwork } from '../../../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { orbitLawRefusal } from '../../../src/model/network/orbitLaw.js';
import { orbitQueue } from '../../../src/model/queue/orbitQueue.js';
import { parseNetwork } from '../../../src/spec/parseNetwork.js';
import { toNetworkModel } from '../../../src/spec/toNetworkModel.js';

/** Issue 25's case: μ = 120, m = 40, two classes with k = 1 and a 27 ms per-try timeout. */
const flank = (total: number): NetworkModel => ({
  classes: [
    { name: 'gold', retryLimit: 1, meanBackoffs: [0.1] },
    { name: 'standard', retryLimit: 1, meanBackoffs: [0.1] },
  ],
  services: [
    {
      name: 'api',
      capacity: 120,
      queue: 40,
      model: 'mm1m',
      arrivals: [total / 3, (2 * total) / 3],
      retryLimits: [1, 1],
      routes: [],
      timeouts: [0.027, 0.027],
    },
  ],
});

describe('the orbit law in the analysis', () => {
  it('reports what orbitQueue says of each stand-alone service', () => {
    const report = analyzeNetwork(flank(57.6), { law: 'orbit' });
    // Two classes alike are one class with their summed arrivals.
    const one = orbitQueue({
      capacity: 120,
      queue: 40,
      classes: [{ arrivalRate: 57.6, retryLimit: 1, timeout: 120 * 0.027, meanBackoff: 0.1 }],
    });
    const expected = one.classes[0]?.requestRejection ?? Number.NaN;
    expect(report.endToEnd.gold?.rejection).toBeCloseTo(expected, 9);
    expect(report.endToEnd.standard?.rejection).toBeCloseTo(expected, 9);
    expect(report.services.api?.rho).toBeCloseTo(one.offeredLoad, 9);
    expect(report.equilibria).toHaveLength(1);
  });

  it('sees the flank the mean field misses: far more rejection just below the storm', () => {
    const meanField = analyzeNetwork(flank(57.6));
    const orbit = analyzeNetwork(flank(57.6), { law: 'orbit' });
    // The simulator measured 0.421 ± 0.009 here (24 runs of 600 s); the mean field says 0.085.
    expect(meanField.endToEnd.gold?.rejection).toBeLessThan(0.1);
    expect(orbit.endToEnd.gold?.rejection).toBeGreaterThan(0.35);
  });

  it('refuses what it does not cover yet, saying what and where', () => {
    const routed: NetworkModel = {
      ...flank(10),
      services: [
        {
          ...(flank(10).services[0] as NetworkModel['services'][number]),
          routes: [{ to: 1, p: 0.5 }],
        },
        {
          name: 'db',
          capacity: 100,
          queue: 10,
          model: 'mm1m',
          arrivals: [0, 0],
          retryLimits: [1, 1],
          routes: [],
        },
      ],
    };
    expect(orbitLawRefusal(routed)).toMatch(
      /^the orbit law covers services that stand alone so far; api routes/,
    );
    expect(() => analyzeNetwork(routed, { law: 'orbit' })).toThrow(/api routes requests on/);
    const fluid: NetworkModel = {
      ...flank(10),
      services: [
        { ...(flank(10).services[0] as NetworkModel['services'][number]), model: 'fluid' },
      ],
    };
    expect(orbitLawRefusal(fluid)).toMatch(/api uses the fluid law/);
    expect(orbitLawRefusal(flank(10))).toBeUndefined();
  });

  it('reads each class’s mean backoff per retry from the network file', () => {
    expect(meanRetryDelays({ kind: 'random', meanMs: 200 }, 2)).toEqual([0.2, 0.2]);
    expect(meanRetryDelays({ kind: 'constant', delayMs: 50 }, 0)).toEqual([0.05]);
    expect(meanRetryDelays({ kind: 'exponential', baseMs: 40, jitter: 'full' }, 3)).toEqual([
      0.02, 0.04, 0.08,
    ]);
    expect(meanRetryDelays({ kind: 'exponential', baseMs: 40, maxMs: 100 }, 3)).toEqual([
      0.04, 0.08, 0.1,
    ]);
    const model = toNetworkModel(
      parseNetwork(
        [
          'backoff: { kind: random, meanMs: 300 }',
          'classes:',
          '  - { name: high, retries: 2, backoff: { kind: constant, delayMs: 20 } }',
          '  - { name: low, retries: 1 }',
          'services:',
          '  - { name: a, capacity: 100, queue: 10, arrivals: { high: 1 }, retries: { low: 3 } }',
        ].join('\n'),
        'net.yaml',
      ),
    );
    expect(model.classes.map((c) => c.meanBackoffs)).toEqual([
      [0.02, 0.02],
      [0.3, 0.3, 0.3],
    ]);
  });
});
