/**
 * CSV for the generated docs (RFC 4180): a finite number in full, `n/a` for any other number.
 */
import { NOT_AVAILABLE } from './numberFormat.js';

/**
 * One CSV cell: a finite number in full (`String(x)`), `n/a` for any other number, a string as
 * is unless it holds a comma, quote or line break, then quoted with inner quotes doubled
 * (RFC 4180).
 */
export function csvCell(value: number | string): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : NOT_AVAILABLE;
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * One CSV line (no line break) of {@link csvCell}s.
 * @example
 * ```ts
 * csvLine(['long', 'difftry', 50, Number.NaN]); // 'long,difftry,50,n/a'
 * ```
 */
export function csvLine(values: readonly (number | string)[]): string {
  return values.map(csvCell).join(',');
}
