import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  CYCLIC_MAX_ROUTE_SUM,
  compactNetwork,
  generateCyclic,
  generateDgg,
  generateMuBench,
  generateNetwork,
  QUEUE_SIZES,
} from '../../../src/config/generators/index.js';
import { type NetworkSpec, parseNetwork } from '../../../src/config/index.js';
import { seededRandom } from '../../../src/model/random.js';
import { edgesOf, hasCycle, longestDepths, reachable, solveVisits } from './networkGraph.js';

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const classes = fc.integer({ min: 1, max: 6 });
const form = fc.constantFrom('routes' as const, 'calls' as const);
const RUNS = { numRuns: 60 };

/** Route probabilities written by the generators may exceed their bound by rounding this much. */
const SUM_TOLERANCE = 1e-9;

/** The same value as plain JSON data, as the parser returns it. */
const plain = (network: NetworkSpec): NetworkSpec => JSON.parse(JSON.stringify(network));

/** Total route probability leaving each service (0 for calls and leaves). */
const routeSums = (network: NetworkSpec) =>
  network.services.map((s) => (s.routes ?? []).reduce((total, r) => total + r.p, 0));

/** Every generated network, in both written forms, parses back to itself. */
function expectRoundTrip(network: NetworkSpec): void {
  const yaml = stringify(network);
  expect(parseNetwork(yaml, 'generated.yaml'), yaml).toStrictEqual(plain(network));
  const compact = stringify(compactNetwork(network));
  expect(parseNetwork(compact, 'compact.yaml'), compact).toStrictEqual(plain(network));
  const json = JSON.stringify(compactNetwork(network));
  expect(parseNetwork(json, 'compact.json')).toStrictEqual(plain(network));
}

/**
 * The common contract: classes, arrivals only at the entry, queues, and capacities that give
 * each service a utilisation in [0.3, 1.6] against visits solved independently here.
 */
function expectCommonShape(network: NetworkSpec, classCount: number): void {
  expect(network.model).toBe('mixed');
  expect(network.classes).toHaveLength(classCount);
  const names = network.classes.map((c) => c.name);
  expect(names).toEqual(classCount === 2 ? ['high', 'low'] : names.map((_, i) => `c${i + 1}`));
  const limits = network.classes.map((c) => c.retries);
  expect(limits[0]).toBe(5);
  for (const [i, limit] of limits.entries()) {
    if (i > 0) expect(limit).toBeLessThanOrEqual(limits[i - 1] ?? 0);
  }
  expect(network.classes.every((c) => c.backoff === undefined)).toBe(true);

  const [entry, ...rest] = network.services;
  expect(entry?.name).toBe('frontend');
  expect(Object.keys(entry?.arrivals ?? {})).toEqual(names);
  expect(rest.every((s) => Object.keys(s.arrivals).length === 0)).toBe(true);
  expect(network.services.every((s) => QUEUE_SIZES.includes(s.queue))).toBe(true);

  const edges = edgesOf(network);
  expect(reachable(edges).size).toBe(network.services.length);
  if (network.services.length <= 60) {
    const total = Object.values(entry?.arrivals ?? {}).reduce((a, b) => a + b, 0);
    const visits = solveVisits(edges);
    network.services.forEach((service, i) => {
      const utilisation = ((visits[i] ?? 0) * total) / service.capacity;
      // Capacities have 4 significant digits: a relative error of at most 5e-4.
      expect(utilisation, service.name).toBeGreaterThanOrEqual(0.3 * (1 - 1e-3));
      expect(utilisation, service.name).toBeLessThanOrEqual(1.6 * (1 + 1e-3));
    });
  }
}

