import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routingRows, routingStructure } from '../../../src/model/network/structure.js';
import { seededRandom } from '../../../src/model/random.js';
import {
  DRAWN_QUEUES,
  drawConfiguration,
  MAX_DRAWN_RETRIES,
} from '../../../src/model/uniqueness/index.js';
import { cyclicBase, drawn } from './uniquenessFixtures.js';

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe('drawConfiguration', () => {
  it('is reproducible: the same base and seed give the same network', () => {
    const base = cyclicBase(15, 4);
    expect(drawn(base, 99).network).toEqual(drawn(base, 99).network);
    expect(drawn(base, 99).network).not.toEqual(drawn(base, 100).network);
  });

  it('draws valid networks whose flow equations have a solution (ρ(F) < 1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 30 }),
        seed,
        seed,
        fc.integer({ min: 1, max: 9 }),
        (services, graphSeed, configSeed, maxClasses) => {
          const base = cyclicBase(services, graphSeed, 1);
          const { network } = drawn(base, configSeed, maxClasses);
          const classCount = network.classes.length;
          expect(classCount).toBeGreaterThanOrEqual(1);
          expect(classCount).toBeLessThanOrEqual(maxClasses);
          expect(network.services.map((s) => s.name)).toEqual(base.services.map((s) => s.name));
          for (const c of network.classes) {
            expect(c.retryLimit).toBeGreaterThanOrEqual(0);
            expect(c.retryLimit).toBeLessThanOrEqual(MAX_DRAWN_RETRIES);
          }
          network.services.forEach((service, i) => {
            expect(service.capacity).toBeGreaterThan(0);
            expect(DRAWN_QUEUES).toContain(service.queue);
            expect(service.retryLimits).toHaveLength(classCount);
            for (const k of service.retryLimits) expect(k).toBeLessThanOrEqual(MAX_DRAWN_RETRIES);
            if (i === 0) for (const rate of service.arrivals) expect(rate).toBeGreaterThan(0);
          });
          for (let p = 0; p < classCount; p++) {
            for (const row of routingRows(network, p)) {
              expect(row.reduce((sum, e) => sum + e.p, 0)).toBeLessThanOrEqual(1 + 1e-12);
            }
          }
          expect(routingStructure(network).closedSets).toEqual([]);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('exercises every guarantee but dag, and `none` with two classes too', () => {
    const base = cyclicBase(12, 3);
    const seen = new Map<string, number>();
    for (let s = 0; s < 600; s++) {
      const { network } = drawn(base, s);
      const structure = routingStructure(network);
      const key = `${structure.uniqueness}/${network.classes.length === 2 ? 'P=2' : 'other'}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const key of ['norm/other', 'class-independent/P=2', 'none/P=2', 'none/other']) {
      expect(seen.get(key) ?? 0, [...seen].join(', ')).toBeGreaterThan(0);
    }
    expect(seen.has('dag/other') || seen.has('dag/P=2')).toBe(false);
  });

  it('rejects bad options, naming the value', () => {
    const base = cyclicBase(5, 1, 1);
    expect(() => drawConfiguration(base, seededRandom(1), { maxClasses: 0 })).toThrow(
      /maxClasses should be an integer from 1 to 20, got 0/,
    );
    expect(() => drawConfiguration(base, seededRandom(1), { arrivalRate: -1 })).toThrow(
      /arrivalRate should be a positive number/,
    );
  });
});
