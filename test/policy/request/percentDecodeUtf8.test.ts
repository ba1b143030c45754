import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentDecodeUtf8 } from '../../../src/policy/request/percentDecodeUtf8.js';

// The reference is the WHATWG Encoding standard's UTF-8 decoder (TextDecoder with fatal: true),
// which refuses exactly what RFC 3629 refuses; it is not the code under test.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function reference(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

const escaped = (bytes: Uint8Array): string =>
  [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

describe('percentDecodeUtf8', () => {
  it.each([
    ['caf%C3%A9', 'café'],
    ['caf%c3%a9', 'café'],
    ['cafe%CC%81', 'cafe\u0301'],
    ['%E6%97%A5%E6%9C%AC', '日本'],
    ['%F0%9F%98%80', '😀'],
    ['%F4%8F%BF%BF', '\u{10FFFF}'],
    ['%EF%BC%8F', '／'],
    ['a%41%2e', 'aA.'],
    ['100%', '100%'],
    ['%zz', '%zz'],
    ['plain', 'plain'],
  ])('%s → %j', (text, decoded) => {
    expect(percentDecodeUtf8(text)).toStrictEqual({ ok: true, text: decoded });
  });

  it.each([
    ['..%C0%AFadmin', 'an overlong encoding (%C0%AF)'],
    ['%C0%AE%C0%AE', 'an overlong encoding (%C0%AE)'],
    ['%C1%BF', 'an overlong encoding (%C1%BF)'],
    ['%E0%80%AE', 'an overlong encoding (%E0%80)'],
    ['%F0%80%80%AF', 'an overlong encoding (%F0%80)'],
    ['%ED%A0%80', 'a UTF-16 surrogate (U+D800–U+DFFF) (%ED%A0)'],
    ['%ED%BF%BF', 'a UTF-16 surrogate (U+D800–U+DFFF) (%ED%BF)'],
    ['%F4%90%80%80', 'a code point above U+10FFFF (%F4%90)'],
    ['%F5%80%80%80', 'a code point above U+10FFFF (%F5)'],
    ['%FF', 'a byte that is never UTF-8 (%FF)'],
    ['%80', 'a continuation byte with no lead byte (%80)'],
    ['%E2%88', 'a sequence cut short (%E2%88)'],
    ['%E2%88x', 'a sequence cut short (%E2%88)'],
    ['%C3%41', 'a sequence cut short (%C3)'],
    ['%C3', 'a sequence cut short (%C3)'],
  ])('refuses %s: %s', (text, reason) => {
    expect(percentDecodeUtf8(text)).toStrictEqual({ ok: false, reason });
  });

  it('agrees with a strict UTF-8 decoder on every byte string (fast-check)', () => {
    // Bytes biased toward the boundaries of RFC 3629's table, so lead and second bytes meet often.
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x2e, 0x2f, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2),
      fc.constantFrom(0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5),
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 8 }), (list) => {
        const bytes = Uint8Array.from(list);
        const expected = reference(bytes);
        const result = percentDecodeUtf8(escaped(bytes));
        expect({ bytes: escaped(bytes), text: result.ok ? result.text : undefined }).toStrictEqual({
          bytes: escaped(bytes),
          text: expected,
        });
      }),
      { numRuns: 5000 },
    );
  });

  it('decodes every valid code point as itself (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 6 }), (text) => {
        const bytes = new TextEncoder().encode(text);
        expect(percentDecodeUtf8(escaped(bytes))).toStrictEqual({ ok: true, text });
      }),
      { numRuns: 2000 },
    );
  });
});
