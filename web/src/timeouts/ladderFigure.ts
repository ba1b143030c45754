import {
  area,
  axisLeft,
  axisRight,
  line,
  pointer,
  type ScaleLinear,
  type Selection,
  scaleLinear,
  select,
} from 'd3';
import type { OptimizedTimeouts } from 'difftry/model';
import { fixed } from 'difftry/report';
import { axisBottom, type ChartFrame, drawAxes } from '../charts/axes.js';
import { renderLegend } from '../charts/legend.js';
import { tooltip } from '../charts/tooltip.js';
import { cssColor } from '../shell/theme.js';
import { type LawCurvePoint, nearestCurvePoint } from './lawCurves.js';
import { searchTreeLayout, type TreeDot, type TreeEdge } from './searchTreeLayout.js';
import { secondsText } from './secondsText.js';
import { timeoutHandle } from './timeoutHandle.js';
import type { TimeRange } from './timeRange.js';

/** Options of {@link ladderFigure}. */
export interface LadderFigureOptions {
  readonly range: () => TimeRange;
  /** The ceiling t_z now (s). */
  readonly tz: () => number;
  /** Called when the user moves t_z (s). */
  readonly onTzMove: (tzS: number) => void;
}

/** Fig 2, once built: its curves redrawn when the law or cost changes, its ladder per t_z. */
export interface LadderFigure {
  /** Redraws the time axis, f and g (top), E(t) (middle) and the tree pane's levels. */
  drawCurves(curves: readonly LawCurvePoint[], range: TimeRange, depth: number): void;
  /** Redraws the search tree, the ladder's rules and E_n, and the t_z handle. */
  drawLadder(result: OptimizedTimeouts): void;
  /** Re-reads the theme's colours (the legend's swatches). */
  redrawLegend(): void;
}

const WIDTH = 760;
const MARGIN = { top: 0, right: 64, bottom: 36, left: 64 };
const INNER_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
/** The three panes, top to bottom; the strip above the first holds the t_z handle. */
const PANES = {
  density: { top: 40, height: 120 },
  latency: { top: 196, height: 120 },
  tree: { top: 352, height: 100 },
} as const;
const HEIGHT = PANES.tree.top + PANES.tree.height + MARGIN.bottom + 12;
/** The cost axis reaches at least this (s), so a zero cost reads as 0 on a plain axis. */
const MIN_COST_AXIS_S = 0.1;
/** The E pane shows E up to this multiple of its least value (E → ∞ as t → 0). */
const LATENCY_HEADROOM = 3;

type Group = Selection<SVGGElement, unknown, null, undefined>;

const frameOf = (height: number): ChartFrame => ({ width: INNER_WIDTH, height, margin: MARGIN });

/**
 * Fig 2 of the timeouts paper: three panes on one time axis (s). Top: the latency density f as a
 * filled area and the attempt cost g(t) dashed (right axis). Middle: E(t) = a(t)/(1 − b(t)),
 * one timeout repeated, with the best single timeout and the ladder's E_n. Bottom: the
 * Optimizer's whole search tree, each candidate timeout a dot at its level (t_z at the top),
 * parent→child edges faint and the optimal path in the optimal colour. Vertical rules at the
 * ladder t_0 … t_z cross all three panes; t_z is dragged along the strip above them
 * (`tz-handle`). Marks are joined by key, so a drag moves elements rather than rebuilding them.
 */
