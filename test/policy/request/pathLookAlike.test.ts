import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathLookAlike } from '../../../src/policy/request/pathLookAlike.js';

describe('pathLookAlike', () => {
  it.each([
    ['\uff0e', '.', 'NFKC'], // FULLWIDTH FULL STOP
    ['\uff0f', '/', 'NFKC'], // FULLWIDTH SOLIDUS
    ['\uff3c', '\\', 'NFKC'], // FULLWIDTH REVERSE SOLIDUS
    ['\ufe52', '.', 'NFKC'], // SMALL FULL STOP
    ['\ufe68', '\\', 'NFKC'], // SMALL REVERSE SOLIDUS
    ['\u2024', '.', 'NFKC'], // ONE DOT LEADER
    ['\u2025', '..', 'NFKC'], // TWO DOT LEADER
    ['\u2026', '...', 'NFKC'], // HORIZONTAL ELLIPSIS
    ['\uff05', '%', 'NFKC'], // FULLWIDTH PERCENT SIGN
    ['\uff1b', ';', 'NFKC'], // FULLWIDTH SEMICOLON
    ['\u037e', ';', 'NFKC'], // GREEK QUESTION MARK (canonically ";")
    ['\uff1f', '?', 'NFKC'], // FULLWIDTH QUESTION MARK
    ['\uff03', '#', 'NFKC'], // FULLWIDTH NUMBER SIGN
    ['\uff50', 'p', 'NFKC'], // FULLWIDTH LATIN SMALL LETTER P
    ['\u{1d429}', 'p', 'NFKC'], // MATHEMATICAL BOLD SMALL P
    ['\u212a', 'K', 'NFKC'], // KELVIN SIGN
    ['\u00a0', ' ', 'NFKC'], // NO-BREAK SPACE
    ['\u2215', '/', 'confusable'], // DIVISION SLASH
    ['\u2044', '/', 'confusable'], // FRACTION SLASH
    ['\u29f8', '/', 'confusable'], // BIG SOLIDUS
    ['\u2216', '\\', 'confusable'], // SET MINUS
    ['\u00a5', '\\', 'confusable'], // YEN SIGN
    ['\u3002', '.', 'confusable'], // IDEOGRAPHIC FULL STOP
    ['\uff61', '.', 'confusable'], // HALFWIDTH IDEOGRAPHIC FULL STOP (NFKC: U+3002)
    ['\ufe12', '.', 'confusable'], // PRESENTATION FORM FOR VERTICAL IDEOGRAPHIC FULL STOP
  ])('finds %j, read as %j by %s', (char, reads, by) => {
    expect(pathLookAlike(`..${char}admin`)).toStrictEqual({
      codePoint: char.codePointAt(0),
      reads,
      by,
    });
  });

  it.each([
    'café',
    'cafe\u0301', // decomposed: NFKC composes it, changing no ASCII
    '日本語',
    'Ωμέγα',
    'ｶﾀｶﾅ'.normalize('NFKC'),
    'premium',
    '',
  ])('finds none in %j', (text) => {
    expect(pathLookAlike(text)).toBeUndefined();
  });

  it('passes only text that NFKC gives the same separators, dots and ASCII-ness (fast-check)', () => {
    // The law the sidecar relies on. Once no look-alike is found, NFKC makes no ASCII character:
    // it can only fold an ASCII letter into the accented one a combining mark makes of it
    // (A + U+0300 → À), which leaves the text non-ASCII in both readings. So `/ \ . % ; ? #` and
    // NUL stay as they were, and a segment is ASCII (and then unchanged) in both or in neither.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL has path meaning here
    const meaningful = (text: string) => text.replace(/[^/\\.%;?#\u0000]/gu, '');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII character, NUL included
    const isAscii = (text: string) => /^[\u0000-\u007f]*$/u.test(text);
    const asciiIn = (text: string) => [...text].filter(isAscii).join('');
    const isSubsequence = (part: string, whole: string) => {
      let at = 0;
      for (const char of whole) if (char === part[at]) at += 1;
      return at === part.length;
    };
    const lookAlikes = ['\uff0e', '\uff0f', '\u2215', '\u2044', '\ufe52', '\u2024', '\uff3c'];
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 3 }),
      fc.constantFrom('.', '/', 'a', 'e', '\u0301', '\u0300', '\u0338', '=', ...lookAlikes),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join('');
        if (pathLookAlike(text) !== undefined) return;
        const compatible = text.normalize('NFKC');
        expect({
          text,
          meaningful: meaningful(compatible),
          ascii: isAscii(compatible),
          asciiKept: isSubsequence(asciiIn(compatible), asciiIn(text)),
        }).toStrictEqual({
          text,
          meaningful: meaningful(text),
          ascii: isAscii(text),
          asciiKept: true,
        });
      }),
      { numRuns: 5000 },
    );
  });
});
