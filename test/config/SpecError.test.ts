import { describe, expect, it } from 'vitest';
import { formatPath } from '../../src/config/formatPath.js';
import { formatValue } from '../../src/config/formatValue.js';
import { isSpecError, SpecError, specIssue } from '../../src/config/index.js';

describe('SpecError', () => {
  const base = {
    code: 'DIFFTRY_SPEC_INVALID',
    file: 'net.yaml',
    expected: 'a positive number (requests/s)',
    problem: 'expected a positive number (requests/s), got -3',
  } as const;

  it('writes FILE:LINE:COL: PATH: PROBLEM on one line', () => {
    const error = SpecError.of({ ...base, line: 7, column: 15, path: 'services[0].capacity' });
    expect(error.message).toBe(
      'net.yaml:7:15: services[0].capacity: expected a positive number (requests/s), got -3',
    );
    expect(error).toMatchObject({
      name: 'SpecError',
      code: 'DIFFTRY_SPEC_INVALID',
      file: 'net.yaml',
      line: 7,
      column: 15,
      path: 'services[0].capacity',
      expected: 'a positive number (requests/s)',
    });
    expect(error.issues).toHaveLength(1);
  });

  it('leaves out what it does not know', () => {
    expect(SpecError.of({ ...base, path: 'services[0].capacity' }).message).toBe(
      'net.yaml: services[0].capacity: expected a positive number (requests/s), got -3',
    );
    expect(SpecError.of({ ...base, line: 1, column: 1 }).message).toBe(
      'net.yaml:1:1: expected a positive number (requests/s), got -3',
    );
    expect(SpecError.of({ ...base, file: '' }).message).toBe(
      'expected a positive number (requests/s), got -3',
    );
  });

  it('takes its fields from the first issue and keeps them all', () => {
    const first = specIssue({ ...base, line: 2, column: 3, path: 'a' });
    const second = specIssue({ ...base, line: 5, column: 1, path: 'b' });
    const error = new SpecError([first, second]);
    expect(error.path).toBe('a');
    expect(error.issues).toStrictEqual([first, second]);
  });

  it('chains its cause', () => {
    const cause = new Error('low level');
    expect(SpecError.of(base, { cause }).cause).toBe(cause);
  });

  it('is recognised by its brand, not only by its class', () => {
    const error = SpecError.of(base);
    expect(isSpecError(error)).toBe(true);
    expect(SpecError.isSpecError(error)).toBe(true);
    expect(error).toBeInstanceOf(Error);
    expect(isSpecError(new Error('x'))).toBe(false);
    expect(isSpecError(null)).toBe(false);
    expect(isSpecError({ code: 'DIFFTRY_SPEC_INVALID' })).toBe(false);
    const foreign = { [Symbol.for('difftry.SpecError')]: true };
    expect(isSpecError(foreign)).toBe(true);
  });
});

describe('formatValue', () => {
  it.each([
    ['mm2', '"mm2"'],
    [-3, '-3'],
    [-0, '-0'],
    [Number.NaN, 'NaN'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
    [true, 'true'],
    [null, 'null'],
    [undefined, 'nothing'],
    [[], '[]'],
    [{ a: Number.NaN }, '{"a":"NaN"}'],
    ['x'.repeat(50), `"${'x'.repeat(38)}…`],
  ])('%j reads %s', (value, text) => {
    expect(formatValue(value)).toBe(text);
  });

  it('survives a value that contains itself', () => {
    const looped: Record<string, unknown> = {};
    looped.self = looped;
    expect(formatValue(looped)).toBe('{…}');
  });
});

describe('formatPath', () => {
  it.each([
    [[], ''],
    [['services', 0, 'capacity'], 'services[0].capacity'],
    [['services', 1, 'arrivals', 'my class'], 'services[1].arrivals["my class"]'],
    [['services', 1, 'arrivals', 'low-cost'], 'services[1].arrivals.low-cost'],
  ])('%j reads %s', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});
