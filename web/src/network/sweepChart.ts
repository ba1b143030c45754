import { line, pointer, scaleLinear, select } from 'd3';
import { fixed } from 'difftry/report';
import { axisBottom, axisLeft, chartFrame, drawAxes } from '../charts/axes.js';
import { classColorVariable } from '../charts/classColor.js';
import { type LegendEntry, renderLegend } from '../charts/legend.js';
import { tooltip } from '../charts/tooltip.js';
import { cssColor } from '../shell/theme.js';
import { hysteresisJumps } from './hysteresisLoop.js';
import type { SimulatedSweepPoint } from './simulateSweepPoints.js';
import type {
  BranchPoint,
  SweepConfiguration,
  SweepConfigurationKey,
  SweepPrediction,
} from './sweepPrediction.js';

/** How each configuration is drawn: DiffTry solid, uniform dashed; markers set 3 px apart. */
const STYLE: Readonly<Record<SweepConfigurationKey, { dash?: string; dx: number }>> = {
  difftry: { dx: -3 },
  uniform: { dash: '6 4', dx: 3 },
};

/** The height of the chart, px. */
const HEIGHT = 340;

/** What the chart shows besides its data: axis labels and the classes, highest first. */
export interface SweepChartSetup {
  /** `γ low at frontend (requests/s)`. */
  readonly xLabel: string;
  readonly classes: readonly string[];
  /** The highest swept value, requests/s. */
  readonly xMax: number;
}

/** The Figure 5 chart of the Network view. */
export interface SweepChart {
  /** Sets the predicted lines. */
  setPrediction(prediction: SweepPrediction): void;
  /** Sets the simulated points, drawn with their 95 % bars. */
  setSimulation(points: readonly SimulatedSweepPoint[]): void;
  /** Moves the marker of the rate the sliders set, requests/s. */
  setMarker(value: number): void;
  /** Redraws everything (a new theme or width). */
  redraw(): void;
}

/**
 * The sweep chart: end-to-end rejection per class against the swept arrival rate, predicted
 * lines for both configurations (both branches and the hysteresis jumps where a configuration is
 * bistable), simulated points with 95 % bars, the sliders' rate as a vertical rule, a legend and
 * one tooltip for every series at the hovered rate.
 */
