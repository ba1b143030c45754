import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import type { NetworkSpec } from '../../src/config/schema.js';
import { toNetworkModel } from '../../src/config/toNetworkModel.js';
import {
  entryServiceIndex,
  fileParameters,
  withParameters,
} from '../../web/src/network/NetworkParameters.js';
import { arrivalRange, clampToRange, retryRange } from '../../web/src/network/parameterRanges.js';
import { parameterSlots } from '../../web/src/network/parameterSlots.js';
import { parametersFromUrl, parameterUrlValues } from '../../web/src/network/parameterUrl.js';

const example = (file: string): { text: string; network: NetworkSpec } => {
  const text = readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8');
  return { text, network: parseNetwork(text, `examples/${file}`) };
};
const hotel = example('hotel-calls.yaml');
const twoTier = example('two-tier.yaml');

/** A URL query as the view reads it. */
const query = (text: string) => {
  const params = new URLSearchParams(text);
  return (key: string) => params.get(key) ?? undefined;
};

describe('the parameters of a network file', () => {
  it('are read from the entry service: the first with external arrivals', () => {
    expect(entryServiceIndex(hotel.network)).toBe(0);
    const entryLater: NetworkSpec = {
      ...twoTier.network,
      services: [...twoTier.network.services].reverse(),
    };
    expect(entryServiceIndex(entryLater)).toBe(2);
    expect(fileParameters(twoTier.network)).toEqual({
      arrivals: { high: 40, low: 200 },
      retries: { high: 5, low: 1 },
      serviceRetries: { search: { low: 0 } },
    });
  });

  it('written into the file give the model of the file edited by hand', () => {
    const parameters = {
      arrivals: { high: 60, low: 180 },
      retries: { high: 4, low: 2 },
      serviceRetries: {},
    };
    const edited = parseNetwork(
      hotel.text
        .replace('arrivals: { high: 50, low: 250 }', 'arrivals: { high: 60, low: 180 }')
        .replace('{ name: high, retries: 5 }', '{ name: high, retries: 4 }')
        .replace('{ name: low, retries: 1 }', '{ name: low, retries: 2 }'),
      'examples/hotel-calls.yaml',
    );
    expect(edited).not.toEqual(hotel.network);
    expect(toNetworkModel(withParameters(hotel.network, parameters))).toEqual(
      toNetworkModel(edited),
    );
  });

  it('set a per-service override where the file has one, and leave the rest of the file alone', () => {
    const parameters = {
      ...fileParameters(twoTier.network),
      serviceRetries: { search: { low: 3 } },
    };
    const written = withParameters(twoTier.network, parameters);
    expect(written.services[1]?.retries).toEqual({ low: 3 });
    expect(written.services[2]).toBe(twoTier.network.services[2]);
    expect(twoTier.network.services[1]?.retries).toEqual({ low: 0 });
  });
});

describe('parameter sliders', () => {
  it('have one slot per class rate and limit and per override, with stable test ids', () => {
    const slots = parameterSlots(twoTier.network);
    expect(slots.map((s) => [s.testId, s.key, s.fileValue, s.swept])).toEqual([
      ['arrival-high', 'arrival.high', 40, false],
      ['arrival-low', 'arrival.low', 200, true],
      ['retries-high', 'retries.high', 5, false],
      ['retries-low', 'retries.low', 1, false],
      ['retries-search-low', 'retries.search.low', 0, false],
    ]);
    expect(slots[1]?.label).toBe('γ low at frontend');
    expect(slots[1]?.format(200)).toBe('200 requests/s');
  });

  it('range rates from 0 to twice the file, limits from 0 to 10', () => {
    expect(arrivalRange(hotel.network, 'low')).toEqual({ min: 0, max: 500, step: 1 });
    expect(arrivalRange(hotel.network, 'high')).toEqual({ min: 0, max: 100, step: 1 });
    const metastable = example('metastable-classes.yaml').network;
    expect(arrivalRange(metastable, 'low')).toEqual({ min: 0, max: 70, step: 0.1 });
    expect(retryRange(5)).toEqual({ min: 0, max: 10, step: 1 });
    expect(retryRange(8)).toEqual({ min: 0, max: 16, step: 1 });
    expect(clampToRange(0.7000000001, { min: 0, max: 70, step: 0.1 })).toBe(0.7);
    expect(clampToRange(-3, { min: 0, max: 10, step: 1 })).toBe(0);
    expect(clampToRange(12.4, { min: 0, max: 10, step: 1 })).toBe(10);
  });
});

describe('parameters in the URL', () => {
  const slots = parameterSlots(twoTier.network);

  it('round-trip, keeping only what differs from the file', () => {
    const parameters = parametersFromUrl(
      twoTier.network,
      slots,
      query('arrival.low=150&retries.search.low=2&retries.high=5'),
    );
    expect(parameters).toEqual({
      arrivals: { high: 40, low: 150 },
      retries: { high: 5, low: 1 },
      serviceRetries: { search: { low: 2 } },
    });
    expect(parameterUrlValues(slots, parameters)).toEqual({
      'arrival.high': undefined,
      'arrival.low': 150,
      'retries.high': undefined,
      'retries.low': undefined,
      'retries.search.low': 2,
    });
  });

  it('fall back to the file for a missing or bad value, and into the slider range', () => {
    const parameters = parametersFromUrl(
      twoTier.network,
      slots,
      query('arrival.low=abc&arrival.high=1e9&retries.low=-2&retries.high='),
    );
    expect(parameters).toEqual({
      arrivals: { high: 80, low: 200 },
      retries: { high: 5, low: 0 },
      serviceRetries: { search: { low: 0 } },
    });
  });
});
