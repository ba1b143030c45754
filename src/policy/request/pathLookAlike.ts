/** A character of a decoded path that some reader takes for ASCII it is not. */
export interface PathLookAlike {
  /** The character's code point: 0xFF0F for `／`. */
  readonly codePoint: number;
  /** The ASCII it is read as: `/`. */
  readonly reads: string;
  /** Who reads it so: Unicode NFKC, or a confusable mapping (`best fit`, IDNA, fonts). */
  readonly by: 'NFKC' | 'confusable';
}

/**
 * Characters that NFKC leaves alone but that other readers take for `/`, `\` or `.`: Windows'
 * best-fit code-page mappings (U+2215 "∕" and U+2044 "⁄" to `/`; U+00A5 "¥" and U+20A9 "₩" to
 * `\`, the byte 0x5C in Shift_JIS and EUC-KR, which those systems show and use as the path
 * separator), IDNA's full stops (UTS #46 maps U+3002 "。" and U+FF61 "｡" to `.`), and the
 * slashes, reverse solidi and diagonals that Unicode's confusables.txt lists for `/` and `\`.
 * The NFKC forms of U+FF61 and U+FE12 are U+3002, so those are caught through it.
 * @see Unicode Technical Standard #39 (confusables.txt), UTS #46 §4 (IDNA mapping)
 */
const CONFUSABLES: ReadonlyMap<number, string> = new Map([
  [0x2044, '/'], // FRACTION SLASH
  [0x2215, '/'], // DIVISION SLASH
  [0x2571, '/'], // BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT
  [0x27cb, '/'], // MATHEMATICAL RISING DIAGONAL
  [0x29f8, '/'], // BIG SOLIDUS
  [0x0338, '/'], // COMBINING LONG SOLIDUS OVERLAY
  [0x1735, '/'], // PHILIPPINE SINGLE PUNCTUATION
  [0x2216, '\\'], // SET MINUS
  [0x2572, '\\'], // BOX DRAWINGS LIGHT DIAGONAL UPPER LEFT TO LOWER RIGHT
  [0x27cd, '\\'], // MATHEMATICAL FALLING DIAGONAL
  [0x29f5, '\\'], // REVERSE SOLIDUS OPERATOR
  [0x29f9, '\\'], // BIG REVERSE SOLIDUS
  [0x00a5, '\\'], // YEN SIGN (0x5C in Shift_JIS)
  [0x20a9, '\\'], // WON SIGN (0x5C in EUC-KR)
  [0x3002, '.'], // IDEOGRAPHIC FULL STOP
]);

/**
 * The first character of a decoded path (or segment) that an application could read as ASCII it
 * is not, or undefined when there is none:
 * - any character outside ASCII whose NFKC form holds an ASCII character — full-width and small
 *   forms (`．` U+FF0E, `／` U+FF0F, `＼` U+FF3C, `﹒` U+FE52, `﹨` U+FE68), dot leaders (`․`
 *   U+2024, `‥` U+2025, `…`), full-width and mathematical letters (`ｐ` U+FF50, `𝐩`), ligatures,
 *   super- and subscripts, the Kelvin sign, the no-break space: an application that applies NFKC
 *   to its decoded path (Python's `unicodedata`, IDNA, many frameworks' "safe" path helpers) would
 *   resolve `／..／admin` as `/../admin`, or `/ｐremium` as `/premium`;
 * - the listed confusables of `/`, `\` and `.` (see `CONFUSABLES`: U+2215, U+2044, U+3002, …),
 *   directly or as the NFKC form of the character.
 *
 * Other non-ASCII text passes, even when NFKC changes it: `é` (U+00E9) is its own NFKC form, and
 * a decomposed `e` + U+0301 composes to `é`. For text that passes, NFKC makes no ASCII character
 * and keeps every `/`, `\`, `.`, `%`, `;`, `?`, `#` and NUL; it can only fold an ASCII letter into
 * the accented letter a combining mark makes of it (`e` + U+0301 → `é`; the marks that compose
 * with `<`, `=` or `>` are U+0338, refused above), which leaves the segment non-ASCII in both
 * readings. So a rule written in ASCII classes a path and its NFKC reading alike (the property
 * test in test/policy/request/pathLookAlike.test.ts); one with non-ASCII text may not, which the
 * sidecar checks (`nfkcReading`).
 * @example
 * ```ts
 * pathLookAlike('..／admin'); // { codePoint: 0xff0f, reads: '/', by: 'NFKC' }
 * pathLookAlike('..∕admin'); // { codePoint: 0x2215, reads: '/', by: 'confusable' }
 * pathLookAlike('café'); // undefined
 * ```
 */
export function pathLookAlike(text: string): PathLookAlike | undefined {
  for (const char of text) {
    const codePoint = char.codePointAt(0) as number;
    if (codePoint < 0x80) continue;
    const confusable = CONFUSABLES.get(codePoint);
    if (confusable !== undefined) return { codePoint, reads: confusable, by: 'confusable' };
    const compatible = char.normalize('NFKC');
    if (compatible === char) continue;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: any ASCII character, NUL included
    if (/[\u0000-\u007f]/.test(compatible)) return { codePoint, reads: compatible, by: 'NFKC' };
    for (const part of compatible) {
      const reads = CONFUSABLES.get(part.codePointAt(0) as number);
      if (reads !== undefined) return { codePoint, reads, by: 'confusable' };
    }
  }
  return undefined;
}
