import { describe, expect, it } from 'vitest';
import { builtinExample } from '../../../src/config/examples.js';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { meshPlan } from '../../../src/deploy/meshPlan.js';

// The mapping every mesh generator reads, checked against what the network files say by hand.

const hotel = () => {
  const { text, fileName } = builtinExample('hotel-calls');
  return parseNetwork(text, fileName);
};

const OVERRIDES = `
classes:
  - { name: gold, retries: 3, timeoutMs: 200, backoff: { kind: constant, delayMs: 20 } }
  - { name: bronze, retries: 2 }
backoff: { kind: random, meanMs: 40 }
services:
  - { name: a, capacity: 10, queue: 7, arrivals: { gold: 1, bronze: 1 }, calls: [{ to: b }] }
  - { name: b, capacity: 10, queue: 5, retries: { gold: 1 } }
`;

describe('meshPlan', () => {
  it("gives every hop of hotelReservation each class's limit, the default class to the rest", () => {
    const plan = meshPlan(hotel());
    expect(plan.header).toBe('x-priority');
    expect(plan.classes).toEqual(['high', 'low']);
    expect(plan.defaultClass).toBe('low');
    expect(plan.retryStatuses).toEqual([503, 429]);
    expect(plan.retryMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
    const frontend = plan.services[0];
    expect(frontend?.name).toBe('frontend');
    expect(frontend?.upstreams.map((u) => u.service)).toEqual([
      'search',
      'reservation',
      'profile',
      'recommendation',
      'user',
    ]);
    for (const upstream of plan.services.flatMap((s) => s.upstreams)) {
      expect(upstream.classes.map((c) => [c.className, c.retries])).toEqual([
        ['high', 5],
        ['low', 1],
      ]);
      expect(upstream.unclassified.className).toBe('low');
    }
    expect(plan.services.map((s) => [s.name, s.edge, s.concurrency, s.capacity])).toEqual([
      ['frontend', true, 1, 50],
      ['search', false, 1, 50],
      ['geo', false, 1, 50],
      ['rate', false, 1, 50],
      ['reservation', false, 1, 50],
      ['profile', false, 1, 50],
      ['recommendation', false, 1, 50],
      ['user', false, 1, 50],
    ]);
    expect(plan.services.find((s) => s.name === 'search')?.upstreams.map((u) => u.service)).toEqual(
      ['geo', 'rate'],
    );
  });

  it("takes a service's own retries, the class's timeout and backoff, else the file's", () => {
    const plan = meshPlan(parseNetwork(OVERRIDES, 'overrides.yaml'), {
      edgeRules: [{ header: 'x-tier', value: 'gold', class: 'gold' }],
    });
    const [a, b] = plan.services;
    expect(a?.upstreams).toEqual([
      {
        service: 'b',
        classes: [
          {
            className: 'gold',
            retries: 1,
            perTryTimeoutMs: 200,
            backoff: { kind: 'constant', delayMs: 20 },
          },
          {
            className: 'bronze',
            retries: 2,
            perTryTimeoutMs: undefined,
            backoff: { kind: 'random', meanMs: 40 },
          },
        ],
        unclassified: {
          className: 'bronze',
          retries: 2,
          perTryTimeoutMs: undefined,
          backoff: { kind: 'random', meanMs: 40 },
        },
      },
    ]);
    expect(a?.edge).toBe(true);
    expect(a?.edgeRules).toEqual([{ className: 'gold', header: 'x-tier', value: 'gold' }]);
    expect(a?.edgeDefault).toBe('bronze');
    expect([a?.capacity, b?.capacity]).toEqual([7, 5]);
    expect(b?.edge).toBe(false);
    expect(b?.upstreams).toEqual([]);
    // A call into b is the same from any caller; a has no override, so it keeps the classes'.
    expect(b?.calls).toEqual(a?.upstreams[0]?.classes);
    expect(a?.calls.map((hop) => [hop.className, hop.retries])).toEqual([
      ['gold', 3],
      ['bronze', 2],
    ]);
  });
});
