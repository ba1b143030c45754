import { describe, expect, it } from 'vitest';
import { oneLine, PRINTABLE_MAX_CHARS, printable } from '../../src/core/printable.js';

describe('printable', () => {
  it('keeps printable text, non-ASCII letters included', () => {
    expect(printable('gold class /café ü 日本')).toBe('gold class /café ü 日本');
  });

  it('writes line breaks and carriage returns as escapes, so one line stays one line', () => {
    const forged = printable('n1\ndifftry xds: reloaded version 2\r\n');
    expect(forged).toBe('n1\\ndifftry xds: reloaded version 2\\r\\n');
    expect(forged).not.toMatch(/[\n\r]/);
  });

  it('escapes ANSI sequences, C1 controls, DEL, U+2028/U+2029, bidi overrides and the BOM', () => {
    expect(printable('\u001b[31mred\u001b[0m')).toBe('\\x1b[31mred\\x1b[0m');
    expect(printable('a\u009bb\u007fc\u0000')).toBe('a\\x9bb\\x7fc\\x00');
    expect(printable('x\u2028y\u2029z')).toBe('x\\u2028y\\u2029z');
    expect(printable('ab\u202ecd\u2066e\ufeff')).toBe('ab\\u202ecd\\u2066e\\ufeff');
    expect(printable('tab\there')).toBe('tab\\there');
  });

  it('doubles a backslash, so the input cannot pass for an escape of ours', () => {
    expect(printable('a\\nb')).toBe('a\\\\nb');
    expect(printable('a\\nb')).not.toBe(printable('a\nb'));
  });

  it('cuts long text and says how much was left out', () => {
    const long = 'x'.repeat(1024 * 1024);
    const shown = printable(long);
    expect(shown).toBe(`${'x'.repeat(PRINTABLE_MAX_CHARS)}…(+${1024 * 1024 - 200} chars)`);
    expect(printable('abcdef', { maxChars: 3 })).toBe('abc…(+3 chars)');
    expect(printable('abc', { maxChars: 3 })).toBe('abc');
    expect(printable('abcdef', { maxChars: Number.POSITIVE_INFINITY })).toBe('abcdef');
  });

  it('never cuts inside a surrogate pair', () => {
    expect(printable('ab😀cd', { maxChars: 3 })).toBe('ab…(+4 chars)');
  });

  it('refuses a negative or NaN maxChars', () => {
    expect(() => printable('a', { maxChars: -1 })).toThrow(
      /maxChars should be a number ≥ 0, got -1/,
    );
    expect(() => printable('a', { maxChars: Number.NaN })).toThrow(RangeError);
  });
});

describe('oneLine', () => {
  it('escapes what printable escapes, keeps backslashes and cuts nothing', () => {
    expect(oneLine('services "a\nb" and "c\u001b[2J": a raw `\\` is refused')).toBe(
      'services "a\\nb" and "c\\x1b[2J": a raw `\\` is refused',
    );
    const long = 'y'.repeat(5000);
    expect(oneLine(long)).toBe(long);
  });
});
