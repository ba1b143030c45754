import { describe, expect, it } from 'vitest';
import { integerPower } from '../../../src/model/numeric/integerPower.js';

describe('integerPower', () => {
  it('is exact where every product is: powers of 2, of 3 below 2^53, k = 0 and 1', () => {
    for (let k = 0; k <= 33; k++) expect(integerPower(3, k)).toBe(Number(3n ** BigInt(k)));
    for (let k = 0; k <= 1000; k += 37) expect(integerPower(0.5, k)).toBe(2 ** -k);
    expect(integerPower(0.7, 0)).toBe(1);
    expect(integerPower(0.7, 1)).toBe(0.7);
  });

  it('is within a few ulps of the exact power elsewhere', () => {
    // (1 − 1/16)^k against the exact rational 15^k / 16^k.
    for (const k of [2, 7, 20, 101, 1000]) {
      // 15^k / 16^k to 30 digits: scaled by 10^(30 + digits lost), (16/15)^k < 10^(k / 30).
      const digits = 30 + Math.ceil(k / 30);
      const exact =
        Number((15n ** BigInt(k) * 10n ** BigInt(digits)) / 16n ** BigInt(k)) / 10 ** digits;
      expect(Math.abs(integerPower(15 / 16, k) - exact) / exact).toBeLessThan(
        4 * Math.log2(k + 1) * Number.EPSILON,
      );
    }
  });
});
