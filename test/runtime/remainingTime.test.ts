import { describe, expect, it } from 'vitest';
import { formatRemainingMs, parseRemainingMs } from '../../src/runtime/remainingTime.js';

describe('parseRemainingMs', () => {
  it.each([
    ['250', 250],
    [' 12.5 ', 12.5],
    ['0', 0],
    ['-1', undefined],
    ['1e3', undefined],
    ['abc', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %s', (value, expected) => {
    expect(parseRemainingMs(value)).toBe(expected);
  });
});

describe('formatRemainingMs', () => {
  it.each([
    [1500, 1000, '500'],
    [1000.9, 1000, '0'],
    [1500.7, 1000.2, '500'],
    [900, 1000, '0'],
  ])('deadline %d seen at %d → %s', (deadline, now, expected) => {
    expect(formatRemainingMs(deadline, now)).toBe(expected);
  });

  it('round-trips through parseRemainingMs to the whole milliseconds left', () => {
    expect(parseRemainingMs(formatRemainingMs(12_345.6, 345))).toBe(12_000);
  });
});
