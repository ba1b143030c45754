/**
 * A chart in panels for the generated docs where each panel has its own x axis and may shade
 * stretches of it (a capacity drop over time, say): per panel, lines and markers of the chart's
 * series, 95 % bars where given; one legend and notes below, as `panelChartSvg` draws them. The
 * marks, the axis rounding and the document frame are src/report's; only the layout is here,
 * because `panelChartSvg` shares one x axis between its panels and shades nothing.
 */
import { escapeXml } from '../../src/report/escapeXml.js';
import { type ChartSeries, niceAxis } from '../../src/report/panelChart.js';
import {
  type ChartPoint,
  errorBarSvg,
  legendEntrySvg,
  type MarkerSize,
  markerSvg,
  polylineSvg,
} from '../../src/report/seriesMarks.js';
import { px, svgDocument } from '../../src/report/svgDocument.js';

/** A stretch of a panel's x axis drawn shaded, with an optional label at its top. */
export interface ShadedBand {
  readonly from: number;
  readonly to: number;
  readonly label?: string;
}

/** One series' marks in a panel. */
export interface ShadedPanelLine {
  /** The key of a series of the chart. */
  readonly series: string;
  /** Points whose x or y is not finite are left out. */
  readonly points: readonly ChartPoint[];
  /** Draw the polyline through the points; default true (false: markers only). */
  readonly connect?: boolean;
}

/** A panel with its own axes. */
export interface ShadedPanel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** The x values to tick and label; the x axis runs from the first to the last. */
  readonly xTicks: readonly number[];
  /** Top of the y axis (from 0); default 1, the top for a fraction. */
  readonly yMax?: number;
  readonly bands?: readonly ShadedBand[];
  /** Drawn in order: lines first, markers (and their bars) over them. */
  readonly lines: readonly ShadedPanelLine[];
}

/** A {@link shadedPanelChartSvg} chart. */
export interface ShadedPanelChart {
  readonly title: string;
  readonly columns: number;
  readonly panels: readonly ShadedPanel[];
  readonly series: readonly ChartSeries[];
  /** Lines of small print under the legend. */
  readonly notes?: readonly string[];
}

const PANEL_WIDTH = 300;
const PANEL_HEIGHT = 200;
const PANEL_LEFT = 58;
const PANEL_RIGHT = 18;
const PANEL_TOP = 30;
const PANEL_BOTTOM = 46;
const OUTER = 16;
const TITLE_HEIGHT = 40;
const LEGEND_COLUMNS = 2;
const LEGEND_ENTRY_WIDTH = 330;
const LEGEND_KEY_LENGTH = 32;
const LEGEND_ROW_HEIGHT = 22;
const NOTE_HEIGHT = 16;
const MARKER: MarkerSize = { radius: 3, outline: 1.5 };
const ERROR_BAR_WIDTH = 1;
const BAND_FILL = '#fde2c8';

/**
 * The chart as an SVG document.
 * @throws RangeError when a panel names a series the chart does not have.
 * @example
 * ```ts
 * shadedPanelChartSvg({
 *   title: 'A capacity drop', columns: 1,
 *   series: [{ key: 'high', label: 'high class', color: '#1f77b4' }],
 *   panels: [{ title: 'uniform', xLabel: 't (s)', yLabel: 'rejection', xTicks: [0, 150, 300],
 *     bands: [{ from: 100, to: 110, label: 'μ × 0.3' }],
 *     lines: [{ series: 'high', points: [{ x: 0, y: 0 }, { x: 300, y: 1 }] }] }],
 * });
 * ```
 */
