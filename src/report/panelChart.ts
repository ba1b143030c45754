/**
 * A line chart in panels (small multiples) for the generated docs: the panels share the series
 * legend and, unless a panel has its own, the x axis; each has its own y axis from 0 and may
 * shade stretches of its x axis (a capacity drop over time, say); the legend and notes run below.
 * docs/strategies.svg and docs/metastability.svg are two.
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

/** A stretch of a panel's x axis drawn shaded, with an optional label at its top. */
export interface ChartBand {
  readonly from: number;
  readonly to: number;
  readonly label?: string;
}

/** One series' marks in a panel. */
export interface ChartLine {
  /** The key of a series of the chart. */
  readonly series: string;
  /** Points whose x or y is not finite are left out; a bar where `ci95` > 0. */
  readonly points: readonly ChartPoint[];
  /** Draw the polyline through the points; default true (false: markers only). */
  readonly connect?: boolean;
}

/** One panel: a title, a y axis and lines of the chart's series. */
export interface ChartPanel {
  readonly title: string;
  readonly yLabel: string;
  /** Top of the y axis; default the {@link niceAxis} above every point and its bar. */
  readonly yMax?: number;
  /** Tick labels; default the tick value with as many decimals as the step needs. */
  readonly yTickFormat?: (value: number) => string;
  /** This panel's own x ticks (the axis runs from the first to the last); default the chart's. */
  readonly xTicks?: readonly number[];
  /** This panel's own x label; default the chart's. */
  readonly xLabel?: string;
  /** Stretches of the x axis drawn shaded, under everything else. */
  readonly bands?: readonly ChartBand[];
  /** Drawn in order: every line first, then the markers and bars over them. */
  readonly lines: readonly ChartLine[];
}

/** Sizes of a {@link PanelChart}, for a chart that needs other proportions. */
export interface PanelLayout {
  /** Width of a panel's plot area, px; default 290. */
  readonly panelWidth?: number;
  /** Legend entries per row; default 3. */
  readonly legendColumns?: number;
  /** Width of a legend entry, px; default 320. */
  readonly legendEntryWidth?: number;
  /** Default radius 3.5, outline 1.8. */
  readonly marker?: MarkerSize;
  /** Default 1.2. */
  readonly errorBarWidth?: number;
  /** Faint vertical rules at the x ticks; default true. */
  readonly xGrid?: boolean;
}

