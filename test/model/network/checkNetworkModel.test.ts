import { describe, expect, it } from 'vitest';
import { analyzeNetwork } from '../../../src/model/network/analyzeNetwork.js';
import { checkNetworkModel } from '../../../src/model/network/checkNetworkModel.js';
import type { NetworkModel, NetworkService } from '../../../src/model/network/NetworkModel.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';

// One check of a network model, run by the analysis and by the simulator alike: the same network
// is refused by both with the same message.

const service = (name: string, extra: Partial<NetworkService> = {}): NetworkService => ({
  name,
  capacity: 10,
  queue: 5,
  model: 'mixed',
  arrivals: [1],
  retryLimits: [1],
  routes: [],
  ...extra,
});
const network = (services: NetworkService[], mode?: 'routing' | 'calls'): NetworkModel => ({
  classes: [{ name: 'only', retryLimit: 1 }],
  services,
  ...(mode && { mode }),
});

const broken: [string, NetworkModel, RegExp][] = [
  ['no service', network([]), /at least one service/],
  ['a zero capacity', network([service('a', { capacity: 0 })]), /services\[0\] \(a\)\.capacity/],
  ['a negative rate', network([service('a', { arrivals: [-1] })]), /arrivals\[0\] should be/],
  ['a fractional limit', network([service('a', { retryLimits: [1.5] })]), /retryLimits\[0\]/],
  [
    'an unknown target',
    network([service('a', { routes: [{ to: 3, p: 0.5 }] })]),
    /unknown service index 3/,
  ],
  [
    'routes over 1',
    network([
      service('a', {
        routes: [
          { to: 1, p: 0.6 },
          { to: 1, p: 0.5 },
        ],
      }),
      service('b'),
    ]),
    /routes of class only should sum to at most 1, got 1\.1/,
  ],
  [
    'calls in routing mode',
    network([service('a', { calls: [{ to: 1, n: 1 }] }), service('b')], 'routing'),
    /has calls in a routing-mode network/,
  ],
  [
    'a call cycle',
    network(
      [service('a', { calls: [{ to: 1, n: 1 }] }), service('b', { calls: [{ to: 0, n: 1 }] })],
      'calls',
    ),
    /calls must form a DAG/,
  ],
  [
    'a call count of 0',
    network([service('a', { calls: [{ to: 1, n: 0 }] }), service('b')], 'calls'),
    /call count n 0/,
  ],
  [
    'branches over 1',
    network(
      [
        service('a', {
          branches: [
            { p: 0.6, calls: [] },
            { p: 0.6, calls: [] },
          ],
        }),
      ],
      'calls',
    ),
    /branches should sum to at most 1/,
  ],
];

describe('checkNetworkModel', () => {
  it.each(broken)(
    'refuses %s, in the analysis and the simulator with one message',
    (_, model, message) => {
      expect(() => checkNetworkModel(model)).toThrow(message);
      expect(() => analyzeNetwork(model)).toThrow(message);
      expect(() => simulateNetwork(model, { duration: 1, seed: 1 })).toThrow(message);
    },
  );

  it('accepts route sums within the tolerance of 1 and a valid call graph', () => {
    const third = 1 / 3;
    expect(() =>
      checkNetworkModel(
        network([
          service('a', {
            routes: [
              { to: 1, p: third },
              { to: 1, p: third },
              { to: 1, p: third },
            ],
          }),
          service('b'),
        ]),
      ),
    ).not.toThrow();
    expect(() =>
      checkNetworkModel(
        network([service('a', { calls: [{ to: 1, n: 2 }] }), service('b')], 'calls'),
      ),
    ).not.toThrow();
  });
});
