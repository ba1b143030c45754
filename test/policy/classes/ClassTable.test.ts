import { describe, expect, it } from 'vitest';
import { classTable } from '../../../src/policy/classes/ClassTable.js';

const CLASSES = { high: { retries: 5, timeoutMs: 100 }, low: { retries: 1 } } as const;

describe('classTable', () => {
  it('keeps the declared order, highest first, and the default class', () => {
    const table = classTable(CLASSES, 'low');
    expect(table.names).toEqual(['high', 'low']);
    expect(table.defaultClass).toBe('low');
  });

  it('resolves declared names case-insensitively and trimmed, anything else to the default', () => {
    const table = classTable(CLASSES, 'low');
    expect(table.resolve('high')).toBe('high');
    expect(table.resolve(' HIGH ')).toBe('high');
    expect(table.resolve('Low')).toBe('low');
    for (const value of ['platinum', '', '   ', undefined, null, 'high-ish']) {
      expect(table.resolve(value), String(value)).toBe('low');
    }
    expect(table.resolve(42 as unknown as string)).toBe('low');
  });

  it('gives a class’s options, and the default class’s for unknown names', () => {
    const table = classTable(CLASSES, 'low');
    expect(table.get('high')).toEqual({ retries: 5, timeoutMs: 100 });
    expect(table.get('platinum')).toEqual({ retries: 1 });
    expect(table.get('__proto__')).toEqual({ retries: 1 });
  });

  it('rejects bad tables, naming the bad value', () => {
    expect(() => classTable(null as never, 'x')).toThrow(TypeError);
    expect(() => classTable({}, 'x')).toThrow(/at least one class/);
    expect(() => classTable({ a: { retries: -1 } }, 'a')).toThrow(
      /classes.a.retries should be an integer from 0 to 1000, got -1/,
    );
    expect(() => classTable({ a: { retries: 1.5 } }, 'a')).toThrow(RangeError);
    expect(() => classTable({ a: { retries: 1001 } }, 'a')).toThrow(RangeError);
    expect(() => classTable({ a: { retries: '3' as unknown as number } }, 'a')).toThrow(RangeError);
    expect(() => classTable({ a: null as never }, 'a')).toThrow(RangeError);
    expect(() => classTable({ a: { retries: 1, timeoutMs: 0 } }, 'a')).toThrow(
      /classes.a.timeoutMs should be a positive number of milliseconds, got 0/,
    );
    expect(() => classTable({ a: { retries: 1, timeoutMs: Number.NaN } }, 'a')).toThrow(RangeError);
    expect(() => classTable({ High: { retries: 1 }, high: { retries: 2 } }, 'high')).toThrow(
      /unique names, got "high" twice/,
    );
    expect(() => classTable(CLASSES, 'gold')).toThrow(
      /defaultClass should be one of the classes \(high, low\), got "gold"/,
    );
    expect(() => classTable(CLASSES, 'HIGH')).toThrow(RangeError);
  });

  it('accepts the bounds 0 and 1000 retries', () => {
    expect(classTable({ a: { retries: 0 }, b: { retries: 1000 } }, 'a').get('b').retries).toBe(
      1000,
    );
  });
});
