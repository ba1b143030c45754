import { area, axisBottom, pointer, type ScaleLinear, scaleLinear, select } from 'd3';
import type { AttemptOutcomeCost } from 'difftry/model';
import { fixed } from 'difftry/report';
import { renderLegend } from '../charts/legend.js';
import { tooltip } from '../charts/tooltip.js';
import { cssColor } from '../shell/theme.js';
import { type LawCurvePoint, nearestCurvePoint } from './lawCurves.js';
import { secondsText } from './secondsText.js';
import { timeoutHandle } from './timeoutHandle.js';
import type { TimeRange } from './timeRange.js';

/** Options of {@link markovFigure}. */
export interface MarkovFigureOptions {
  readonly range: () => TimeRange;
  /** The attempt's timeout now (s). */
  readonly value: () => number;
  /** Called when the user moves t (s). */
  readonly onMove: (tS: number) => void;
}

/** Fig 1, once built: redrawn piece by piece as the law or t changes. */
export interface MarkovFigure {
  /** Redraws the strip: the time axis and the law's density. */
  drawLaw(curves: readonly LawCurvePoint[], range: TimeRange): void;
  /** Shows one attempt with timeout `tS`: the handle, the chain's weights and the readouts. */
  drawAttempt(tS: number, attempt: AttemptOutcomeCost): void;
  /** Re-reads the theme's colours (the legend's swatches). */
  redrawLegend(): void;
}

const WIDTH = 760;
const STRIP = { left: 56, top: 14, width: 648, height: 44 };
const CHAIN_Y = 220;
const STATE_RADIUS = 44;
const UNCOMPLETED_X = 240;
const COMPLETED_X = 560;

/**
 * Fig 1 of the timeouts paper: one attempt with timeout t as a two-state Markov chain,
 * Uncompleted → Completed. The self-loop's weight is the timeout probability b(t), the
 * transition's the success probability 1 − b(t) (each drawn as wide as it is likely); t is
 * dragged along a strip above the chain that shows the latency density. Readouts: t, b(t),
 * 1 − b(t), a(t) and E(t) = a(t)/(1 − b(t)) (`timeout-probability` holds b(t) to 4 decimals).
 */