export function ladderFigure(parent: HTMLElement, options: LadderFigureOptions): LadderFigure {
  const svg = select(parent)
    .append('svg')
    .attr('class', 'timeouts-figure')
    .attr('viewBox', `0 0 ${WIDTH} ${HEIGHT}`)
    .attr('role', 'group')
    .attr('aria-label', 'Latency density, expected latency and the Optimizer’s search tree');
  svg
    .append('defs')
    .append('clipPath')
    .attr('id', 'timeouts-latency-clip')
    .append('rect')
    .attr('width', INNER_WIDTH)
    .attr('height', PANES.latency.height);
  const inner = svg.append('g').attr('transform', `translate(${MARGIN.left},0)`);
  const pane = (top: number): Group => inner.append('g').attr('transform', `translate(0,${top})`);
  const densityPane = pane(PANES.density.top);
  const latencyPane = pane(PANES.latency.top);
  const treePane = pane(PANES.tree.top);

  let x: ScaleLinear<number, number> = scaleLinear().range([0, INNER_WIDTH]);
  let latencyY: ScaleLinear<number, number> = scaleLinear().range([PANES.latency.height, 0]);
  let levelY: ScaleLinear<number, number> = scaleLinear().range([10, PANES.tree.height - 10]);
  let curves: readonly LawCurvePoint[] = [];
  const hide = () => tooltip().hide();

  const densityArea = densityPane.append('path').attr('class', 'timeouts-density');
  const costLine = densityPane.append('path').attr('class', 'timeouts-cost');
  const costAxis = densityPane
    .append('g')
    .attr('class', 'axis')
    .attr('transform', `translate(${INNER_WIDTH},0)`);
  densityPane
    .append('text')
    .attr('class', 'axis-label')
    .attr('transform', 'rotate(90)')
    .attr('x', PANES.density.height / 2)
    .attr('y', -INNER_WIDTH - MARGIN.right + 14)
    .attr('text-anchor', 'middle')
    .text('g(t) (s)');
  const latencyLine = latencyPane
    .append('path')
    .attr('class', 'timeouts-latency')
    .attr('clip-path', 'url(#timeouts-latency-clip)');
  for (const [target, height] of [
    [densityPane, PANES.density.height],
    [latencyPane, PANES.latency.height],
  ] as const) {
    target
      .append('rect')
      .attr('class', 'timeouts-overlay')
      .attr('width', INNER_WIDTH)
      .attr('height', height)
      .on('pointermove', (event: PointerEvent) => {
        const point = nearestCurvePoint(curves, x.invert(pointer(event)[0]));
        if (point === undefined) return;
        tooltip().show(
          event,
          [
            `t = ${secondsText(point.t)}`,
            `f(t) = ${fixed(point.density, 3)} per s`,
            `g(t) = ${secondsText(point.cost)}`,
            `E(t) = ${secondsText(point.E)} (t repeated)`,
          ].join('\n'),
        );
      })
      .on('pointerleave', hide);
  }
  let singleText = '';
  const single = latencyPane
    .append('circle')
    .attr('class', 'timeouts-single')
    .attr('r', 5)
    .on('pointerenter', (event: PointerEvent) => tooltip().show(event, singleText))
    .on('pointerleave', hide);
  const ladderE = latencyPane.append('g');
  const edges = treePane.append('g');
  const dots = treePane.append('g');
  const rules = inner.append('g').attr('class', 'timeouts-rules');

  const handle = timeoutHandle(inner, {
    testId: 'tz-handle',
    label: 't_z, the ceiling of the ladder',
    x: () => x,
    range: options.range,
    value: options.tz,
    onMove: options.onTzMove,
  });
  handle.group
    .append('rect')
    .attr('class', 'timeouts-overlay')
    .attr('x', -12)
    .attr('width', 24)
    .attr('height', 36);
  handle.group.append('line').attr('class', 'timeouts-handle-line').attr('y1', 4).attr('y2', 36);
  handle.group.append('path').attr('class', 'timeouts-handle-grip').attr('d', 'M-9,12H9L0,30Z');
  handle.group
    .append('text')
    .attr('class', 'timeouts-handle-label')
    .attr('x', 12)
    .attr('y', 22)
    .text('t_z');

  const legend = document.createElement('div');
  parent.append(legend);

  return {
    drawCurves(next, range, depth) {
      curves = next;
      x = scaleLinear().domain([0, range.upperS]).range([0, INNER_WIDTH]);
      const timeAxis = axisBottom(x).ticks(10);
      const densityY = scaleLinear()
        .domain([0, Math.max(...next.map((p) => p.density))])
        .nice()
        .range([PANES.density.height, 0]);
      const costY = scaleLinear()
        .domain([0, Math.max(MIN_COST_AXIS_S, ...next.map((p) => p.cost))])
        .nice()
        .range([PANES.density.height, 0]);
      const leastE = Math.min(...next.map((p) => p.E));
      latencyY = scaleLinear()
        .domain([0, LATENCY_HEADROOM * leastE])
        .nice()
        .range([PANES.latency.height, 0]);
      levelY = scaleLinear()
        .domain([0, Math.max(1, depth - 1)])
        .range([10, PANES.tree.height - 10]);
      densityArea.attr(
        'd',
        area<LawCurvePoint>()
          .x((p) => x(p.t))
          .y0(PANES.density.height)
          .y1((p) => densityY(p.density))(next) ?? '',
      );
      costLine.attr(
        'd',
        line<LawCurvePoint>()
          .x((p) => x(p.t))
          .y((p) => costY(p.cost))(next) ?? '',
      );
      costAxis.call(axisRight(costY).ticks(4));
      latencyLine.attr(
        'd',
        line<LawCurvePoint>()
          .defined((p) => Number.isFinite(p.E))
          .x((p) => x(p.t))
          .y((p) => latencyY(Math.min(p.E, 2 * latencyY.domain()[1])))(next) ?? '',
      );
      drawAxes(
        densityPane,
        frameOf(PANES.density.height),
        { axis: timeAxis, label: '' },
        { axis: axisLeft(densityY).ticks(4), label: 'f (per s)' },
      );
      drawAxes(
        latencyPane,
        frameOf(PANES.latency.height),
        { axis: timeAxis, label: '' },
        { axis: axisLeft(latencyY).ticks(4), label: 'E (s)' },
      );
      drawAxes(
        treePane,
        frameOf(PANES.tree.height),
        { axis: timeAxis, label: 'timeout t (s)' },
        {
          axis: axisLeft(levelY)
            .tickValues(Array.from({ length: depth }, (_, level) => level))
            .tickFormat((level) => (Number(level) === 0 ? 't_z' : `t_z−${level}`)),
          label: 'candidate for',
        },
      );
    },
    drawLadder(result) {
      handle.place(result.tz);
      single.attr('cx', x(result.single.timeout)).attr('cy', latencyY(result.single.E));
      singleText = `best single timeout ${secondsText(result.single.timeout)}\nE = ${secondsText(result.single.E)}`;
      const ladder = result.sequence.map((t, n) => ({ t, E: result.E[n] as number, n }));
      const last = ladder.length - 1;
      const name = (n: number) => (n === last ? 't_z' : `t_${n}`);
      rules
        .selectAll<SVGLineElement, (typeof ladder)[number]>('line')
        .data(ladder)
        .join('line')
        .attr('x1', (d) => x(d.t))
        .attr('x2', (d) => x(d.t))
        .attr('y1', PANES.density.top - 4)
        .attr('y2', PANES.tree.top + PANES.tree.height);
      ladderE
        .selectAll<SVGCircleElement, (typeof ladder)[number]>('circle')
        .data(ladder)
        .join((enter) =>
          enter
            .append('circle')
            .attr('class', 'timeouts-ladder-e')
            .attr('r', 4)
            .on('pointerenter', (event: PointerEvent, d) =>
              tooltip().show(
                event,
                `${name(d.n)} = ${secondsText(d.t)}\nE_${d.n} = ${secondsText(d.E)} (from attempt ${d.n} on)`,
              ),
            )
            .on('pointerleave', hide),
        )
        .attr('cx', (d) => x(d.t))
        .attr('cy', (d) => latencyY(d.E));
      const tree = searchTreeLayout(result);
      edges
        .selectAll<SVGLineElement, TreeEdge>('line')
        .data(tree.edges, (d) => d.id)
        .join('line')
        .attr('class', (d) => (d.optimal ? 'timeouts-tree-edge optimal' : 'timeouts-tree-edge'))
        .attr('x1', (d) => x(d.parent.t))
        .attr('y1', (d) => levelY(d.parent.level))
        .attr('x2', (d) => x(d.child.t))
        .attr('y2', (d) => levelY(d.child.level));
      dots
        .selectAll<SVGCircleElement, TreeDot>('circle')
        .data(tree.dots, (d) => d.id)
        .join((enter) =>
          enter
            .append('circle')
            .attr('r', 4.5)
            .on('pointerenter', (event: PointerEvent, d) =>
              tooltip().show(
                event,
                `candidate for ${d.level === 0 ? 't_z' : `t_z−${d.level}`}: ${secondsText(d.t)}\nE from here = ${secondsText(d.E)}${d.optimal ? '\non the optimal path' : ''}`,
              ),
            )
            .on('pointerleave', hide),
        )
        .attr('class', (d) => (d.optimal ? 'timeouts-tree-dot optimal' : 'timeouts-tree-dot'))
        .attr('cx', (d) => x(d.t))
        .attr('cy', (d) => levelY(d.level));
    },
    redrawLegend() {
      const optimal = cssColor('--optimal');
      renderLegend(legend, [
        { label: 'latency density f', color: cssColor('--accent') },
        { label: 'attempt cost g(t) (right axis)', color: cssColor('--muted'), dash: '5 3' },
        { label: 'E(t): one timeout t, repeated', color: cssColor('--fg') },
        { label: 'best single timeout', color: cssColor('--good'), mark: 'dot' },
        { label: 'search tree: candidates and edges', color: cssColor('--muted'), mark: 'dot' },
        { label: 'optimal ladder t_0 … t_z and its E_n', color: optimal },
      ]);
    },
  };
}
