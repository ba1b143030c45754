import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/index.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import type { NetworkModel } from '../../../src/model/index.js';
import { replicateNetwork } from '../../../src/sim/network/replicateNetwork.js';

function twoTier(): NetworkModel {
  const text = readFileSync(new URL('../../../examples/two-tier.yaml', import.meta.url), 'utf8');
  return toNetworkModel(parseNetwork(text, 'two-tier.yaml'));
}

describe('replicateNetwork', () => {
  it('is reproducible and gives every figure a Ci95 beside it', () => {
    const network = twoTier();
    const options = { duration: 10, seed: 3 };
    const first = replicateNetwork(network, options, 3);
    const second = replicateNetwork(network, options, 3);
    expect(first).toEqual(second);
    expect(first.replications).toBe(3);
    expect(first.events).toBeGreaterThan(0);
    const search = first.services.search;
    expect(search?.rhoCi95).toBeGreaterThan(0);
    for (const key of ['in', 'out', 'attempts', 'rejection'] as const) {
      expect(search?.classes.low?.[key]).toBeTypeOf('number');
      expect(search?.classes.low?.[`${key}Ci95`]).toBeGreaterThan(0);
    }
    const low = first.endToEnd.low;
    expect(low?.rejection).toBeGreaterThan(0);
    expect((low?.rejection ?? 0) + (low?.completion ?? 0)).toBeCloseTo(1, 6);
  });

  it('uses a distinct stream per replication and reports progress', () => {
    const fractions: number[] = [];
    const result = replicateNetwork(twoTier(), { duration: 5, seed: 1 }, 2, {
      onProgress: (f) => fractions.push(f),
    });
    expect(fractions).toEqual([0.5, 1]);
    expect(result.services.frontend?.rhoCi95).toBeGreaterThan(0);
  });

  it('narrows the confidence interval with more replications', () => {
    const network = twoTier();
    const few = replicateNetwork(network, { duration: 10, seed: 5 }, 3);
    const many = replicateNetwork(network, { duration: 10, seed: 5 }, 12);
    const ci = (r: typeof few) => r.services.search?.sCi95 ?? Number.NaN;
    expect(ci(many)).toBeLessThan(ci(few));
  });

  it('refuses a bad replication count', () => {
    expect(() => replicateNetwork(twoTier(), { duration: 5, seed: 1 }, 0)).toThrow(RangeError);
  });
});
