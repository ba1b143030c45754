import { describe, expect, it } from 'vitest';
import { analyzeNetwork } from '../../../src/model/network/analyzeNetwork.js';
import { chooseLaw, isLawChoice } from '../../../src/model/network/lawChoice.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';

type Service = NetworkModel['services'][number];

/** One class with k = 1; services μ = 100, m = 10, 30 ms per-try timeouts unless overridden. */
function network(...services: Partial<Service>[]): NetworkModel {
  return {
    classes: [{ name: 'users', retryLimit: 1, meanBackoffs: [0.1] }],
    services: services.map((s, i) => ({
      name: `s${i}`,
      capacity: 100,
      queue: 10,
      model: 'mm1m',
      arrivals: [i === 0 ? 40 : 0],
      retryLimits: [1],
      routes: [],
      timeouts: [0.03],
      ...s,
    })),
  };
}

describe('chooseLaw', () => {
  it('takes the orbit law where it was measured nearer: timed M/M/1/m services, alone or routing', () => {
    expect(chooseLaw(network({})).law).toBe('orbit');
    expect(chooseLaw(network({ routes: [{ to: 1, p: 0.8 }] }, {})).law).toBe('orbit');
    // The mixed law is the M/M/1/m queue's mean-field reading: the orbit law models that queue.
    expect(chooseLaw(network({ model: 'mixed' })).law).toBe('orbit');
  });

  it('keeps the mean field elsewhere, and says why', () => {
    expect(chooseLaw(network({ timeouts: [undefined] }))).toEqual({
      law: 'mean-field',
      why: 'no per-try timeout',
    });
    expect(chooseLaw(network({ model: 'fluid' })).why).toBe('a queue law other than M/M/1/m');
    expect(
      chooseLaw(network({ routes: [{ to: 1, p: 0.6 }] }, { routes: [{ to: 0, p: 0.3 }] })),
    ).toEqual({ law: 'mean-field', why: 'requests are routed round a cycle' });
    expect(chooseLaw(network({ calls: [{ to: 1, n: 1 }] }, {})).why).toBe('a call graph');
  });

  it('takes a law asked for by name as it is', () => {
    expect(chooseLaw(network({ timeouts: [undefined] }), 'orbit')).toEqual({
      law: 'orbit',
      why: 'asked for',
    });
    expect(chooseLaw(network({}), 'mean-field').law).toBe('mean-field');
    expect(isLawChoice('auto')).toBe(true);
    expect(isLawChoice('second-order')).toBe(false);
  });

  it('drives analyzeNetwork: auto gives the named law’s figures and says which', () => {
    const timed = network({});
    const auto = analyzeNetwork(timed, { law: 'auto' });
    const orbit = analyzeNetwork(timed, { law: 'orbit' });
    expect(auto.law).toBe('orbit');
    expect(auto.endToEnd.users?.rejection).toBe(orbit.endToEnd.users?.rejection);
    const library = analyzeNetwork(timed);
    expect([library.law, library.lawReason]).toEqual(['mean-field', 'the default']);
  });
});
