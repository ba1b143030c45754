import { InvalidArgumentError } from './InvalidArgumentError.js';

/**
 * The longest a client-supplied or user-supplied field may be in one log or error line, in
 * characters, before {@link printable} cuts it (what follows says how much was cut).
 */
export const PRINTABLE_MAX_CHARS = 200;

/** Options of {@link printable}. */
export interface PrintableOptions {
  /**
   * At most this many characters of the text are kept (before escaping); the rest is replaced
   * by `…(+N chars)`. `Infinity` keeps everything.
   * @default PRINTABLE_MAX_CHARS (200)
   */
  readonly maxChars?: number;
}

/**
 * Characters that must never reach a log line or a terminal as they are: C0 controls (tab, line
 * feed, carriage return, ESC that starts ANSI sequences, …), DEL, C1 controls (0x80–0x9F, among
 * them the 8-bit CSI), the line and paragraph separators U+2028/U+2029 (line breaks for many log
 * viewers and for JavaScript), the bidirectional overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069, which reorder what a reader sees), and the byte-order mark.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/**
 * A string safe to put inside one log or error line: every control character, ANSI escape,
 * line or paragraph separator and bidirectional override is written as a visible escape (`\n`,
 * `\r`, `\t`, `\x1b`, `\u2028`, …), a backslash as `\\` (so an escape in the input cannot pass for
 * one of ours), and text longer than `maxChars` is cut with a note of how much was left out.
 * Printable text, non-ASCII letters included, is kept as it is.
 *
 * Every string a client or a file supplies (an xDS `node.id` or NACK reason, a class name, a
 * path) goes through this one function before it reaches a log or an error message.
 * @example
 * ```ts
 * printable('n1\ndifftry xds: reloaded'); // 'n1\\ndifftry xds: reloaded' — one line
 * printable('x'.repeat(1000)).length;     // about 215: 200 kept, then '…(+800 chars)'
 * ```
 */
export function printable(text: string, options: Readonly<PrintableOptions> = {}): string {
  const maxChars = options.maxChars ?? PRINTABLE_MAX_CHARS;
  if (!(maxChars >= 0)) {
    throw new InvalidArgumentError(`maxChars should be a number ≥ 0, got ${String(maxChars)}`);
  }
  // Cut in UTF-16 units (cheap on a 1 MiB field), never inside a surrogate pair.
  let cut = text.length;
  if (text.length > maxChars) {
    cut = Math.floor(maxChars);
    const last = text.charCodeAt(cut - 1);
    if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut -= 1;
  }
  const kept = cut < text.length ? text.slice(0, cut) : text;
  const escaped = oneLine(kept.replace(/\\/g, '\\\\'));
  return cut < text.length ? `${escaped}…(+${text.length - cut} chars)` : escaped;
}

/**
 * The last guard of a line that difftry wrote itself (an error message with names in it): every
 * character that {@link printable} escapes is escaped the same way, but backslashes stay as they
 * are and nothing is cut, so a message stays readable while no name inside it can break the line
 * or drive the terminal. Strings from outside go through {@link printable} where they are quoted;
 * this is for the boundary where a whole message is written (the CLI's stderr).
 * @example
 * ```ts
 * oneLine('services "a\nb": no capacity'); // 'services "a\\nb": no capacity'
 * ```
 */
export function oneLine(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