export function createSweepChart(container: HTMLElement, setup: SweepChartSetup): SweepChart {
  const svgRoot = select(container)
    .append('svg')
    .attr('class', 'network-sweep-chart')
    .attr('data-testid', 'sweep-chart')
    .attr('height', HEIGHT);
  const legend = document.createElement('div');
  container.append(legend);
  const defs = svgRoot.append('defs');
  const inner = svgRoot.append('g');
  const layers = {
    grid: inner.append('g'),
    lines: inner.append('g'),
    jumps: inner.append('g'),
    simulated: inner.append('g'),
    marker: inner.append('line').attr('class', 'network-marker'),
    hover: inner.append('line').attr('class', 'network-hover').attr('visibility', 'hidden'),
    overlay: inner.append('rect').attr('fill', 'transparent'),
  };
  const tip = tooltip();
  let prediction: SweepPrediction | undefined;
  let simulated: readonly SimulatedSweepPoint[] = [];
  let marker = 0;
  const frame = () => chartFrame(Math.max(360, container.clientWidth || 640), HEIGHT);
  let x = scaleLinear();
  let y = scaleLinear();
  // Each class's colour, read from the theme once per frame (a redraw follows a theme change)
  // rather than once per mark.
  const readClassColors = () =>
    new Map(
      setup.classes.map((name, i) => [name, cssColor(classColorVariable(i, setup.classes.length))]),
    );
  let classColors = readClassColors();
  const colorOf = (name: string) => classColors.get(name) ?? '';

  function drawFrame(): void {
    const f = frame();
    classColors = readClassColors();
    svgRoot.attr('width', f.width + f.margin.left + f.margin.right);
    inner.attr('transform', `translate(${f.margin.left},${f.margin.top})`);
    x = scaleLinear().domain([0, setup.xMax]).range([0, f.width]);
    y = scaleLinear().domain([0, 1]).range([f.height, 0]);
    drawAxes(
      inner,
      f,
      { axis: axisBottom(x), label: setup.xLabel },
      { axis: axisLeft(y).ticks(5), label: 'end-to-end rejection (probability)' },
    );
    layers.grid
      .selectAll('line')
      .data(y.ticks(5))
      .join('line')
      .attr('class', 'gridline')
      .attr('x1', 0)
      .attr('x2', f.width)
      .attr('y1', (v) => y(v))
      .attr('y2', (v) => y(v));
    layers.overlay.attr('width', f.width).attr('height', f.height);
    layers.hover.attr('y1', 0).attr('y2', f.height);
    layers.marker.attr('y1', 0).attr('y2', f.height);
    defs
      .selectAll('marker')
      .data([null])
      .join('marker')
      .attr('id', 'network-jump-arrow')
      .attr('viewBox', '0 0 10 10')
      .attr('refX', 9)
      .attr('refY', 5)
      .attr('markerWidth', 7)
      .attr('markerHeight', 7)
      .attr('orient', 'auto-start-reverse')
      .selectAll('path')
      .data([null])
      .join('path')
      .attr('d', 'M0,0L10,5L0,10z')
      .attr('fill', cssColor('--muted'));
  }

  function drawLines(): void {
    const series = (prediction?.configurations ?? []).flatMap((configuration) =>
      setup.classes.map((name) => ({
        configuration,
        name,
        points: configuration.classes[name] ?? [],
      })),
    );
    // The healthy branch a thick line, the storm branch a thin one, each configuration dashed
    // as its STYLE says.
    for (const [branch, width] of [
      ['healthy', 2],
      ['storm', 1.25],
    ] as const) {
      const branchLine = line<BranchPoint>()
        .defined((p) => p[branch] !== undefined)
        .x((p) => x(p.value))
        .y((p) => y(p[branch] ?? 0));
      layers.lines
        .selectAll(`path.network-${branch}`)
        .data(series)
        .join('path')
        .attr('class', `network-${branch}`)
        .attr('fill', 'none')
        .attr('stroke', (s) => colorOf(s.name))
        .attr('stroke-width', width)
        .attr('stroke-dasharray', (s) => STYLE[s.configuration.key].dash ?? null)
        .attr('d', (s) => branchLine(s.points));
    }
    const stormDots = series.flatMap((s) =>
      s.points
        .filter((p) => p.storm !== undefined)
        .map((p) => ({ name: s.name, value: p.value, rejection: p.storm as number })),
    );
    layers.lines
      .selectAll('circle.network-storm-dot')
      .data(stormDots)
      .join('circle')
      .attr('class', 'network-storm-dot')
      .attr('r', 3)
      .attr('fill', 'none')
      .attr('stroke', (d) => colorOf(d.name))
      .attr('cx', (d) => x(d.value))
      .attr('cy', (d) => y(d.rejection));
    const jumps = series.flatMap((s) =>
      s.configuration.branches === undefined
        ? []
        : hysteresisJumps(s.points, s.configuration.branches).map((jump) => ({
            ...jump,
            name: s.name,
          })),
    );
    layers.jumps
      .selectAll('line')
      .data(jumps)
      .join('line')
      .attr('class', 'network-jump')
      .attr('stroke', (j) => colorOf(j.name))
      .attr('marker-end', 'url(#network-jump-arrow)')
      .attr('x1', (j) => x(j.value))
      .attr('x2', (j) => x(j.value))
      .attr('y1', (j) => y(j.from))
      .attr('y2', (j) => y(j.to));
    const ends = (prediction?.configurations ?? []).flatMap((c) =>
      [
        { kind: 'tips', value: c.branches?.tipping },
        { kind: 'recovers', value: c.branches?.recovery },
      ].flatMap((e) => (e.value === undefined ? [] : [{ ...e, value: e.value, key: c.key }])),
    );
    layers.jumps
      .selectAll('text')
      .data(ends)
      .join('text')
      .attr('class', 'network-jump-label')
      .attr('x', (e) => x(e.value))
      .attr('y', (e) => (e.kind === 'tips' ? 10 : 22) + (e.key === 'uniform' ? 24 : 0))
      .attr('text-anchor', 'middle')
      .text((e) => `${e.kind} ${Number(e.value.toPrecision(4))}`);
  }

  function drawSimulated(): void {
    const hollow = cssColor('--panel');
    const marks = simulated.flatMap((point) =>
      setup.classes.flatMap((name) => {
        const figure = point.classes[name];
        if (figure === undefined || !Number.isFinite(figure.rejection)) return [];
        return [{ point, name, ...figure, cx: x(point.value) + STYLE[point.configuration].dx }];
      }),
    );
    const groups = layers.simulated
      .selectAll<SVGGElement, (typeof marks)[number]>('g.network-sim')
      .data(marks)
      .join((enter) => {
        const g = enter.append('g').attr('class', 'network-sim');
        g.append('line').attr('data-testid', 'sim-bar').attr('class', 'network-sim-bar');
        g.append('circle').attr('r', 3.5);
        return g;
      });
    groups
      .select('line')
      .attr('stroke', (m) => colorOf(m.name))
      .attr('x1', (m) => m.cx)
      .attr('x2', (m) => m.cx)
      .attr('y1', (m) => y(Math.max(0, m.rejection - (m.rejectionCi95 || 0))))
      .attr('y2', (m) => y(Math.min(1, m.rejection + (m.rejectionCi95 || 0))));
    groups
      .select('circle')
      .attr('cx', (m) => m.cx)
      .attr('cy', (m) => y(m.rejection))
      .attr('fill', (m) => (m.point.configuration === 'uniform' ? hollow : colorOf(m.name)))
      .attr('stroke', (m) => colorOf(m.name));
  }

  function drawMarker(): void {
    layers.marker.attr('x1', x(marker)).attr('x2', x(marker));
  }

  function drawLegend(): void {
    const muted = cssColor('--muted');
    const entries: LegendEntry[] = [
      ...setup.classes.map((name) => ({ label: name, color: colorOf(name) })),
      ...(prediction?.configurations ?? []).map((c) => ({
        label: `${c.label} (predicted)`,
        color: muted,
        ...(STYLE[c.key].dash === undefined ? {} : { dash: STYLE[c.key].dash }),
      })),
    ];
    const hasStorm = prediction?.configurations.some((c) =>
      Object.values(c.classes).some((points) => points.some((p) => p.storm !== undefined)),
    );
    if (hasStorm) {
      entries.push({ label: 'storm branch (thin, hollow dots)', color: muted, mark: 'dot' });
    }
    entries.push({ label: 'simulated, 95 % bars (uniform hollow)', color: muted, mark: 'dot' });
    entries.push({ label: 'the sliders’ rate', color: cssColor('--fg'), dash: '2 2' });
    renderLegend(legend, entries);
  }

  function hoverText(value: number): string {
    const header = `${setup.xLabel.replace(/ \(requests\/s\)$/, '')} = ${value} requests/s`;
    const configurationText = (c: SweepConfiguration) => {
      const on = (branch: 'healthy' | 'storm') =>
        setup.classes
          .map((name) => {
            const p = c.classes[name]?.find((q) => q.value === value)?.[branch];
            return p === undefined ? undefined : `${name} ${fixed(p, 4)}`;
          })
          .filter((t) => t !== undefined);
      const healthy = on('healthy');
      const storm = on('storm');
      return [
        `${c.label}: ${healthy.length > 0 ? healthy.join(', ') : 'no healthy state'}`,
        ...(storm.length > 0 ? [`  storm: ${storm.join(', ')}`] : []),
      ];
    };
    const simulatedText = simulated
      .filter((p) => p.value === value)
      .map(
        (p) =>
          `simulated ${p.configuration === 'difftry' ? 'DiffTry' : 'uniform'}: ${setup.classes
            .map((name) => {
              const f = p.classes[name];
              return `${name} ${fixed(f?.rejection ?? Number.NaN, 4)} ± ${fixed(f?.rejectionCi95 ?? Number.NaN, 4)}`;
            })
            .join(', ')}`,
      );
    return [
      header,
      ...(prediction?.configurations ?? []).flatMap(configurationText),
      ...simulatedText,
    ].join('\n');
  }

  layers.overlay.on('pointermove', (event: PointerEvent) => {
    const values = prediction?.values ?? [];
    if (values.length === 0) return;
    const at = x.invert(pointer(event, inner.node())[0]);
    const nearest = values.reduce((best, v) => (Math.abs(v - at) < Math.abs(best - at) ? v : best));
    layers.hover.attr('x1', x(nearest)).attr('x2', x(nearest)).attr('visibility', 'visible');
    tip.show(event, hoverText(nearest));
  });
  layers.overlay.on('pointerleave', () => {
    layers.hover.attr('visibility', 'hidden');
    tip.hide();
  });

  const redraw = () => {
    drawFrame();
    drawLines();
    drawSimulated();
    drawMarker();
    drawLegend();
  };
  return {
    setPrediction(next) {
      prediction = next;
      drawLines();
      drawSimulated();
      drawLegend();
    },
    setSimulation(points) {
      simulated = points;
      drawSimulated();
    },
    setMarker(value) {
      marker = value;
      drawMarker();
    },
    redraw,
  };
}
