import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BackoffDescription } from '../../src/model/backoff/BackoffDescription.js';
import { serviceTimeDistribution } from '../../src/model/distributions/index.js';
import type { ServiceTimeDescription } from '../../src/model/distributions/ServiceTimeDistribution.js';
import { replicateSingleService } from '../../src/sim/replicate.js';
import type { SingleServiceConfig } from '../../src/sim/SingleServiceConfig.js';
import { simulateSingleService } from '../../src/sim/singleService.js';

/** M/M/1/m blocking probability and mean number in system, from the closed form. */
function mm1m(rho: number, m: number): { blocking: number; meanInSystem: number } {
  if (rho === 1) return { blocking: 1 / (m + 1), meanInSystem: m / 2 };
  const top = rho ** (m + 1);
  return {
    blocking: ((1 - rho) * rho ** m) / (1 - top),
    meanInSystem: rho / (1 - rho) - ((m + 1) * top) / (1 - top),
  };
}

const twoClasses: SingleServiceConfig = {
  capacity: 143,
  queue: 50,
  classes: [
    { name: 'high', arrivalRate: 50, retryLimit: 5, backoff: { kind: 'random', meanMs: 100 } },
    { name: 'low', arrivalRate: 250, retryLimit: 1, backoff: { kind: 'random', meanMs: 100 } },
  ],
  duration: 40,
  seed: 7,
};

describe('simulateSingleService: reproducibility', () => {
  it('gives bit-identical results for the same seed, different ones for another', () => {
    const first = simulateSingleService(twoClasses);
    const second = simulateSingleService(twoClasses);
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    const other = simulateSingleService({ ...twoClasses, seed: 8 });
    expect(other.classes.low?.rejection).not.toBe(first.classes.low?.rejection);
    const otherStream = simulateSingleService({ ...twoClasses, stream: 1 });
    expect(otherStream.s).not.toBe(first.s);
  });

  it('defaults warm-up to 10 % of the window and runs until measured requests finish', () => {
    const result = simulateSingleService(twoClasses);
    expect(result.warmup).toBe(4);
    expect(result.duration).toBe(40);
    expect(result.endTime).toBeGreaterThanOrEqual(44);
    expect(result.events).toBeGreaterThan(0);
  });
});

describe('simulateSingleService: M/M/1/m closed form', () => {
  it.each([0.5, 1, 1.5, 2.5])('ρ = %f, m = 5: blocking and L within 3 × ci95', (rho) => {
    const m = 5;
    const mu = 100;
    const config: SingleServiceConfig = {
      capacity: mu,
      queue: m,
      classes: [{ name: 'only', arrivalRate: rho * mu, retryLimit: 0 }],
      duration: 200,
      warmup: 5,
      seed: 2024,
    };
    const reference = mm1m(rho, m);
    const result = replicateSingleService(config, 8);
    const only = result.classes.only;
    const context = JSON.stringify({ rho, m, mu, reference, result });
    expect(only).toBeDefined();
    if (only === undefined) return;
    expect(Math.abs(only.rejection - reference.blocking), context).toBeLessThan(
      3 * only.rejectionCi95,
    );
    expect(Math.abs(result.meanInSystem - reference.meanInSystem), context).toBeLessThan(
      3 * result.meanInSystemCi95,
    );
    // The interval is informative, not vacuous.
    expect(only.rejectionCi95, context).toBeLessThan(0.01);
    // No retries: every attempt is a first attempt, and s is the blocking probability.
    expect(only.attemptsPerRequest).toBe(1);
    expect(result.s).toBeCloseTo(only.rejection, 12);
  });

  it('the reference formula reproduces the worked example', () => {
    const { blocking, meanInSystem } = mm1m(2 / 3, 5);
    expect(blocking).toBeCloseTo(0.0481203007518798, 14);
    expect(meanInSystem).toBeCloseTo(1.42255639097744, 13);
  });
});

