import { describe, expect, it } from 'vitest';
import { toNetworkSimulationOptions } from '../../src/experiments/simulation/networkSimulationOptions.js';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { parseNetwork, SpecError, toNetworkModel } from '../../src/spec/index.js';

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

  it('the simulator gives the same timeouts to the clients of each hop', () => {
    const spec = parseNetwork(FILE, 'net.yaml');
    const options = toNetworkSimulationOptions(spec, { duration: 1, seed: 1 });
    const build = options.retryPolicy;
    expect(build).toBeDefined();
    const policyOptions = {
      classes: { high: { retries: 5 }, low: { retries: 1 } },
      defaultClass: 'low',
      clock: () => 0,
      random: () => 0.5,
    };
    const intoApi = build?.(0, policyOptions as never) ?? retryPolicy(policyOptions);
    const intoDb = build?.(1, policyOptions as never) ?? retryPolicy(policyOptions);
    expect([intoApi.timeoutMs('high'), intoApi.timeoutMs('low')]).toEqual([400, undefined]);
    expect([intoDb.timeoutMs('high'), intoDb.timeoutMs('low')]).toEqual([400, 100]);
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
