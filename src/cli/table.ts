import { fixed as fixedDigits } from '../report/numberFormat.js';

/** A column of a text table: its heading and whether numbers align right (default true). */
export interface Column {
  readonly heading: string;
  readonly alignRight?: boolean;
}

/**
 * Renders rows as an aligned plain-text table with a rule under the headings. Cells are strings
 * already formatted by the caller.
 * @example
 * ```ts
 * formatTable([{ heading: 'class', alignRight: false }, { heading: 'rejection' }], [['high', '0.2027']]);
 * ```
 */
export function formatTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): string {
  const widths = columns.map((c, i) =>
    Math.max(c.heading.length, ...rows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i] ?? 0;
        return c.alignRight === false ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [line(columns.map((c) => c.heading)), rule, ...rows.map(line)].join('\n');
}

/** Formats a probability or ratio with 4 decimals. */
export function fixed(value: number, digits = 4): string {
  // A table spells out an infinity (a ratio over nothing) but marks an undefined figure.
  if (Number.isNaN(value)) return UNDEFINED_CELL;
  // A figure that rounds to zero is printed as 0, not -0 (a rounding error below zero).
  const text = fixedDigits(value, digits, String(value));
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** What a table prints for a figure that is not defined (NaN): see {@link UNDEFINED_NOTE}. */
export const UNDEFINED_CELL = '—';

/** The footnote of a simulation table with an {@link UNDEFINED_CELL} in it. */
export const UNDEFINED_NOTE =
  '—: not defined. A class with no requests has no rejection, one replication no half-width,\n' +
  '   a class with no successful request no latency, a run the analysis does not model no prediction.';

/**
 * Formats a value with its 95 % half-width: `0.2031 ± 0.0040`; `—` for a value that is not
 * defined, `0.2031 ± —` for a half-width that is not (one replication).
 */
export function withCi(value: number, ci95: number, digits = 4): string {
  if (Number.isNaN(value)) return UNDEFINED_CELL;
  return `${fixed(value, digits)} ± ${fixed(ci95, digits)}`;
}

/** The text with {@link UNDEFINED_NOTE} under it when some cell printed {@link UNDEFINED_CELL}. */
export function withUndefinedNote(text: string): string {
  return text.includes(UNDEFINED_CELL) ? `${text}\n${UNDEFINED_NOTE}` : text;
}

/**
 * Rows for a table grouped by an outer entity (a service) with one row per inner entity (a
 * class): the outer cells appear on the group's first row only.
 */
export function groupedRows<Outer, Inner>(
  groups: Readonly<Record<string, Outer>>,
  inner: (outer: Outer) => Readonly<Record<string, Inner>>,
  outerCells: (name: string, outer: Outer) => string[],
  innerCells: (name: string, value: Inner) => string[],
): string[][] {
  const rows: string[][] = [];
  for (const [name, outer] of Object.entries(groups)) {
    const head = outerCells(name, outer);
    Object.entries(inner(outer)).forEach(([innerName, value], i) => {
      rows.push([...(i === 0 ? head : head.map(() => '')), ...innerCells(innerName, value)]);
    });
  }
  return rows;
}
