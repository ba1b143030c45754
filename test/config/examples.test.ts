import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_EXAMPLE_NAMES,
  builtinExample,
  isSpecError,
  loadNetworkFile,
  parseNetwork,
} from '../../src/config/index.js';

const examplePath = (file: string) => new URL(`../../examples/${file}`, import.meta.url);

describe('examples/', () => {
  it('single-service.yaml is the one-service network of the design', async () => {
    const network = await loadNetworkFile(examplePath('single-service.yaml').pathname);
    expect(network).toStrictEqual({
      model: 'mixed',
      classes: [
        { name: 'high', retries: 5, weight: 1 },
        { name: 'low', retries: 1, weight: 1 },
      ],
      services: [
        {
          name: 'frontend',
          capacity: 143,
          queue: 50,
          arrivals: { high: 50, low: 250 },
          serviceTime: { dist: 'exponential' },
          residual: false,
        },
      ],
    });
  });

  it('two-tier.yaml is a valid three-service routing network', async () => {
    const network = await loadNetworkFile(examplePath('two-tier.yaml').pathname);
    expect(network.services.map((s) => s.name)).toStrictEqual(['frontend', 'search', 'profile']);
    expect(network.services.every((s) => s.calls === undefined)).toBe(true);
    expect(network.services[0]?.routes).toHaveLength(2);
  });
});

describe('builtinExample', () => {
  it.each([
    ['single', 'single-service.yaml'],
    ['two-tier', 'two-tier.yaml'],
    ['hotel', 'hotel.yaml'],
    ['hotel-calls', 'hotel-calls.yaml'],
  ])('%s is exactly examples/%s and parses', async (name, file) => {
    const example = builtinExample(name);
    expect(example.text).toBe(await readFile(examplePath(file), 'utf8'));
    expect(example.fileName).toBe(`examples/${file}`);
    expect(() => parseNetwork(example.text, example.fileName)).not.toThrow();
  });

  it('lists its names', () => {
    expect(BUILTIN_EXAMPLE_NAMES).toStrictEqual(['single', 'two-tier', 'hotel', 'hotel-calls']);
  });

  it('rejects an unknown name with the available ones', () => {
    let error: unknown;
    try {
      builtinExample('nope');
    } catch (e) {
      error = e;
    }
    expect(isSpecError(error)).toBe(true);
    expect(isSpecError(error) && error.code).toBe('DIFFTRY_SPEC_UNREADABLE');
    expect((error as Error).message).toBe(
      'expected a built-in example (single, two-tier, hotel, hotel-calls), got "nope"',
    );
  });

  it('does not take inherited names for examples', () => {
    expect(() => builtinExample('toString')).toThrow(/built-in example/);
  });
});
