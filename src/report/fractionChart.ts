/**
 * A single-plot chart of a fraction (0 to 1, e.g. end-to-end rejection) against x, for the
 * generated docs: per series, lines through predicted values and markers with 95 % bars at
 * measured ones; the legend and notes stand right of the plot. Both Figure 5 charts are one: the
 * simulated (docs/figure5.svg) and the live testbed's (docs/testbed-fig5.svg).
 */
import { escapeXml } from './escapeXml.js';
import {
  type ChartPoint,
  errorBarSvg,
  legendEntrySvg,
  type MarkerSize,
  markerSvg,
  polylineSvg,
  type SeriesStyle,
} from './seriesMarks.js';
import { px, svgDocument } from './svgDocument.js';

/** A line through one series' values; its stroke defaults to the series'. */
export interface FractionLine {
  /** Points whose x or y is not finite are left out; a line with no point is not drawn. */
  readonly points: readonly ChartPoint[];
  /** Width in px; default the series'. */
  readonly strokeWidth?: number;
  /** `stroke-dasharray`; default the series'. */
  readonly dash?: string;
}

/** A series: its style and legend label, the lines drawn in its colour, and its markers. */
export interface FractionSeries extends SeriesStyle {
  readonly label: string;
  /** Drawn in order, under the markers. */
  readonly lines: readonly FractionLine[];
  /** A marker at each finite point, with a bar from y − ci95 to y + ci95 where ci95 is finite. */
  readonly points: readonly ChartPoint[];
  /** Horizontal shift of the markers and bars in px, so series at the same x stay apart; default 0. */
  readonly dx?: number;
}

/** A line of small print under the legend. */
export interface ChartNote {
  readonly text: string;
  /**
   * Its baseline's distance in px below the previous note's; for the first note, below the
   * legend's end (one row below its last key).
   */
  readonly dy: number;
  /** Default `#555555`. */
  readonly color?: string;
  /** In px; default the document's 12. */
  readonly fontSize?: number;
}

/** A {@link fractionChartSvg} chart. */
export interface FractionChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** Size of the document in px; the plot fills it but for the margins and the legend's room. */
  readonly width: number;
  readonly height: number;
  /** Room in px right of the plot for the legend and the notes. */
  readonly legendWidth: number;
  /** The x values to grid and label; the x axis runs from the least to the greatest. */
  readonly xTicks: readonly number[];
  /** Tick marks outside the plot beside the grid lines; default false. */
  readonly tickMarks?: boolean;
  /** Half-width in px of the caps on the 95 % bars; default 0, no caps. */
  readonly barCap?: number;
  readonly series: readonly FractionSeries[];
  readonly notes?: readonly ChartNote[];
}

const LEFT = 64;
const TOP = 48;
const BOTTOM = 58;
const TICK_LENGTH = 5;
const LEGEND_GAP = 16;
const LEGEND_KEY_LENGTH = 30;
const LEGEND_ROW_HEIGHT = 22;
const MARKER: MarkerSize = { radius: 4, outline: 2 };
const BAR_WIDTH = 1.5;

/**
 * The chart as an SVG document. The y axis runs from 0 to 1 with a grid line every 0.1 (darker
 * at 0, 0.5 and 1) and a label every 0.2; values outside [0, 1] are drawn at the edge.
 * @example
 * ```ts
 * fractionChartSvg({
 *   title: 'Rejection', xLabel: 'γ_low', yLabel: 'end-to-end rejection',
 *   width: 720, height: 440, legendWidth: 190, xTicks: [50, 150, 250],
 *   series: [{ label: 'high', color: '#1f77b4',
 *     lines: [{ points: [{ x: 50, y: 0 }, { x: 250, y: 0.4 }] }],
 *     points: [{ x: 50, y: 0.01, ci95: 0.01 }, { x: 250, y: 0.38, ci95: 0.03 }] }],
 * });
 * ```
 */
