import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/index.js';
import { withServices } from './parseNetworkFixtures.js';

// Whole network files that parse: the defaults filled in, every optional field kept.

describe('parseNetwork: valid files', () => {
  it('applies every default', () => {
    const network = parseNetwork(
      withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { high: 1 }',
          '    calls: [{ to: b }]',
          '  - { name: b, capacity: 20, queue: 3 }',
        ].join('\n'),
      ),
      'net.yaml',
    );
    expect(network).toStrictEqual({
      model: 'mixed',
      classes: [
        { name: 'high', retries: 5, weight: 1 },
        { name: 'low', retries: 1, weight: 1 },
      ],
      services: [
        {
          name: 'a',
          capacity: 10,
          queue: 5,
          arrivals: { high: 1 },
          serviceTime: { dist: 'exponential' },
          residual: false,
          calls: [{ to: 'b', n: 1, mode: 'sequential' }],
        },
        {
          name: 'b',
          capacity: 20,
          queue: 3,
          arrivals: {},
          serviceTime: { dist: 'exponential' },
          residual: false,
        },
      ],
    });
  });

  it('keeps every optional field that is given', () => {
    const network = parseNetwork(
      [
        'name: n',
        'description: d',
        'model: fluid',
        'backoff: { kind: random, meanMs: 100 }',
        'classes:',
        '  - name: high',
        '    retries: 5',
        '    backoff: { kind: exponential, baseMs: 50, factor: 1.5, maxMs: 800, jitter: decorrelated }',
        '    timeoutMs: 250',
        '    weight: 10',
        'services:',
        '  - name: a',
        '    capacity: 10',
        '    queue: 5',
        '    arrivals: { high: 1 }',
        '    retries: { high: 0 }',
        '    model: mm1m',
        '    serviceTime: { dist: hyperexponential, scv: 4 }',
        '    residual: true',
        '    routes: [{ to: a, p: 0.5, class: high }]',
      ].join('\n'),
      'net.yaml',
    );
    expect(network.name).toBe('n');
    expect(network.description).toBe('d');
    expect(network.model).toBe('fluid');
    expect(network.backoff).toStrictEqual({ kind: 'random', meanMs: 100 });
    expect(network.classes[0]).toStrictEqual({
      name: 'high',
      retries: 5,
      backoff: { kind: 'exponential', baseMs: 50, factor: 1.5, maxMs: 800, jitter: 'decorrelated' },
      timeoutMs: 250,
      weight: 10,
    });
    expect(network.services[0]).toMatchObject({
      retries: { high: 0 },
      model: 'mm1m',
      serviceTime: { dist: 'hyperexponential', scv: 4 },
      residual: true,
      routes: [{ to: 'a', p: 0.5, class: 'high' }],
    });
  });

  it('accepts routes with cycles and probabilities that sum to 1 up to rounding', () => {
    const network = parseNetwork(
      withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { low: 1 }',
          '    routes: [{ to: b, p: 0.1 }, { to: b, p: 0.2 }, { to: a, p: 0.7 }]',
          // b lets half of what it serves leave: a row of 1 at a alone is no closed set.
          '  - { name: b, capacity: 20, queue: 3, routes: [{ to: a, p: 0.5 }] }',
        ].join('\n'),
      ),
      'net.yaml',
    );
    expect(network.services).toHaveLength(2);
  });
});