describe('simulateSingleService: insensitivity with m = 1', () => {
  // One server, no waiting room: Erlang's loss formula B = ρ / (1 + ρ) holds for any service
  // law with the same mean, and so does L = P(busy) = B.
  const laws: ServiceTimeDescription[] = [
    { dist: 'exponential' },
    { dist: 'deterministic' },
    { dist: 'hyperexponential', scv: 4 },
    { dist: 'lognormal', scv: 2 },
  ];
  it.each(laws)('$dist service: B = ρ/(1+ρ)', (law) => {
    const mu = 100;
    const rho = 0.8;
    const config: SingleServiceConfig = {
      capacity: mu,
      queue: 1,
      serviceTime: serviceTimeDistribution(law, mu),
      classes: [{ name: 'only', arrivalRate: rho * mu, retryLimit: 0 }],
      duration: 200,
      seed: 99,
    };
    const blocking = rho / (1 + rho);
    const result = replicateSingleService(config, 6);
    const only = result.classes.only;
    const context = JSON.stringify({ law, rho, mu, blocking, result });
    if (only === undefined) throw new Error('class missing');
    expect(Math.abs(only.rejection - blocking), context).toBeLessThan(3 * only.rejectionCi95);
    expect(Math.abs(result.meanInSystem - blocking), context).toBeLessThan(
      3 * result.meanInSystemCi95,
    );
  });
});

