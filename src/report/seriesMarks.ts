/**
 * The marks a data series leaves on a chart, shared by every chart of the generated docs: its
 * line, its point markers, its 95 % bars and its key in the legend. Positions are in px, already
 * scaled by the chart.
 */
import { escapeXml } from './escapeXml.js';
import { px } from './svgDocument.js';

/** A data point; `ci95`, when finite, is the half-width of its 95 % confidence interval. */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  readonly ci95?: number;
}

/** The shape drawn at each point of a series. */
export type MarkerShape = 'circle' | 'square' | 'diamond' | 'triangle' | 'none';

/** How a series looks. */
export interface SeriesStyle {
  /** Any SVG colour, e.g. `#1f77b4`. */
  readonly color: string;
  /** `stroke-dasharray` of its line; default solid. */
  readonly dash?: string;
  /** Width of its line in px; default 2. */
  readonly strokeWidth?: number;
  /** Default `circle`. */
  readonly marker?: MarkerShape;
}

/** The size of a marker, in px. */
export interface MarkerSize {
  /** Half the width of a circle or square; diamonds and triangles reach 1 px further. */
  readonly radius: number;
  /** Stroke width of the hollow shapes (square, triangle). */
  readonly outline: number;
}

/** The `stroke` attributes of a series' line: colour, width, and dash when it has one. */
export function strokeAttributes(style: SeriesStyle): string {
  return `stroke="${style.color}" stroke-width="${style.strokeWidth ?? 2}"${style.dash ? ` stroke-dasharray="${style.dash}"` : ''}`;
}

/**
 * The series' marker centred on (`cx`, `cy`): filled circles and diamonds with a white rim,
 * hollow squares and triangles; `''` for `none`.
 */
export function markerSvg(style: SeriesStyle, cx: number, cy: number, size: MarkerSize): string {
  const [x, y] = [px(cx), px(cy)];
  const { radius: r, outline } = size;
  const reach = r + 1;
  switch (style.marker ?? 'circle') {
    case 'none':
      return '';
    case 'circle':
      return `<circle cx="${x}" cy="${y}" r="${r}" fill="${style.color}" stroke="#ffffff" stroke-width="1"/>`;
    case 'square':
      return `<rect x="${px(cx - r)}" y="${px(cy - r)}" width="${2 * r}" height="${2 * r}" fill="#ffffff" stroke="${style.color}" stroke-width="${outline}"/>`;
    case 'diamond':
      return `<path d="M${x} ${px(cy - reach)}L${px(cx + reach)} ${y}L${x} ${px(cy + reach)}L${px(cx - reach)} ${y}Z" fill="${style.color}" stroke="#ffffff" stroke-width="1"/>`;
    case 'triangle':
      return `<path d="M${x} ${px(cy - reach)}L${px(cx + reach)} ${px(cy + r)}L${px(cx - reach)} ${px(cy + r)}Z" fill="#ffffff" stroke="${style.color}" stroke-width="${outline}"/>`;
  }
}

/** The series' line through `points` (px), in order. */
export function polylineSvg(
  style: SeriesStyle,
  points: readonly (readonly [number, number])[],
): string {
  const path = points.map(([x, y]) => `${px(x)},${px(y)}`).join(' ');
  return `<polyline points="${path}" fill="none" ${strokeAttributes(style)}/>`;
}

/**
 * A vertical error bar at `cx` from `y1` to `y2` (px), `width` px wide in the series' colour,
 * with caps reaching `cap` px either side at both ends when `cap` > 0.
 */
export function errorBarSvg(
  style: SeriesStyle,
  cx: number,
  y1: number,
  y2: number,
  width: number,
  cap = 0,
): string[] {
  const line = (xa: number, ya: number, xb: number, yb: number) =>
    `<line x1="${px(xa)}" y1="${px(ya)}" x2="${px(xb)}" y2="${px(yb)}" stroke="${style.color}" stroke-width="${width}"/>`;
  const bar = [line(cx, y1, cx, y2)];
  if (cap > 0) bar.push(line(cx - cap, y1, cx + cap, y1), line(cx - cap, y2, cx + cap, y2));
  return bar;
}

/**
 * The series' key in a legend: a stretch of its line `length` px long from (`x`, `y`), its marker
 * on the middle, and `label` after it.
 */
export function legendEntrySvg(
  style: SeriesStyle,
  label: string,
  x: number,
  y: number,
  length: number,
  size: MarkerSize,
): string[] {
  return [
    `<line x1="${x}" y1="${y}" x2="${x + length}" y2="${y}" ${strokeAttributes(style)}/>`,
    markerSvg(style, x + length / 2, y, size),
    `<text x="${x + length + 8}" y="${y + 4}">${escapeXml(label)}</text>`,
  ];
}
