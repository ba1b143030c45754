/**
 * A line chart in panels (small multiples) for the generated docs: every panel shares the x axis
 * and the series legend, each has its own y axis from 0, the legend and notes run below.
 * docs/strategies.svg is one.
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

/** A series as the legend shows it; panels refer to it by `key`. */
export interface ChartSeries extends SeriesStyle {
  readonly key: string;
  readonly label: string;
}

/** One panel: a title, a y axis and lines of the chart's series. */
export interface ChartPanel {
  readonly title: string;
  readonly yLabel: string;
  /** Top of the y axis; default the {@link niceAxis} above every point and its bar. */
  readonly yMax?: number;
  /** Tick labels; default the tick value with as many decimals as the step needs. */
  readonly yTickFormat?: (value: number) => string;
  /** Each a polyline through its finite points, a marker on each, and bars where `ci95` > 0. */
  readonly lines: readonly { readonly series: string; readonly points: readonly ChartPoint[] }[];
}

/** A chart of {@link ChartPanel}s laid out `columns` to a row, legend and notes below. */
export interface PanelChart {
  readonly title: string;
  readonly xLabel: string;
  /** The x values to tick and label; the x axis runs from the first to the last. */
  readonly xTicks: readonly number[];
  readonly columns: number;
  readonly panels: readonly ChartPanel[];
  readonly series: readonly ChartSeries[];
  /** Lines of small print under the legend. */
  readonly notes?: readonly string[];
}

/**
 * A round axis top at or above `max` and its tick step: the step is 1, 2, 2.5 or 5 × 10^k, the
 * smallest giving at most `ticks` intervals. A non-positive or non-finite `max` gives { 1, 0.2 }.
 * @example
 * ```ts
 * niceAxis(0.62); // { max: 0.8, step: 0.2 }
 * niceAxis(17.4); // { max: 20, step: 5 }
 * ```
 */
export function niceAxis(max: number, ticks = 5): { readonly max: number; readonly step: number } {
  if (!(Number.isFinite(max) && max > 0)) return { max: 1, step: 0.2 };
  const rough = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  for (const factor of [1, 2, 2.5, 5, 10]) {
    const step = factor * magnitude;
    const top = Math.ceil(max / step - 1e-9) * step;
    if (top / step <= ticks + 1e-9) return { max: round(top), step: round(step) };
  }
  return { max: round(10 * magnitude * ticks), step: round(10 * magnitude) };
}

/** Rounds away binary noise (0.30000000000000004 → 0.3). */
function round(x: number): number {
  return Number.parseFloat(x.toPrecision(12));
}

/** Decimals needed to print multiples of `step` exactly (0.25 → 2, 5 → 0). */
function decimals(step: number): number {
  for (let d = 0; d < 6; d++) {
    if (Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) < 1e-9) return d;
  }
  return 6;
}

const PANEL_WIDTH = 290;
const PANEL_HEIGHT = 200;
const PANEL_LEFT = 58;
const PANEL_RIGHT = 18;
const PANEL_TOP = 30;
const PANEL_BOTTOM = 46;
const OUTER = 16;
const TITLE_HEIGHT = 40;
const LEGEND_COLUMNS = 3;
const LEGEND_ENTRY_WIDTH = 320;
const LEGEND_KEY_LENGTH = 32;
const LEGEND_ROW_HEIGHT = 22;
const NOTE_HEIGHT = 16;
const MARKER: MarkerSize = { radius: 3.5, outline: 1.8 };
const ERROR_BAR_WIDTH = 1.2;