export function shadedPanelChartSvg(chart: ShadedPanelChart): string {
  const seriesByKey = new Map(chart.series.map((s) => [s.key, s]));
  const cellWidth = PANEL_LEFT + PANEL_WIDTH + PANEL_RIGHT;
  const cellHeight = PANEL_TOP + PANEL_HEIGHT + PANEL_BOTTOM;
  const rows = Math.ceil(chart.panels.length / chart.columns);
  const legendColumns = Math.max(1, Math.min(LEGEND_COLUMNS, chart.columns));
  const legendRows = Math.ceil(chart.series.length / legendColumns);
  const notes = chart.notes ?? [];
  const width = Math.max(
    2 * OUTER + chart.columns * cellWidth,
    2 * OUTER + legendColumns * LEGEND_ENTRY_WIDTH,
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
    const xFirst = panel.xTicks[0] ?? 0;
    const xLast = panel.xTicks[panel.xTicks.length - 1] ?? 1;
    const axis = niceAxis(panel.yMax ?? 1);
    const yMax = panel.yMax ?? 1;
    const clampX = (v: number) =>
      Math.min(Math.max(v, Math.min(xFirst, xLast)), Math.max(xFirst, xLast));
    const x = (v: number) => left + ((clampX(v) - xFirst) / (xLast - xFirst || 1)) * PANEL_WIDTH;
    const y = (v: number) => top + (1 - Math.min(1, Math.max(0, v / yMax))) * PANEL_HEIGHT;

    out.push(
      `<text x="${px(left + PANEL_WIDTH / 2)}" y="${px(top - 10)}" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(panel.title)}</text>`,
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
    for (let v = 0; v <= yMax + 1e-9; v = Number.parseFloat((v + axis.step).toPrecision(12))) {
      const yy = px(y(v));
      out.push(
        `<line x1="${left}" y1="${yy}" x2="${left + PANEL_WIDTH}" y2="${yy}" stroke="#e6e6e6"/>`,
        `<line x1="${left - 4}" y1="${yy}" x2="${left}" y2="${yy}" stroke="#333333"/>`,
        `<text x="${left - 7}" y="${px(y(v) + 4)}" text-anchor="end">${escapeXml(formatTick(v, axis.step))}</text>`,
      );
    }
    for (const t of panel.xTicks) {
      const xx = px(x(t));
      out.push(
        `<line x1="${xx}" y1="${top + PANEL_HEIGHT}" x2="${xx}" y2="${top + PANEL_HEIGHT + 4}" stroke="#333333"/>`,
        `<text x="${xx}" y="${top + PANEL_HEIGHT + 17}" text-anchor="middle" font-size="11">${t}</text>`,
      );
    }
    out.push(
      `<rect x="${left}" y="${top}" width="${PANEL_WIDTH}" height="${PANEL_HEIGHT}" fill="none" stroke="#333333"/>`,
      `<text x="${px(left + PANEL_WIDTH / 2)}" y="${top + PANEL_HEIGHT + 36}" text-anchor="middle">${escapeXml(panel.xLabel)}</text>`,
      `<text transform="translate(${left - 44} ${px(top + PANEL_HEIGHT / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
    );
    const seriesOf = (line: ShadedPanelLine) => {
      const s = seriesByKey.get(line.series);
      if (s === undefined) throw new RangeError(`panel "${panel.title}": no series ${line.series}`);
      return s;
    };
    const finite = (line: ShadedPanelLine) =>
      line.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
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
          out.push(...errorBarSvg(s, cx, y(p.y - p.ci95), y(p.y + p.ci95), ERROR_BAR_WIDTH));
        }
        out.push(markerSvg(s, cx, y(p.y), MARKER));
      }
    }
  });

  chart.series.forEach((s, index) => {
    const lx = OUTER + 10 + (index % legendColumns) * LEGEND_ENTRY_WIDTH;
    const ly = legendTop + Math.floor(index / legendColumns) * LEGEND_ROW_HEIGHT + 10;
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

/** A y tick with as many decimals as the step has (0.2 → `0.4`, 5 → `10`). */
function formatTick(value: number, step: number): string {
  return value.toFixed(String(step).split('.')[1]?.length ?? 0);
}
