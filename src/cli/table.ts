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
  return Number.isFinite(value) ? value.toFixed(digits) : String(value);
}

/** Formats a value with its 95 % half-width: `0.2031 ± 0.0040`. */
export function withCi(value: number, ci95: number, digits = 4): string {
  return `${fixed(value, digits)} ± ${fixed(ci95, digits)}`;
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
