import { describe, expect, it } from 'vitest';
import {
  builtinExample,
  parseNetwork,
  scaleToBottleneck,
  toNetworkModel,
} from '../../src/config/index.js';
import { nominalLoads } from '../../src/model/network/nominalLoads.js';

// examples/two-tier.yaml: frontend μ 300 with γ = 40 + 200; search gets 0.6 of everything
// (μ 150), profile 0.3 of the high class (μ 80). By hand: 240/300, 144/150, 12/80.
const { fileName, text } = builtinExample('two-tier');
const spec = parseNetwork(text, fileName);

describe('nominalLoads', () => {
  it('is the loss-free, retry-free flow over μ at every service', () => {
    const loads = nominalLoads(toNetworkModel(spec));
    expect(loads[0]).toBeCloseTo(0.8, 9);
    expect(loads[1]).toBeCloseTo(0.96, 9);
    expect(loads[2]).toBeCloseTo(0.15, 9);
  });
});

describe('scaleToBottleneck', () => {
  it('scales every external rate by one factor so the busiest service has load ρ₀', () => {
    const scaled = scaleToBottleneck(spec, 2, { minQueue: 40 });
    const loads = nominalLoads(toNetworkModel(scaled));
    expect(Math.max(...loads)).toBeCloseTo(2, 9);
    expect(loads[0]).toBeCloseTo((0.8 * 2) / 0.96, 9);
    expect(scaled.services[0]?.arrivals?.high).toBeCloseTo((40 * 2) / 0.96, 9);
    expect(scaled.services.map((s) => s.queue)).toEqual([50, 40, 40]);
  });

  it('sets every queue when asked, leaving the network it was given unchanged', () => {
    const scaled = scaleToBottleneck(spec, 1, { queue: 5 });
    expect(scaled.services.map((s) => s.queue)).toEqual([5, 5, 5]);
    expect(spec.services.map((s) => s.queue)).toEqual([50, 30, 20]);
    expect(spec.services[0]?.arrivals).toEqual({ high: 40, low: 200 });
  });
});