describe('simulateSingleService: retries', () => {
  it('rejects nothing when the room is unbounded', () => {
    const result = simulateSingleService({
      ...twoClasses,
      capacity: 400,
      queue: Number.POSITIVE_INFINITY,
      duration: 20,
    });
    for (const [name, measured] of Object.entries(result.classes)) {
      expect(measured.attemptRejections, name).toBe(0);
      expect(measured.rejection, name).toBe(0);
      expect(measured.attemptsPerRequest, name).toBe(1);
      expect(measured.successes, name).toBe(measured.originals);
    }
    expect(result.s).toBe(0);
  });

  it('uses every retry and finally rejects everything when the server never frees up', () => {
    // A job that arrives during warm-up occupies the only place for a million seconds.
    const result = simulateSingleService({
      capacity: 1e-6,
      queue: 1,
      serviceTime: serviceTimeDistribution({ dist: 'deterministic' }, 1e-6),
      classes: [
        { name: 'high', arrivalRate: 100, retryLimit: 4 },
        { name: 'low', arrivalRate: 100, retryLimit: 0, backoff: { kind: 'constant', delayMs: 5 } },
      ],
      duration: 10,
      warmup: 1,
      seed: 3,
    });
    expect(result.classes.high?.attemptsPerRequest).toBe(5);
    expect(result.classes.high?.rejection).toBe(1);
    expect(result.classes.low?.attemptsPerRequest).toBe(1);
    expect(result.classes.low?.rejection).toBe(1);
    expect(result.s).toBe(1);
    expect(result.meanInSystem).toBe(1);
    expect(result.classes.high?.latencyP50).toBeNaN();
  });

  it('conserves requests and attempts for any configuration', () => {
    const backoff: fc.Arbitrary<BackoffDescription> = fc.oneof(
      fc.constant<BackoffDescription>({ kind: 'random', meanMs: 20 }),
      fc.constant<BackoffDescription>({ kind: 'constant', delayMs: 0 }),
      fc.constant<BackoffDescription>({
        kind: 'exponential',
        baseMs: 5,
        maxMs: 200,
        jitter: 'decorrelated',
      }),
      fc.constant<BackoffDescription>({ kind: 'exponential', baseMs: 2, jitter: 'full' }),
    );
    const classArb = fc.record({
      arrivalRate: fc.double({ min: 0, max: 400, noNaN: true }),
      retryLimit: fc.nat(6),
      backoff,
    });
    fc.assert(
      fc.property(
        fc.array(classArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 1000 }),
        (classes, queue, seed) => {
          const config: SingleServiceConfig = {
            capacity: 150,
            queue,
            classes: classes.map((entry, index) => ({ name: `c${index}`, ...entry })),
            duration: 2,
            seed,
          };
          const result = simulateSingleService(config);
          const context = JSON.stringify({ config, result });
          let attempts = 0;
          let rejected = 0;
          for (const [index, measured] of Object.values(result.classes).entries()) {
            const retryLimit = classes[index]?.retryLimit ?? 0;
            const retries = measured.attemptRejections - measured.finalRejections;
            expect(measured.attempts, context).toBe(measured.originals + retries);
            expect(measured.successes + measured.finalRejections, context).toBe(measured.originals);
            expect(retries, context).toBeLessThanOrEqual(retryLimit * measured.originals);
            expect(measured.goodput * config.duration, context).toBeCloseTo(measured.successes, 9);
            attempts += measured.attempts;
            rejected += measured.attemptRejections;
          }
          expect(result.rho * config.duration * config.capacity, context).toBeCloseTo(attempts, 6);
          if (attempts > 0) expect(result.s, context).toBeCloseTo(rejected / attempts, 12);
          expect(result.meanInSystem, context).toBeLessThanOrEqual(queue);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('matches the independence model R_p = s^(k_p+1) when retry delays are long', () => {
    const result = simulateSingleService({ ...twoClasses, duration: 200 });
    const context = JSON.stringify(result);
    for (const entry of twoClasses.classes) {
      const measured = result.classes[entry.name];
      const predicted = result.s ** (entry.retryLimit + 1);
      expect(measured?.rejection, context).toBeGreaterThan(predicted * 0.9);
      expect(measured?.rejection, context).toBeLessThan(predicted * 1.1);
    }
  });
});

describe("simulateSingleService: Little's law", () => {
  it.each([
    ['overloaded, retrying', twoClasses],
    [
      'light load, deterministic service',
      {
        ...twoClasses,
        serviceTime: serviceTimeDistribution({ dist: 'deterministic' }, 143),
        classes: [
          { name: 'high', arrivalRate: 30, retryLimit: 5 },
          { name: 'low', arrivalRate: 70, retryLimit: 1 },
        ],
      },
    ],
  ] as [string, SingleServiceConfig][])('%s: L = throughput × mean sojourn', (_label, config) => {
    const result = simulateSingleService({ ...config, duration: 100 });
    const little = result.throughput * result.meanSojourn;
    expect(
      Math.abs(result.meanInSystem - little) / result.meanInSystem,
      JSON.stringify(result),
    ).toBeLessThan(0.01);
  });
});

describe('simulateSingleService: input checks', () => {
  const bad: [string, Partial<SingleServiceConfig>][] = [
    ['capacity', { capacity: 0 }],
    ['queue', { queue: 2.5 }],
    ['duration', { duration: -1 }],
    ['warmup', { warmup: Number.NaN }],
    ['seed', { seed: 0.5 }],
    ['classes', { classes: [] }],
    ['retryLimit', { classes: [{ name: 'a', arrivalRate: 1, retryLimit: -1 }] }],
    [
      'arrivalRate',
      { classes: [{ name: 'a', arrivalRate: Number.POSITIVE_INFINITY, retryLimit: 1 }] },
    ],
    [
      'repeated',
      {
        classes: [
          { name: 'a', arrivalRate: 1, retryLimit: 1 },
          { name: 'a', arrivalRate: 1, retryLimit: 1 },
        ],
      },
    ],
  ];
  it.each(bad)('names a bad %s', (name, change) => {
    expect(() => simulateSingleService({ ...twoClasses, ...change })).toThrow(name);
  });

  it('reports progress as a fraction that ends at 1', () => {
    const fractions: number[] = [];
    simulateSingleService(
      { ...twoClasses, duration: 100 },
      { onProgress: (fraction) => fractions.push(fraction) },
    );
    expect(fractions.length).toBeGreaterThan(1);
    for (let i = 1; i < fractions.length; i++) {
      expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1] as number);
    }
    expect(fractions.at(-1)).toBe(1);
  });
});