describe('generateMuBench', () => {
  it('builds a valid DAG in either form, rooted at frontend, that parses back to itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), classes, seed, form, (n, p, s, f) => {
        const network = generateMuBench({ services: n, classes: p, seed: s, form: f });
        expect(network.services).toHaveLength(n);
        const edges = edgesOf(network);
        expect(hasCycle(edges)).toBe(false);
        if (f === 'routes') {
          expect(network.services.every((x) => x.calls === undefined)).toBe(true);
          for (const sum of routeSums(network)) expect(sum).toBeLessThanOrEqual(1);
          for (const [i, sum] of routeSums(network).entries()) {
            if ((edges[i] ?? []).length > 0) {
              expect(sum).toBeGreaterThanOrEqual(0.3 - 1e-3);
              expect(sum).toBeLessThanOrEqual(0.95 + SUM_TOLERANCE);
            }
          }
        } else {
          expect(network.services.every((x) => x.routes === undefined)).toBe(true);
          const counts = network.services.flatMap((x) => (x.calls ?? []).map((c) => c.n));
          expect(counts.every((c) => c === 1 || c === 2)).toBe(true);
        }
        expectCommonShape(network, p);
        expectRoundTrip(network);
      }),
      RUNS,
    );
  });

  it('has database leaves, about 10 % of the services, and one shared by ≥ 2 callers from 10 services', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 300 }), seed, form, (n, s, f) => {
        const network = generateMuBench({ services: n, seed: s, form: f });
        const databases = network.services.filter((x) => x.name.startsWith('db'));
        expect(databases.length).toBe(Math.min(Math.max(1, Math.round(n / 10)), n - 1));
        for (const db of databases) {
          expect(db.routes ?? db.calls ?? []).toEqual([]);
        }
        const callers = new Map(databases.map((db) => [db.name, 0]));
        for (const service of network.services) {
          for (const edge of [...(service.routes ?? []), ...(service.calls ?? [])]) {
            if (callers.has(edge.to)) callers.set(edge.to, (callers.get(edge.to) ?? 0) + 1);
          }
        }
        expect([...callers.values()].every((count) => count >= 1)).toBe(true);
        if (n >= 10) {
          expect([...callers.values()].some((count) => count >= 2)).toBe(true);
        }
        const names = network.services.map((x) => x.name);
        expect(names.slice(0, n - databases.length)).toEqual(
          names.slice(0, n - databases.length).map((_, i) => (i === 0 ? 'frontend' : `svc${i}`)),
        );
      }),
      RUNS,
    );
  });

  it('is a lone frontend for one service', () => {
    const network = generateMuBench({ services: 1, seed: 4 });
    expect(network.services.map((s) => s.name)).toEqual(['frontend']);
    expectRoundTrip(network);
  });

  it('handles 10 000 services', () => {
    const network = generateMuBench({ services: 10_000, classes: 3, seed: 11 });
    expect(hasCycle(edgesOf(network))).toBe(false);
    expectCommonShape(network, 3);
    // One round trip: the file as the CLI writes it.
    const text = stringify(compactNetwork(network));
    expect(parseNetwork(text, 'large.yaml')).toStrictEqual(plain(network));
  });
});

describe('generateDgg', () => {
  it('builds a small DAG within DGG’s limits: 2–7 services, depth ≤ 5, fan-out ≤ 5', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 7 }), classes, seed, form, (n, p, s, f) => {
        const network = generateDgg({ services: n, classes: p, seed: s, form: f });
        expect(network.services).toHaveLength(n);
        const edges = edgesOf(network);
        expect(hasCycle(edges)).toBe(false);
        expect(Math.max(...longestDepths(edges))).toBeLessThanOrEqual(5);
        expect(Math.max(...edges.map((list) => list.length))).toBeLessThanOrEqual(5);
        expect(new Set(edges.flatMap((list) => list.map((e) => e.to))).size).toBe(n - 1);
        for (const sum of routeSums(network)) expect(sum).toBeLessThanOrEqual(0.95 + SUM_TOLERANCE);
        expectCommonShape(network, p);
        expectRoundTrip(network);
      }),
      { numRuns: 200 },
    );
  });

  it('sometimes shares a service between two callers, and sometimes reaches depth 5', () => {
    const networks = Array.from({ length: 300 }, (_, s) => generateDgg({ services: 7, seed: s }));
    const edges = networks.map(edgesOf);
    const shared = edges.filter((e) => e.flat().length > 6);
    expect(shared.length).toBeGreaterThan(30);
    expect(edges.some((e) => Math.max(...longestDepths(e)) === 5)).toBe(true);
  });
});

describe('generateCyclic', () => {
  it('adds back edges that close cycles, with every route sum ≤ 0.95', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 60 }), classes, seed, (n, p, s) => {
        const network = generateCyclic({ services: n, classes: p, seed: s });
        const edges = edgesOf(network);
        expect(hasCycle(edges)).toBe(true);
        expect(network.services.every((x) => x.calls === undefined)).toBe(true);
        for (const sum of routeSums(network)) {
          expect(sum).toBeLessThanOrEqual(CYCLIC_MAX_ROUTE_SUM + SUM_TOLERANCE);
        }
        const backEdges = edges.flatMap((list, from) => list.filter((e) => e.to < from));
        expect(backEdges).toHaveLength(Math.max(1, Math.round(n / 10)));
        expectCommonShape(network, p);
        expectRoundTrip(network);
      }),
      RUNS,
    );
  });

  it('takes the number of back edges, each from a different service', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 60 }),
        fc.integer({ min: 1, max: 8 }),
        seed,
        (n, b, s) => {
          const network = generateCyclic({ services: n, backEdges: b, seed: s });
          const edges = edgesOf(network);
          const sources = edges.flatMap((list, from) =>
            list.filter((e) => e.to < from).map(() => from),
          );
          expect(sources).toHaveLength(b);
          expect(new Set(sources).size).toBe(b);
          const databases = network.services.filter((x) => x.name.startsWith('db'));
          expect(databases.every((db) => db.routes === undefined)).toBe(true);
        },
      ),
      RUNS,
    );
  });
});