export function markovFigure(parent: HTMLElement, options: MarkovFigureOptions): MarkovFigure {
  const svg = select(parent)
    .append('svg')
    .attr('class', 'timeouts-figure')
    .attr('viewBox', `0 0 ${WIDTH} 276`)
    .attr('role', 'group')
    .attr('aria-label', 'One attempt as a Markov chain: Uncompleted to Completed');
  svg
    .append('defs')
    .append('marker')
    .attr('id', 'timeouts-arrow')
    .attr('viewBox', '0 0 10 10')
    .attr('refX', 9)
    .attr('refY', 5)
    .attr('markerWidth', 5)
    .attr('markerHeight', 5)
    .attr('orient', 'auto-start-reverse')
    .append('path')
    .attr('class', 'timeouts-arrowhead')
    .attr('d', 'M0,0L10,5L0,10z');

  const hide = () => tooltip().hide();
  let x: ScaleLinear<number, number> = scaleLinear().range([0, STRIP.width]);
  let curves: readonly LawCurvePoint[] = [];
  const strip = svg.append('g').attr('transform', `translate(${STRIP.left},${STRIP.top})`);
  const density = strip.append('path').attr('class', 'timeouts-density');
  const axis = strip
    .append('g')
    .attr('class', 'axis x-axis')
    .attr('transform', `translate(0,${STRIP.height})`);
  strip
    .append('text')
    .attr('class', 'axis-label')
    .attr('x', STRIP.width / 2)
    .attr('y', STRIP.height + 32)
    .attr('text-anchor', 'middle')
    .text('the attempt’s timeout t (s)');
  strip
    .append('rect')
    .attr('class', 'timeouts-overlay')
    .attr('width', STRIP.width)
    .attr('height', STRIP.height)
    .on('pointermove', (event: PointerEvent) => {
      const point = nearestCurvePoint(curves, x.invert(pointer(event)[0]));
      if (point === undefined) return;
      tooltip().show(event, `t = ${secondsText(point.t)}\nf(t) = ${fixed(point.density, 3)} per s`);
    })
    .on('pointerleave', hide);

  const handle = timeoutHandle(strip, {
    testId: 'markov-t-handle',
    label: 't, the timeout of the attempt',
    x: () => x,
    range: options.range,
    value: options.value,
    onMove: options.onMove,
  });
  handle.group.append('line').attr('class', 'timeouts-handle-line').attr('y2', STRIP.height);
  handle.group
    .append('circle')
    .attr('class', 'timeouts-handle-grip')
    .attr('cy', STRIP.height)
    .attr('r', 8);
  handle.group
    .append('text')
    .attr('class', 'timeouts-handle-label')
    .attr('y', -3)
    .attr('text-anchor', 'middle')
    .text('t');

  const chain = svg.append('g');
  /** The timeout probability shown now (the edges' tooltips read it). */
  let timeoutProbability = Number.NaN;
  const loop = chain
    .append('path')
    .attr('class', 'timeouts-chain-edge')
    .attr('marker-end', 'url(#timeouts-arrow)')
    .attr(
      'd',
      `M${UNCOMPLETED_X - 26},${CHAIN_Y - 36} C${UNCOMPLETED_X - 70},${CHAIN_Y - 120} ${UNCOMPLETED_X + 70},${CHAIN_Y - 120} ${UNCOMPLETED_X + 26},${CHAIN_Y - 36}`,
    );
  const transition = chain
    .append('path')
    .attr('class', 'timeouts-chain-edge')
    .attr('marker-end', 'url(#timeouts-arrow)')
    .attr('d', `M${UNCOMPLETED_X + STATE_RADIUS + 4},${CHAIN_Y}H${COMPLETED_X - STATE_RADIUS - 6}`);
  loop
    .on('pointerenter', (event: PointerEvent) =>
      tooltip().show(
        event,
        `timed out: the call tries again with t\n(probability b(t) = ${fixed(timeoutProbability, 4)})`,
      ),
    )
    .on('pointerleave', hide);
  transition
    .on('pointerenter', (event: PointerEvent) =>
      tooltip().show(
        event,
        `answered within t\n(probability 1 − b(t) = ${fixed(1 - timeoutProbability, 4)})`,
      ),
    )
    .on('pointerleave', hide);
  const loopLabel = chain
    .append('text')
    .attr('class', 'timeouts-chain-weight')
    .attr('x', UNCOMPLETED_X + 62)
    .attr('y', CHAIN_Y - 86);
  const transitionLabel = chain
    .append('text')
    .attr('class', 'timeouts-chain-weight')
    .attr('x', (UNCOMPLETED_X + COMPLETED_X) / 2)
    .attr('y', CHAIN_Y - 12)
    .attr('text-anchor', 'middle');
  for (const [cx, name, text] of [
    [UNCOMPLETED_X, 'Uncompleted', 'Uncompleted: the call waits on an attempt with timeout t'],
    [COMPLETED_X, 'Completed', 'Completed: an attempt answered within its timeout'],
  ] as const) {
    const state = chain.append('g').attr('transform', `translate(${cx},${CHAIN_Y})`);
    state
      .append('circle')
      .attr('class', 'timeouts-chain-state')
      .attr('r', STATE_RADIUS)
      .on('pointerenter', (event: PointerEvent) => tooltip().show(event, text))
      .on('pointerleave', hide);
    state.append('text').attr('text-anchor', 'middle').attr('dy', '0.35em').text(name);
  }

  const readout = document.createElement('dl');
  readout.className = 'timeouts-readout figure';
  const readoutValue = (term: string, testId: string): HTMLElement => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.dataset.testid = testId;
    readout.append(dt, dd);
    return dd;
  };
  const tText = readoutValue('timeout t', 'markov-t');
  const bText = readoutValue('timeout probability b(t)', 'timeout-probability');
  const successText = readoutValue('success probability 1 − b(t)', 'success-probability');
  const aText = readoutValue('mean cost of one attempt a(t)', 'attempt-cost');
  const eText = readoutValue('E(t) = a(t) / (1 − b(t))', 'markov-e');
  const legend = document.createElement('div');
  parent.append(readout, legend);

  return {
    drawLaw(next, range) {
      curves = next;
      x = scaleLinear().domain([0, range.upperS]).range([0, STRIP.width]);
      const y = scaleLinear()
        .domain([0, Math.max(...next.map((p) => p.density))])
        .range([STRIP.height, 4]);
      density.attr(
        'd',
        area<LawCurvePoint>()
          .x((p) => x(p.t))
          .y0(STRIP.height)
          .y1((p) => y(p.density))(next) ?? '',
      );
      axis.call(axisBottom(x).ticks(10));
    },
    drawAttempt(tS, attempt) {
      handle.place(tS);
      const success = 1 - attempt.b;
      loop.attr('stroke-width', 1.5 + 6 * attempt.b);
      transition.attr('stroke-width', 1.5 + 6 * success);
      loopLabel.text(`b(t) = ${fixed(attempt.b, 4)}`);
      transitionLabel.text(`1 − b(t) = ${fixed(success, 4)}`);
      timeoutProbability = attempt.b;
      tText.textContent = secondsText(tS);
      bText.textContent = fixed(attempt.b, 4);
      successText.textContent = fixed(success, 4);
      aText.textContent = secondsText(attempt.a);
      eText.textContent = secondsText(attempt.E);
    },
    redrawLegend() {
      renderLegend(legend, [
        { label: 'latency density f (per s)', color: cssColor('--accent') },
        {
          label: 't: drag it, or focus it and use the arrow keys',
          color: cssColor('--accent'),
          mark: 'dot',
        },
        { label: 'transition, as wide as it is likely', color: cssColor('--fg') },
      ]);
    },
  };
}
