/**
 * Number formatting for reports: the generated docs (Markdown tables, CSV files), the scripts'
 * and the commands' text output. A figure that a run did not produce (NaN, ±Infinity) is written
 * {@link NOT_AVAILABLE} (or the caller's `missing` text), never `NaN`. Pure: no Node built-in.
 */

/** What a report writes for a figure that is not a finite number. */
export const NOT_AVAILABLE = 'n/a';

/**
 * `x` with `digits` decimals (default 2), or `missing` (default `n/a`) when `x` is not finite.
 * @example
 * ```ts
 * fixed(1.23456); // '1.23'
 * fixed(Number.NaN); // 'n/a'
 * ```
 */
export function fixed(x: number, digits = 2, missing = NOT_AVAILABLE): string {
  return Number.isFinite(x) ? x.toFixed(digits) : missing;
}

/**
 * `x` to `digits` significant digits (default 4), without trailing zeros or an exponent for
 * ordinary sizes: `0.151662` → `0.1517`, `1.5` → `1.5`, `5e-324` stays `5e-324`; or `n/a`. The
 * seconds of `difftry timeouts fit` and of the web UI's Timeouts view, so the two print alike.
 */
export function significant(x: number, digits = 4): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(digits))) : NOT_AVAILABLE;
}

/** A fraction as a percentage with `digits` decimals (default 1): `0.1234` → `12.3 %`; or `n/a`. */
export function percent(x: number, digits = 1): string {
  return Number.isFinite(x) ? `${(100 * x).toFixed(digits)} %` : NOT_AVAILABLE;
}

/** A fraction as percentage points without the unit (`0.1234` → `12.3`, 1 decimal), or `n/a`. */
export function percentPoints(x: number, digits = 1): string {
  return fixed(100 * x, digits);
}

/**
 * A signed difference of fractions in percentage points, 1 decimal, with a minus sign (U+2212)
 * or a plus: `0.012` → `+1.2`, `-0.012` → `−1.2`; `0.0` when it rounds to zero; or `n/a`.
 */
export function signedPercentPoints(x: number): string {
  if (!Number.isFinite(x)) return NOT_AVAILABLE;
  const points = (100 * Math.abs(x)).toFixed(1);
  return points === '0.0' ? '0.0' : `${x > 0 ? '+' : '−'}${points}`;
}

/** A fraction as a whole percentage, rounded half up (`0.425` → `43 %`); `NaN %` when not a number. */
export function wholePercent(fraction: number): string {
  return `${Math.round(100 * fraction)} %`;
}

/**
 * `x ± h` with `digits` decimals (default 2): `3.85 ± 0.01`; `x` alone when the half-width `h` is
 * not finite; `n/a` when `x` is not.
 */
export function plusMinus(x: number, h: number, digits = 2): string {
  if (!Number.isFinite(x)) return NOT_AVAILABLE;
  return Number.isFinite(h) ? `${x.toFixed(digits)} ± ${h.toFixed(digits)}` : x.toFixed(digits);
}

/**
 * A fraction and its half-width as percentages, `digits` decimals (default 1): `20.2 ± 0.4 %`;
 * as {@link plusMinus} for a half-width or value that is not finite (`20.2 %`, `n/a`).
 */
export function percentPlusMinus(x: number, h: number, digits = 1): string {
  if (!Number.isFinite(x)) return NOT_AVAILABLE;
  return `${plusMinus(100 * x, 100 * h, digits)} %`;
}

/** An integer count with thousands separators, as en-US writes it: `1234567` → `1,234,567`. */
export function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

const MIB = 1024 * 1024;

/** Bytes as mebibytes with one decimal: `140_700_000` → `134.2 MiB`. */
export function mebibytes(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}