/** A chart of {@link ChartPanel}s laid out `columns` to a row, legend and notes below. */
export interface PanelChart {
  readonly title: string;
  /** The x label of every panel without its own. */
  readonly xLabel?: string;
  /** The x values to tick and label on every panel without its own. */
  readonly xTicks?: readonly number[];
  readonly columns: number;
  readonly panels: readonly ChartPanel[];
  readonly series: readonly ChartSeries[];
  /** Lines of small print under the legend. */
  readonly notes?: readonly string[];
  readonly layout?: PanelLayout;
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

const PANEL_HEIGHT = 200;
const PANEL_LEFT = 58;
const PANEL_RIGHT = 18;
const PANEL_TOP = 30;
const PANEL_BOTTOM = 46;
const OUTER = 16;
const TITLE_HEIGHT = 40;
const LEGEND_KEY_LENGTH = 32;
const LEGEND_ROW_HEIGHT = 22;
const NOTE_HEIGHT = 16;
const BAND_FILL = '#fde2c8';

/**
 * The chart as an SVG document.
 * @throws RangeError when a panel names a series the chart does not have, or has no x ticks.
 * @example
 * ```ts
 * panelChartSvg({
 *   title: 'A capacity drop', columns: 1,
 *   series: [{ key: 'high', label: 'high class', color: '#1f77b4' }],
 *   panels: [{ title: 'uniform', xLabel: 't (s)', yLabel: 'rejection', yMax: 1,
 *     xTicks: [0, 150, 300], bands: [{ from: 100, to: 110, label: 'μ × 0.3' }],
 *     lines: [{ series: 'high', points: [{ x: 0, y: 0 }, { x: 300, y: 1 }] }] }],
 * });
 * ```
 */
export function panelChartSvg(chart: PanelChart): string {
  const layout = chart.layout ?? {};
  const panelWidth = layout.panelWidth ?? 290;
  const legendColumns = layout.legendColumns ?? 3;
  const legendEntryWidth = layout.legendEntryWidth ?? 320;
  const marker = layout.marker ?? { radius: 3.5, outline: 1.8 };
  const errorBarWidth = layout.errorBarWidth ?? 1.2;
  const seriesByKey = new Map(chart.series.map((s) => [s.key, s]));
  const cellWidth = PANEL_LEFT + panelWidth + PANEL_RIGHT;
  const cellHeight = PANEL_TOP + PANEL_HEIGHT + PANEL_BOTTOM;
  const rows = Math.ceil(chart.panels.length / chart.columns);
  const legendRows = Math.ceil(chart.series.length / legendColumns);
  const notes = chart.notes ?? [];
  const width = Math.max(
    2 * OUTER + chart.columns * cellWidth,
    2 * OUTER + legendColumns * legendEntryWidth,
  );
  const legendTop = TITLE_HEIGHT + rows * cellHeight + 8;
  const height =
    legendTop + legendRows * LEGEND_ROW_HEIGHT + 8 + notes.length * NOTE_HEIGHT + OUTER;
  const out: string[] = [
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];

  chart.panels.forEach((panel, index) => {
    const left = OUTER + (index % chart.columns) * cellWidth + PANEL_LEFT;
    const top = TITLE_HEIGHT + Math.floor(index / chart.columns) * cellHeight + PANEL_TOP;
    const xTicks = panel.xTicks ?? chart.xTicks;
    if (xTicks === undefined || xTicks.length === 0)
      throw new RangeError(`panel "${panel.title}": no x ticks (give the panel or the chart some)`);
    const seriesOf = (line: ChartLine) => {
      const s = seriesByKey.get(line.series);
      if (s === undefined) throw new RangeError(`panel "${panel.title}": no series ${line.series}`);
      return s;
    };
    const finite = (line: ChartLine) =>
      line.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    let highest = 0;
    for (const line of panel.lines) {
      for (const p of finite(line)) {
        const bar = Number.isFinite(p.ci95) ? (p.ci95 as number) : 0;
        highest = Math.max(highest, p.y + bar);
      }
    }
    const axis =
      panel.yMax !== undefined ? niceAxis(panel.yMax) : niceAxis(highest > 0 ? highest : 1);
    const yMax = panel.yMax ?? axis.max;
    const format = panel.yTickFormat ?? ((v: number) => v.toFixed(decimals(axis.step)));
    const xFirst = xTicks[0] as number;
    const xLast = xTicks[xTicks.length - 1] as number;
    const clampX = (v: number) =>
      Math.min(Math.max(v, Math.min(xFirst, xLast)), Math.max(xFirst, xLast));
    const x = (v: number) => left + ((clampX(v) - xFirst) / (xLast - xFirst || 1)) * panelWidth;
    const y = (v: number) => top + (1 - Math.min(1, Math.max(0, v / yMax))) * PANEL_HEIGHT;

    out.push(
      `<text x="${px(left + panelWidth / 2)}" y="${px(top - 10)}" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    for (const band of panel.bands ?? []) {
      const [x1, x2] = [x(band.from), x(band.to)];
      out.push(
        `<rect x="${px(Math.min(x1, x2))}" y="${top}" width="${px(Math.abs(x2 - x1))}" height="${PANEL_HEIGHT}" fill="${BAND_FILL}"/>`,
      );
      if (band.label !== undefined) {
        out.push(
          `<text x="${px(Math.max(x1, x2) + 3)}" y="${top + 12}" font-size="10" fill="#a0522d">${escapeXml(band.label)}</text>`,
        );
      }
    }
    for (let v = 0; v <= yMax + 1e-9; v = round(v + axis.step)) {
      const yy = px(y(v));
      out.push(
        `<line x1="${left}" y1="${yy}" x2="${left + panelWidth}" y2="${yy}" stroke="#e6e6e6"/>`,
        `<line x1="${left - 4}" y1="${yy}" x2="${left}" y2="${yy}" stroke="#333333"/>`,
        `<text x="${left - 7}" y="${px(y(v) + 4)}" text-anchor="end">${escapeXml(format(v))}</text>`,
      );
    }
    for (const t of xTicks) {
      const xx = px(x(t));
      if (layout.xGrid !== false)
        out.push(
          `<line x1="${xx}" y1="${top}" x2="${xx}" y2="${top + PANEL_HEIGHT}" stroke="#f0f0f0"/>`,
        );
      out.push(
        `<line x1="${xx}" y1="${top + PANEL_HEIGHT}" x2="${xx}" y2="${top + PANEL_HEIGHT + 4}" stroke="#333333"/>`,
        `<text x="${xx}" y="${top + PANEL_HEIGHT + 17}" text-anchor="middle" font-size="11">${t}</text>`,
      );
    }
    out.push(
      `<rect x="${left}" y="${top}" width="${panelWidth}" height="${PANEL_HEIGHT}" fill="none" stroke="#333333"/>`,
      `<text x="${px(left + panelWidth / 2)}" y="${top + PANEL_HEIGHT + 36}" text-anchor="middle">${escapeXml(panel.xLabel ?? chart.xLabel ?? '')}</text>`,
      `<text transform="translate(${left - 44} ${px(top + PANEL_HEIGHT / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
    );
    for (const line of panel.lines) {
      const s = seriesOf(line);
      const points = finite(line);
      if (line.connect !== false && points.length > 1) {
        out.push(
          polylineSvg(
            s,
            points.map((p) => [x(p.x), y(p.y)]),
          ),
        );
      }
    }
    for (const line of panel.lines) {
      const s = seriesOf(line);
      for (const p of finite(line)) {
        const cx = x(p.x);
        if (p.ci95 !== undefined && Number.isFinite(p.ci95) && p.ci95 > 0) {
          out.push(...errorBarSvg(s, cx, y(p.y - p.ci95), y(p.y + p.ci95), errorBarWidth));
        }
        out.push(markerSvg(s, cx, y(p.y), marker));
      }
    }
  });

  chart.series.forEach((s, index) => {
    const lx = OUTER + 10 + (index % legendColumns) * legendEntryWidth;
    const ly = legendTop + Math.floor(index / legendColumns) * LEGEND_ROW_HEIGHT + 10;
    out.push(...legendEntrySvg(s, s.label, lx, ly, LEGEND_KEY_LENGTH, marker));
  });
  notes.forEach((note, index) => {
    const ny = legendTop + legendRows * LEGEND_ROW_HEIGHT + 8 + index * NOTE_HEIGHT + 10;
    out.push(
      `<text x="${OUTER + 10}" y="${ny}" fill="#555555" font-size="11">${escapeXml(note)}</text>`,
    );
  });
  return svgDocument(String(width), px(height), out);
}
