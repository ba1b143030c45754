import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  type BackoffSpec,
  type CallSpec,
  type ClassSpec,
  type NetworkSpec,
  parseNetwork,
  type RouteSpec,
  type ServiceSpec,
  type ServiceTimeSpec,
} from '../../src/config/index.js';

// Valid networks in their parsed form (every default written out), so that writing one and
// parsing it back must give the very same value.

const positive = (max = 1e6) => fc.double({ min: 0, minExcluded: true, max, noNaN: true });
const nonNegative = (max = 1e6) => fc.double({ min: 0, max, noNaN: true });
const name = fc.string({ minLength: 1, maxLength: 8 });
/** A class name is an HTTP token (RFC 9110 §5.6.2), any of its characters. */
const tokenName = fc.string({
  unit: fc.constantFrom(...`!#$%&'*+-.^_\`|~0123456789ABCXYZabcxyz`),
  minLength: 1,
  maxLength: 8,
});

const backoff: fc.Arbitrary<BackoffSpec> = fc.oneof(
  fc.record({ kind: fc.constant('constant' as const), delayMs: nonNegative() }),
  fc
    .record(
      {
        kind: fc.constant('exponential' as const),
        baseMs: positive(1e4),
        factor: fc.double({ min: 1, max: 10, noNaN: true }),
        extraMs: nonNegative(1e4),
        jitter: fc.constantFrom('none', 'full', 'equal', 'decorrelated'),
      },
      { requiredKeys: ['kind', 'baseMs'] },
    )
    .map(({ extraMs, ...b }) => (extraMs === undefined ? b : { ...b, maxMs: b.baseMs + extraMs })),
  fc.record({ kind: fc.constant('random' as const), meanMs: positive(1e4) }),
);

const serviceTime: fc.Arbitrary<ServiceTimeSpec> = fc.oneof(
  fc.constant({ dist: 'exponential' as const }),
  fc.constant({ dist: 'deterministic' as const }),
  fc.record({
    dist: fc.constant('hyperexponential' as const),
    scv: fc.double({ min: 1, minExcluded: true, max: 100, noNaN: true }),
  }),
  fc.record({ dist: fc.constant('lognormal' as const), scv: positive(100) }),
);

const retries = fc.integer({ min: 0, max: 100 });

function classOf(className: string): fc.Arbitrary<ClassSpec> {
  return fc.record(
    {
      name: fc.constant(className),
      retries,
      backoff,
      timeoutMs: positive(),
      weight: positive(),
    },
    { requiredKeys: ['name', 'retries', 'weight'] },
  );
}

/** Routes whose probabilities sum to at most 1 for every class (each at most 1/3, at most 3). */
function routesTo(services: readonly string[], classes: readonly string[]) {
  return fc.array(
    fc.record(
      {
        to: fc.constantFrom(...services),
        p: fc.double({ min: 0, max: 1 / 3, noNaN: true }),
        class: fc.constantFrom(...classes),
      },
      { requiredKeys: ['to', 'p'] },
    ) satisfies fc.Arbitrary<RouteSpec>,
    { maxLength: 3 },
  );
}

/** Calls only to later services, so that they form a DAG. */
function callsTo(later: readonly string[], classes: readonly string[]): fc.Arbitrary<CallSpec[]> {
  if (later.length === 0) return fc.constant([]);
  return fc.array(
    fc.record(
      {
        to: fc.constantFrom(...later),
        n: fc.integer({ min: 1, max: 5 }),
        class: fc.constantFrom(...classes),
        mode: fc.constantFrom('sequential', 'parallel'),
      },
      { requiredKeys: ['to', 'n', 'mode'] },
    ) satisfies fc.Arbitrary<CallSpec>,
    { maxLength: 3 },
  );
}

function serviceOf(
  index: number,
  services: readonly string[],
  classes: readonly string[],
  mode: 'routes' | 'calls',
): fc.Arbitrary<ServiceSpec> {
  const serviceName = services[index] ?? '';
  const classRates = fc
    .subarray([...classes])
    .chain((present) => fc.tuple(...present.map((c) => fc.tuple(fc.constant(c), nonNegative()))))
    .map((entries) => Object.fromEntries(entries));
  // The first service always has traffic, so that the network has some.
  const arrivals =
    index === 0
      ? fc
          .tuple(classRates, positive())
          .map(([rates, rate]) => ({ ...rates, [classes[0] ?? '']: rate }))
      : classRates;
  const retryOverrides = fc
    .subarray([...classes])
    .chain((present) => fc.tuple(...present.map((c) => fc.tuple(fc.constant(c), retries))))
    .map((entries) => Object.fromEntries(entries));
  const fields = {
    name: fc.constant(serviceName),
    capacity: positive(),
    queue: fc.integer({ min: 1, max: 1000 }),
    arrivals,
    retries: retryOverrides,
    model: fc.constantFrom('fluid', 'mm1m', 'mixed'),
    serviceTime,
    residual: fc.boolean(),
  };
  const requiredKeys = [
    'name',
    'capacity',
    'queue',
    'arrivals',
    'serviceTime',
    'residual',
  ] as const;
  return mode === 'routes'
    ? fc.record(
        { ...fields, routes: routesTo(services, classes) },
        { requiredKeys: [...requiredKeys] },
      )
    : fc.record(
        { ...fields, calls: callsTo(services.slice(index + 1), classes) },
        { requiredKeys: [...requiredKeys] },
      );
}

const network: fc.Arbitrary<NetworkSpec> = fc
  .tuple(
    fc.uniqueArray(tokenName, { minLength: 1, maxLength: 3 }),
    fc.uniqueArray(name, { minLength: 1, maxLength: 4 }),
    fc.constantFrom('routes' as const, 'calls' as const),
  )
  .chain(([classes, services, mode]) =>
    fc.record(
      {
        name,
        description: fc.string(),
        model: fc.constantFrom('fluid', 'mm1m', 'mixed'),
        backoff,
        classes: fc.tuple(...classes.map(classOf)),
        services: fc.tuple(...services.map((_, i) => serviceOf(i, services, classes, mode))),
      },
      { requiredKeys: ['model', 'classes', 'services'] },
    ),
  );

/**
 * The same value as plain JSON data: fast-check builds some records without a prototype, which
 * a strict comparison would tell apart from the parser's plain objects.
 */
const plain = (spec: NetworkSpec): NetworkSpec => JSON.parse(JSON.stringify(spec));

describe('round trip', () => {
  it('a valid network written as YAML parses back to itself', () => {
    fc.assert(
      fc.property(network, (spec) => {
        const text = stringify(spec);
        expect(parseNetwork(text, 'generated.yaml'), text).toStrictEqual(plain(spec));
      }),
      { numRuns: 300 },
    );
  });

  it('a valid network written as JSON parses back to itself', () => {
    fc.assert(
      fc.property(network, (spec) => {
        const text = JSON.stringify(spec, null, 2);
        expect(parseNetwork(text, 'generated.json'), text).toStrictEqual(plain(spec));
      }),
      { numRuns: 100 },
    );
  });
});
