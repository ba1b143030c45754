/**
 * The tuner's grid of retry limits on docs/metastability.md (a {@link MonostableGrid}): as a
 * table, its cells without a storm, and where it is not monotone in the limits.
 */

import type { MonostableGrid } from './MetastabilityResult.js';

/** The grid as Markdown table lines: · where the analysis finds no storm, `storm` where it does. */
export function gridTable(grid: MonostableGrid): string[] {
  const size = grid.storms.length;
  const lines = [
    `| k_high \\ k_low | ${Array.from({ length: size }, (_, i) => i).join(' | ')} |`,
    `| :--- | ${Array.from({ length: size }, () => ':---:').join(' | ')} |`,
  ];
  grid.storms.forEach((row, high) => {
    lines.push(
      `| ${high} | ${row.map((storms) => (Number.isFinite(storms) ? (storms > 0 ? 'storm' : '·') : 'n/a')).join(' | ')} |`,
    );
  });
  return lines;
}

/** Where a grid gains a storm with fewer retries: a storm at (h, l) but none at (h, l + 1) or (h + 1, l). */
export function nonMonotoneCells(grid: MonostableGrid): string[] {
  const out: string[] = [];
  grid.storms.forEach((row, high) => {
    row.forEach((storms, low) => {
      if (!(storms > 0)) return;
      const more = [
        [high, low + 1],
        [high + 1, low],
      ].filter(([h, l]) => grid.storms[h as number]?.[l as number] === 0);
      for (const [h, l] of more) out.push(`a storm at (${high}, ${low}), none at (${h}, ${l})`);
    });
  });
  return out;
}

/** The cells of a grid without a storm, as `(k_high, k_low)` pairs. */
export function monostableCells(grid: MonostableGrid): string {
  const cells: string[] = [];
  grid.storms.forEach((row, high) => {
    row.forEach((storms, low) => {
      if (storms === 0) cells.push(`(${high}, ${low})`);
    });
  });
  return cells.join(', ');
}
