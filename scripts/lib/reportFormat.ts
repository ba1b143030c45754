/**
 * Number formatting for the generated docs (Markdown tables and CSV files): a figure the run did
 * not produce (NaN, ±Infinity) is written `n/a`, never `NaN`.
 */

/** `x` with `digits` decimals, or `n/a`. */
export function fixed(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : 'n/a';
}

/** A fraction as a percentage with `digits` decimals (`0.1234` → `12.3 %`), or `n/a`. */
export function percent(x: number, digits = 1): string {
  return Number.isFinite(x) ? `${(100 * x).toFixed(digits)} %` : 'n/a';
}

/** `x ± h` with `digits` decimals; `x` alone when `h` is not finite; `n/a` when `x` is not. */
export function plusMinus(x: number, h: number, digits = 2): string {
  if (!Number.isFinite(x)) return 'n/a';
  return Number.isFinite(h) ? `${x.toFixed(digits)} ± ${h.toFixed(digits)}` : x.toFixed(digits);
}

/** A fraction and its half-width as percentages (`12.3 ± 0.4 %`), as {@link plusMinus}. */
export function percentPlusMinus(x: number, h: number, digits = 1): string {
  if (!Number.isFinite(x)) return 'n/a';
  return `${plusMinus(100 * x, 100 * h, digits)} %`;
}

/**
 * One CSV cell: a finite number in full (`String(x)`), `n/a` for any other number, a string as
 * is unless it holds a comma, quote or line break, then quoted with inner quotes doubled
 * (RFC 4180).
 */
export function csvCell(value: number | string): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'n/a';
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV line (no line break) of {@link csvCell}s. */
export function csvLine(values: readonly (number | string)[]): string {
  return values.map(csvCell).join(',');
}