export function fractionChartSvg(chart: FractionChart): string {
  const plotWidth = chart.width - LEFT - chart.legendWidth;
  const plotHeight = chart.height - TOP - BOTTOM;
  const bottom = TOP + plotHeight;
  const xMin = Math.min(...chart.xTicks);
  const xMax = Math.max(...chart.xTicks);
  const x = (v: number) =>
    LEFT + (xMax > xMin ? ((v - xMin) / (xMax - xMin)) * plotWidth : plotWidth / 2);
  const y = (v: number) => TOP + (1 - Math.min(1, Math.max(0, v))) * plotHeight;
  const finite = (p: ChartPoint) => Number.isFinite(p.x) && Number.isFinite(p.y);
  const out: string[] = [
    `<text x="${LEFT + plotWidth / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  for (let t = 0; t <= 10; t++) {
    const v = t / 10;
    const yy = px(y(v));
    out.push(
      `<line x1="${LEFT}" y1="${yy}" x2="${LEFT + plotWidth}" y2="${yy}" stroke="${t % 5 === 0 ? '#cccccc' : '#eeeeee'}"/>`,
    );
    if (chart.tickMarks) {
      out.push(
        `<line x1="${LEFT - TICK_LENGTH}" y1="${yy}" x2="${LEFT}" y2="${yy}" stroke="#333333"/>`,
      );
    }
    if (t % 2 === 0) {
      out.push(
        `<text x="${LEFT - 8}" y="${px(y(v) + 4)}" text-anchor="end">${v.toFixed(1)}</text>`,
      );
    }
  }
  for (const tick of chart.xTicks) {
    const xx = px(x(tick));
    out.push(`<line x1="${xx}" y1="${TOP}" x2="${xx}" y2="${bottom}" stroke="#eeeeee"/>`);
    if (chart.tickMarks) {
      out.push(
        `<line x1="${xx}" y1="${bottom}" x2="${xx}" y2="${bottom + TICK_LENGTH}" stroke="#333333"/>`,
      );
    }
    out.push(`<text x="${xx}" y="${bottom + 19}" text-anchor="middle">${tick}</text>`);
  }
  out.push(
    `<rect x="${LEFT}" y="${TOP}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#333333"/>`,
    `<text x="${LEFT + plotWidth / 2}" y="${chart.height - 14}" text-anchor="middle" font-size="13">${escapeXml(chart.xLabel)}</text>`,
    `<text transform="translate(18 ${TOP + plotHeight / 2}) rotate(-90)" text-anchor="middle" font-size="13">${escapeXml(chart.yLabel)}</text>`,
  );
  for (const s of chart.series) {
    for (const line of s.lines) {
      const points = line.points.filter(finite);
      if (points.length === 0) continue;
      const style = {
        ...s,
        strokeWidth: line.strokeWidth ?? s.strokeWidth,
        dash: line.dash ?? s.dash,
      };
      out.push(
        polylineSvg(
          style,
          points.map((p) => [x(p.x), y(p.y)]),
        ),
      );
    }
    for (const p of s.points.filter(finite)) {
      const cx = x(p.x) + (s.dx ?? 0);
      if (p.ci95 !== undefined && Number.isFinite(p.ci95)) {
        out.push(
          ...errorBarSvg(s, cx, y(p.y - p.ci95), y(p.y + p.ci95), BAR_WIDTH, chart.barCap ?? 0),
        );
      }
      out.push(markerSvg(s, cx, y(p.y), MARKER));
    }
  }
  const lx = LEFT + plotWidth + LEGEND_GAP;
  let ly = TOP + 8;
  out.push(`<text x="${lx}" y="${ly + 4}" font-weight="bold">Series</text>`);
  ly += LEGEND_ROW_HEIGHT;
  for (const s of chart.series) {
    out.push(...legendEntrySvg(s, s.label, lx, ly, LEGEND_KEY_LENGTH, MARKER));
    ly += LEGEND_ROW_HEIGHT;
  }
  for (const note of chart.notes ?? []) {
    ly += note.dy;
    const size = note.fontSize === undefined ? '' : ` font-size="${note.fontSize}"`;
    out.push(
      `<text x="${lx}" y="${ly}" fill="${note.color ?? '#555555'}"${size}>${escapeXml(note.text)}</text>`,
    );
  }
  return svgDocument(String(chart.width), String(chart.height), out);
}
