/** Text whose percent-escapes were decoded as UTF-8. */
export interface DecodedText {
  readonly ok: true;
  /** The text, every `%HH` escape decoded; characters outside escapes kept as they are. */
  readonly text: string;
}

/** Escapes whose bytes are not UTF-8: no reader can be trusted to decode them alike. */
export interface InvalidUtf8 {
  readonly ok: false;
  /** What is wrong and where, in a few words: `an overlong encoding (%C0%AF)`. */
  readonly reason: string;
}

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/**
 * Decodes the percent-escapes of a path or segment (`%HH`, hex in any case) as UTF-8 — the
 * encoding RFC 3986 §2.5 and the WHATWG URL standard give non-ASCII text in a URI — refusing, with
 * a reason, every byte sequence RFC 3629 §3–4 does not allow: overlong forms (`%C0%AF` for `/`,
 * `%E0%80%AE` for `.`, which lenient decoders read as the ASCII they spell), UTF-16 surrogates
 * (U+D800–U+DFFF, `%ED%A0%80`), code points above U+10FFFF (`%F4%90%80%80`), bytes that never
 * start a sequence (`%80`–`%BF` alone, `%F5`–`%FF`) and sequences cut short (`%E2%88`, or one
 * interrupted by a character that is not an escape). Characters outside escapes, and a `%` not
 * followed by two hex digits, are kept as they are: checking them is the caller's business.
 * @see RFC 3629 §4 (the UTF8-octets grammar), Unicode 15 Table 3-7 (well-formed byte sequences)
 * @example
 * ```ts
 * percentDecodeUtf8('caf%C3%A9'); // { ok: true, text: 'café' }
 * percentDecodeUtf8('..%C0%AFadmin'); // { ok: false, reason: 'an overlong encoding (%C0%AF)' }
 * ```
 */
export function percentDecodeUtf8(text: string): DecodedText | InvalidUtf8 {
  if (!text.includes('%')) return { ok: true, text };
  let decoded = '';
  let i = 0;
  while (i < text.length) {
    const lead = byteAt(text, i);
    if (lead === undefined) {
      decoded += text[i] as string;
      i += 1;
      continue;
    }
    if (lead < 0x80) {
      decoded += String.fromCharCode(lead);
      i += 3;
      continue;
    }
    const sequence = sequenceOf(lead);
    if (typeof sequence === 'string') {
      // C0 and C1 begin two-byte forms of ASCII: quote the pair, `%C0%AF`, as the one spelled.
      const quoted = lead < 0xc2 && lead >= 0xc0 && byteAt(text, i + 3) !== undefined ? 6 : 3;
      return invalid(sequence, text.slice(i, i + quoted));
    }
    let codePoint = lead & sequence.leadMask;
    for (let k = 1; k <= sequence.continuations; k++) {
      const at = i + 3 * k;
      const next = byteAt(text, at);
      const escapes = text.slice(i, at + 3);
      if (next === undefined || next < 0x80 || next > 0xbf) {
        return invalid('a sequence cut short', text.slice(i, at));
      }
      if (k === 1 && next < sequence.secondMin) return invalid(sequence.belowSecond, escapes);
      if (k === 1 && next > sequence.secondMax) return invalid(sequence.aboveSecond, escapes);
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    decoded += String.fromCodePoint(codePoint);
    i += 3 * (sequence.continuations + 1);
  }
  return { ok: true, text: decoded };
}

/** How a lead byte's sequence goes on: continuation bytes, and the second byte's range. */
interface SequenceShape {
  readonly continuations: number;
  readonly leadMask: number;
  /** The second byte's bounds (RFC 3629 §4), narrower than 80–BF after E0, ED, F0 and F4. */
  readonly secondMin: number;
  readonly secondMax: number;
  /** Why a second byte below `secondMin` or above `secondMax` is refused. */
  readonly belowSecond: string;
  readonly aboveSecond: string;
}

const OVERLONG = 'an overlong encoding';
const SURROGATE = 'a UTF-16 surrogate (U+D800–U+DFFF)';
const ABOVE_MAX = 'a code point above U+10FFFF';

const shape = (
  continuations: number,
  leadMask: number,
  secondMin = 0x80,
  secondMax = 0xbf,
  belowSecond = OVERLONG,
  aboveSecond = ABOVE_MAX,
): SequenceShape => ({ continuations, leadMask, secondMin, secondMax, belowSecond, aboveSecond });

const TWO = shape(1, 0x1f);
const THREE = shape(2, 0x0f);
const THREE_AFTER_E0 = shape(2, 0x0f, 0xa0);
const THREE_AFTER_ED = shape(2, 0x0f, 0x80, 0x9f, OVERLONG, SURROGATE);
const FOUR = shape(3, 0x07);
const FOUR_AFTER_F0 = shape(3, 0x07, 0x90);
const FOUR_AFTER_F4 = shape(3, 0x07, 0x80, 0x8f);

/** The shape of the sequence a byte of 0x80 or more starts, or why it starts none. */
function sequenceOf(lead: number): SequenceShape | string {
  if (lead < 0xc0) return 'a continuation byte with no lead byte';
  if (lead < 0xc2) return OVERLONG;
  if (lead < 0xe0) return TWO;
  if (lead === 0xe0) return THREE_AFTER_E0;
  if (lead === 0xed) return THREE_AFTER_ED;
  if (lead < 0xf0) return THREE;
  if (lead === 0xf0) return FOUR_AFTER_F0;
  if (lead < 0xf4) return FOUR;
  if (lead === 0xf4) return FOUR_AFTER_F4;
  return lead < 0xf8 ? ABOVE_MAX : 'a byte that is never UTF-8';
}

/** The byte a `%HH` escape at `at` stands for, or undefined when none starts there. */
function byteAt(text: string, at: number): number | undefined {
  if (text.charCodeAt(at) !== 37 /* '%' */) return undefined;
  const hex = text.slice(at + 1, at + 3);
  return HEX_PAIR.test(hex) ? Number.parseInt(hex, 16) : undefined;
}

function invalid(what: string, escapes: string): InvalidUtf8 {
  return { ok: false, reason: `${what} (${escapes.toUpperCase()})` };
}
