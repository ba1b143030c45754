// Every formatter of src/report/numberFormat.ts against strings written out by hand.
import { describe, expect, it } from 'vitest';
import {
  fixed,
  mebibytes,
  NOT_AVAILABLE,
  percent,
  percentPlusMinus,
  percentPoints,
  plusMinus,
  signedPercentPoints,
  significant,
  thousands,
  wholePercent,
} from '../../src/report/numberFormat.js';

describe('numberFormat', () => {
  it('formats numbers, and n/a for what is not a finite number', () => {
    expect(fixed(1.23456)).toBe('1.23');
    expect(fixed(1.23456, 0)).toBe('1');
    expect(fixed(0.2027, 4)).toBe('0.2027');
    expect(fixed(Number.NaN)).toBe('n/a');
    expect(fixed(Number.POSITIVE_INFINITY, 2, '—')).toBe('—');
    expect(NOT_AVAILABLE).toBe('n/a');
    expect(percent(0.2018)).toBe('20.2 %');
    expect(percent(0.2018, 0)).toBe('20 %');
    expect(percent(Number.POSITIVE_INFINITY)).toBe('n/a');
  });

  it('writes significant digits without trailing zeros, and n/a for what is not finite', () => {
    expect(significant(0.151662941)).toBe('0.1517');
    expect(significant(1.18624942, 3)).toBe('1.19');
    expect(significant(1.5)).toBe('1.5');
    expect(significant(5e-324)).toBe('5e-324');
    expect(significant(Number.NaN)).toBe('n/a');
  });

  it('writes percentage points without a unit, signed when asked', () => {
    expect(percentPoints(0.1234)).toBe('12.3');
    expect(percentPoints(Number.NaN)).toBe('n/a');
    expect(signedPercentPoints(0.012)).toBe('+1.2');
    expect(signedPercentPoints(-0.012)).toBe('−1.2');
    expect(signedPercentPoints(0.0004)).toBe('0.0');
    expect(signedPercentPoints(-0.0004)).toBe('0.0');
    expect(signedPercentPoints(Number.NaN)).toBe('n/a');
  });

  it('rounds a whole percentage half up', () => {
    expect(wholePercent(0.425)).toBe('43 %');
    expect(wholePercent(0.004)).toBe('0 %');
    expect(wholePercent(1)).toBe('100 %');
  });

  it('writes a half-width beside its value only when it is finite', () => {
    expect(plusMinus(3.849, 0.012)).toBe('3.85 ± 0.01');
    expect(plusMinus(0.20314, 0.00396, 4)).toBe('0.2031 ± 0.0040');
    expect(plusMinus(3.849, Number.NaN)).toBe('3.85');
    expect(plusMinus(Number.NaN, 0.1)).toBe('n/a');
    expect(percentPlusMinus(0.2018, 0.0041)).toBe('20.2 ± 0.4 %');
    expect(percentPlusMinus(0.2018, Number.NaN)).toBe('20.2 %');
    expect(percentPlusMinus(Number.NaN, 0.01)).toBe('n/a');
  });

  it('groups thousands and writes bytes as MiB', () => {
    expect(thousands(1234567)).toBe('1,234,567');
    expect(thousands(999)).toBe('999');
    expect(mebibytes(140_700_000)).toBe('134.2 MiB');
    expect(mebibytes(1024 * 1024)).toBe('1.0 MiB');
  });
});
