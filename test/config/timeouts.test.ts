import { describe, expect, it } from 'vitest';
import { parseNetwork, SpecError, toNetworkModel } from '../../src/config/index.js';
import { toNetworkSimulationOptions } from '../../src/experiments/simulation/networkSimulationOptions.js';
import { hopPolicies } from '../../src/sim/network/hopPolicies.js';

const FILE = `classes:
  - { name: high, retries: 5, timeoutMs: 400 }
  - { name: low, retries: 1 }
services:
  - name: api
    capacity: 1000
    queue: 50
    arrivals: { high: 10, low: 40 }
    calls: [{ to: db }]
  - name: db
    capacity: 100
    queue: 50
    timeouts: { low: 100 }
`;

describe('per-try timeouts per class and hop in a network file', () => {
  it('a service names the timeout of calls into it per class; the class default fills in the rest', () => {
    const model = toNetworkModel(parseNetwork(FILE, 'net.yaml'));
    // Seconds, per class: api has the high class's 400 ms only; db adds low's 100 ms.
    expect(model.services[0]?.timeouts).toEqual([0.4, undefined]);
    expect(model.services[1]?.timeouts).toEqual([0.4, 0.1]);
  });

  it('--timeout replaces every hop and class', () => {
    const model = toNetworkModel(parseNetwork(FILE, 'net.yaml'), { timeoutMs: 50 });
    for (const service of model.services) expect(service.timeouts).toEqual([0.05, 0.05]);
  });

  it('no timeout anywhere leaves the model without timeouts', () => {
    const model = toNetworkModel(
      parseNetwork(
        'classes: [{ name: c, retries: 1 }]\nservices: [{ name: s, capacity: 1, queue: 1, arrivals: { c: 1 } }]\n',
        'n.yaml',
      ),
    );
    expect(model.services[0]?.timeouts).toBeUndefined();
  });

  it('the simulator times each hop out as the model resolved it', () => {
    const spec = parseNetwork(FILE, 'net.yaml');
    const options = toNetworkSimulationOptions(spec, { duration: 1, seed: 1 });
    // No policy wrapper re-reading the file: the model is the one source of the hops' T.
    expect(options.retryPolicy).toBeUndefined();
    const { cellCalls } = hopPolicies(
      toNetworkModel(spec),
      options,
      'difftry',
      () => 0,
      () => 0.5,
    );
    const ms = cellCalls.map((call) => call.timeout?.next(0));
    // Cells are service × class: api (high, low), then db (high, low).
    expect(ms).toEqual([400, undefined, 400, 100]);
  });

  it('an unknown class or a non-positive timeout is one error naming the place', () => {
    expect(() =>
      parseNetwork(FILE.replace('timeouts: { low: 100 }', 'timeouts: { lo: 100 }'), 'net.yaml'),
    ).toThrow(
      /net\.yaml:13:\d+: services\[1\]\.timeouts\.lo: expected a declared class \(high, low\), got "lo"/,
    );
    expect(() =>
      parseNetwork(FILE.replace('timeouts: { low: 100 }', 'timeouts: { low: 0 }'), 'net.yaml'),
    ).toThrow(SpecError);
  });
});