/** The chart as an SVG document. */
export function panelChartSvg(chart: PanelChart): string {
  const seriesByKey = new Map(chart.series.map((s) => [s.key, s]));
  const cellWidth = PANEL_LEFT + PANEL_WIDTH + PANEL_RIGHT;
  const cellHeight = PANEL_TOP + PANEL_HEIGHT + PANEL_BOTTOM;
  const rows = Math.ceil(chart.panels.length / chart.columns);
  const legendRows = Math.ceil(chart.series.length / LEGEND_COLUMNS);
  const notes = chart.notes ?? [];
  const width = Math.max(
    2 * OUTER + chart.columns * cellWidth,
    2 * OUTER + LEGEND_COLUMNS * LEGEND_ENTRY_WIDTH,
  );
  const legendTop = TITLE_HEIGHT + rows * cellHeight + 8;
  const height =
    legendTop + legendRows * LEGEND_ROW_HEIGHT + 8 + notes.length * NOTE_HEIGHT + OUTER;
  const xFirst = chart.xTicks[0] ?? 0;
  const xLast = chart.xTicks[chart.xTicks.length - 1] ?? 1;
  const out: string[] = [
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];

  chart.panels.forEach((panel, index) => {
    const left = OUTER + (index % chart.columns) * cellWidth + PANEL_LEFT;
    const top = TITLE_HEIGHT + Math.floor(index / chart.columns) * cellHeight + PANEL_TOP;
    let highest = 0;
    for (const line of panel.lines) {
      for (const p of line.points) {
        const bar = Number.isFinite(p.ci95) ? (p.ci95 as number) : 0;
        if (Number.isFinite(p.y)) highest = Math.max(highest, p.y + bar);
      }
    }
    const axis =
      panel.yMax !== undefined ? niceAxis(panel.yMax) : niceAxis(highest > 0 ? highest : 1);
    const yMax = panel.yMax ?? axis.max;
    const format = panel.yTickFormat ?? ((v: number) => v.toFixed(decimals(axis.step)));
    const x = (v: number) => left + ((v - xFirst) / (xLast - xFirst || 1)) * PANEL_WIDTH;
    const y = (v: number) => top + (1 - Math.min(1, Math.max(0, v / yMax))) * PANEL_HEIGHT;

    out.push(
      `<text x="${px(left + PANEL_WIDTH / 2)}" y="${px(top - 10)}" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    for (let v = 0; v <= yMax + 1e-9; v = round(v + axis.step)) {
      const yy = px(y(v));
      out.push(
        `<line x1="${left}" y1="${yy}" x2="${left + PANEL_WIDTH}" y2="${yy}" stroke="#e6e6e6"/>`,
        `<line x1="${left - 4}" y1="${yy}" x2="${left}" y2="${yy}" stroke="#333333"/>`,
        `<text x="${left - 7}" y="${px(y(v) + 4)}" text-anchor="end">${escapeXml(format(v))}</text>`,
      );
    }
    for (const t of chart.xTicks) {
      const xx = px(x(t));
      out.push(
        `<line x1="${xx}" y1="${top}" x2="${xx}" y2="${top + PANEL_HEIGHT}" stroke="#f0f0f0"/>`,
        `<line x1="${xx}" y1="${top + PANEL_HEIGHT}" x2="${xx}" y2="${top + PANEL_HEIGHT + 4}" stroke="#333333"/>`,
        `<text x="${xx}" y="${top + PANEL_HEIGHT + 17}" text-anchor="middle" font-size="11">${t}</text>`,
      );
    }
    out.push(
      `<rect x="${left}" y="${top}" width="${PANEL_WIDTH}" height="${PANEL_HEIGHT}" fill="none" stroke="#333333"/>`,
      `<text x="${px(left + PANEL_WIDTH / 2)}" y="${top + PANEL_HEIGHT + 36}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
      `<text transform="translate(${left - 44} ${px(top + PANEL_HEIGHT / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
    );
    for (const line of panel.lines) {
      const s = seriesByKey.get(line.series);
      if (s === undefined) throw new RangeError(`panel "${panel.title}": no series ${line.series}`);
      const points = line.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
      if (points.length > 1)
        out.push(
          polylineSvg(
            s,
            points.map((p) => [x(p.x), y(p.y)]),
          ),
        );
      for (const p of points) {
        const cx = x(p.x);
        if (p.ci95 !== undefined && Number.isFinite(p.ci95) && p.ci95 > 0) {
          out.push(...errorBarSvg(s, cx, y(p.y - p.ci95), y(p.y + p.ci95), ERROR_BAR_WIDTH));
        }
        out.push(markerSvg(s, cx, y(p.y), MARKER));
      }
    }
  });

  chart.series.forEach((s, index) => {
    const lx = OUTER + 10 + (index % LEGEND_COLUMNS) * LEGEND_ENTRY_WIDTH;
    const ly = legendTop + Math.floor(index / LEGEND_COLUMNS) * LEGEND_ROW_HEIGHT + 10;
    out.push(...legendEntrySvg(s, s.label, lx, ly, LEGEND_KEY_LENGTH, MARKER));
  });
  notes.forEach((note, index) => {
    const ny = legendTop + legendRows * LEGEND_ROW_HEIGHT + 8 + index * NOTE_HEIGHT + 10;
    out.push(
      `<text x="${OUTER + 10}" y="${ny}" fill="#555555" font-size="11">${escapeXml(note)}</text>`,
    );
  });
  return svgDocument(String(width), px(height), out);
}