describe('every generator', () => {
  const kinds = ['mubench', 'dgg', 'cyclic'] as const;
  const sizes = { mubench: 30, dgg: 6, cyclic: 30 };

  it('gives the same network for the same seed and a different one for another', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), seed, seed, (kind, a, b) => {
        fc.pre(a !== b);
        const options = { services: sizes[kind], classes: 2 };
        const first = generateNetwork(kind, { ...options, seed: a });
        expect(generateNetwork(kind, { ...options, seed: a })).toStrictEqual(first);
        const other = generateNetwork(kind, { ...options, seed: b });
        expect({ ...other, description: '' }).not.toEqual({ ...first, description: '' });
      }),
      RUNS,
    );
  });

  it('uses an injected random source in place of the seed', () => {
    for (const kind of kinds) {
      const seeded = generateNetwork(kind, { services: sizes[kind], seed: 42 });
      const injected = generateNetwork(kind, { services: sizes[kind], random: seededRandom(42) });
      expect({ ...injected, description: '' }).toStrictEqual({ ...seeded, description: '' });
      expect(injected.description).toContain('injected random source');
    }
  });

  it('splits 300 requests/s 1 : 5 between high and low, evenly otherwise', () => {
    expect(generateMuBench({ services: 3, seed: 1 }).services[0]?.arrivals).toEqual({
      high: 50,
      low: 250,
    });
    expect(
      generateDgg({ services: 3, classes: 3, seed: 1, arrivalRate: 90 }).services[0]?.arrivals,
    ).toEqual({ c1: 30, c2: 30, c3: 30 });
    expect(generateCyclic({ services: 3, classes: 4, seed: 1 }).classes).toEqual([
      { name: 'c1', retries: 5, weight: 1 },
      { name: 'c2', retries: 3, weight: 1 },
      { name: 'c3', retries: 1, weight: 1 },
      { name: 'c4', retries: 0, weight: 1 },
    ]);
  });

  it('rejects bad options with a RangeError naming the value', () => {
    const cases: [() => unknown, RegExp][] = [
      [
        () => generateMuBench({ services: 0 }),
        /services should be an integer from 1 to 10000.*got 0/,
      ],
      [() => generateMuBench({ services: 10_001 }), /services .*got 10001/],
      [() => generateMuBench({ services: 2.5 }), /services .*got 2.5/],
      [
        () => generateMuBench({ services: 5, classes: 0 }),
        /classes should be an integer from 1 to 20, got 0/,
      ],
      [() => generateMuBench({ services: 5, classes: 21 }), /classes .*got 21/],
      [() => generateMuBench({ services: 5, seed: 0.5 }), /seed should be a safe integer, got 0.5/],
      [() => generateMuBench({ services: 5, arrivalRate: -1 }), /arrivalRate .*got -1/],
      [
        () => generateDgg({ services: 1 }),
        /services should be an integer from 2 to 7 for a DGG network, got 1/,
      ],
      [() => generateDgg({ services: 8 }), /got 8/],
      [
        () => generateCyclic({ services: 1 }),
        /services should be an integer from 2 to 10000.*got 1/,
      ],
      [
        () => generateCyclic({ services: 20, backEdges: 0 }),
        /backEdges should be an integer from 1 to 17 for 20 services, got 0/,
      ],
      [() => generateCyclic({ services: 20, backEdges: 18 }), /backEdges .*got 18/],
      [
        () => generateNetwork('mesh' as 'dgg', { services: 3 }),
        /kind should be one of mubench, dgg, cyclic, got mesh/,
      ],
      [
        () => generateNetwork('cyclic', { services: 3, form: 'calls' }),
        /form should be routes for a cyclic network/,
      ],
      [
        () => generateNetwork('dgg', { services: 3, backEdges: 1 }),
        /backEdges applies only to cyclic/,
      ],
      [
        () => generateMuBench({ services: 3, form: 'graph' as 'calls' }),
        /form should be one of routes, calls, got graph/,
      ],
    ];
    for (const [generate, message] of cases) {
      expect(generate).toThrow(RangeError);
      expect(generate).toThrow(message);
    }
  });
});
