import { describe, expect, it } from 'vitest';
import {
  type BadInput,
  eachGivesOneClearLine,
  specErrorOf,
  withServices,
} from './parseNetworkFixtures.js';

// How services are joined: `routes` (probabilities, closed classes) and `calls` (a DAG), never
// both, and only to declared services and classes.

describe('parseNetwork: each bad input gives one clear line', () => {
  // Every case: the text, then the exact message. Line and column are 1-based.
  const cases: BadInput[] = [
    {
      name: 'route probabilities over 1',
      text: withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { high: 1 }',
          '    routes:',
          '      - { to: b, p: 0.6 }',
          '      - { to: b, p: 0.6, class: low }',
          '  - { name: b, capacity: 1, queue: 1 }',
        ].join('\n'),
      ),
      message:
        'net.yaml:9:5: services[0].routes: route probabilities for class low sum to 1.2, expected at most 1',
      path: 'services[0].routes',
      line: 9,
    },
    {
      name: 'a class routed into services it can never leave (ρ(F) = 1)',
      text: withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { high: 1 }',
          '    routes:',
          '      - { to: b, p: 1 }',
          '  - name: b',
          '    capacity: 10',
          '    queue: 5',
          '    routes:',
          '      - { to: a, p: 0.5 }',
          '      - { to: a, p: 0.5, class: low }',
        ].join('\n'),
      ),
      message:
        'net.yaml:9:5: services[0].routes: class low: requests routed into a, b can never leave (their route probabilities sum to 1 around a cycle), so ρ(F) = 1; the standard equations need ρ(F) < 1',
      path: 'services[0].routes',
      line: 9,
    },
    {
      name: 'calls with a cycle',
      text: withServices(
        [
          '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, calls: [{ to: b }] }',
          '  - { name: b, capacity: 1, queue: 1, calls: [{ to: c }] }',
          '  - { name: c, capacity: 1, queue: 1, calls: [{ to: a }] }',
        ].join('\n'),
      ),
      message:
        'net.yaml:7:53: services[2].calls[0].to: calls form a cycle a → b → c → a, expected calls without cycles (a DAG)',
      path: 'services[2].calls[0].to',
      line: 7,
    },
    {
      name: 'a service that calls itself',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, calls: [{ to: a }] }',
      ),
      message:
        'net.yaml:5:76: services[0].calls[0].to: calls form a cycle a → a, expected calls without cycles (a DAG)',
      path: 'services[0].calls[0].to',
      line: 5,
    },
    {
      name: 'routes in one service and calls in another',
      text: withServices(
        [
          '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, routes: [{ to: b, p: 1 }] }',
          '  - { name: b, capacity: 1, queue: 1, calls: [{ to: c }] }',
          '  - { name: c, capacity: 1, queue: 1 }',
        ].join('\n'),
      ),
      message:
        'net.yaml:6:39: services[1].calls: a network uses routes or calls, not both: services[0] (a) has routes, this service has calls',
      path: 'services[1].calls',
      line: 6,
    },
    {
      name: 'routes and calls in one service',
      text: withServices(
        '  - name: a\n    capacity: 1\n    queue: 1\n    arrivals: { high: 1 }\n    routes: []\n    calls: []',
      ),
      message: 'net.yaml:10:5: services[0].calls: a service has routes or calls, not both',
      path: 'services[0].calls',
      line: 10,
    },
    {
      name: 'a route to an undeclared service',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, routes: [{ to: serch, p: 0.5 }] }',
      ),
      message:
        'net.yaml:5:77: services[0].routes[0].to: expected a declared service (a), got "serch"',
      path: 'services[0].routes[0].to',
      line: 5,
    },
    {
      name: 'a call for an undeclared class',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, calls: [{ to: b, class: mid }] }\n  - { name: b, capacity: 1, queue: 1 }',
      ),
      message:
        'net.yaml:5:86: services[0].calls[0].class: expected a declared class (high, low), got "mid"',
      path: 'services[0].calls[0].class',
      line: 5,
    },
  ];

  eachGivesOneClearLine(cases);

  it('reports the route sum once the probabilities themselves are valid', () => {
    const error = specErrorOf(
      withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, routes: [{ to: a, p: 1.5 }] }',
      ),
    );
    expect(error.issues.map((i) => i.problem)).toStrictEqual([
      'expected a probability in [0, 1], got 1.5',
    ]);
  });
});
