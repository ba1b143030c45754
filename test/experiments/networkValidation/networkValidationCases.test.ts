// The network validation's cases (src/experiments/networkValidation/), as docs/validation-networks
// lists them today: 105 cases, hotelReservation first, fixed seeds.
import { describe, expect, it } from 'vitest';
import { builtinExample, parseNetwork, toNetworkModel } from '../../../src/config/index.js';
import {
  GROUP_LABELS,
  HOTEL_GAMMA_LOWS,
  networkValidationCases,
} from '../../../src/experiments/networkValidation/networkValidationCases.js';
import { withBottleneck } from '../../../src/experiments/networkValidation/withBottleneck.js';

describe('networkValidationCases', () => {
  const cases = networkValidationCases();

  it('builds the same 105 cases, hotelReservation first', () => {
    expect(cases).toHaveLength(105);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    expect(cases.slice(0, 4).map((c) => c.id)).toEqual(
      HOTEL_GAMMA_LOWS.map((g) => `hotel k=5-1 γlow=${g}`),
    );
    expect(cases[0]?.rho0).toBeCloseTo(100 / 143, 12);
    expect(cases.every((c) => Object.hasOwn(GROUP_LABELS, c.group))).toBe(true);
  });

  it('is deterministic', () => {
    expect(networkValidationCases().map((c) => [c.id, c.rho0])).toEqual(
      cases.map((c) => [c.id, c.rho0]),
    );
  });
});

describe('withBottleneck', () => {
  it('moves the bottleneck from the frontend to a service of the call graph', () => {
    const { fileName, text } = builtinExample('hotel');
    const hotel = toNetworkModel(parseNetwork(text, fileName));
    const moved = withBottleneck(hotel, 'search', 0.5);
    expect(moved.services.find((s) => s.name === 'frontend')?.capacity).toBe(1000);
    expect(moved.services.find((s) => s.name === 'search')?.capacity).toBe(71.5);
    expect(withBottleneck(hotel, 'frontend', 0.5)).toBe(hotel);
  });
});
