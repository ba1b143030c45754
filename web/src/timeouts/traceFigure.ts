import { axisLeft, line, pointer, scaleLinear, scaleLog, select } from 'd3';
import { axisBottom, chartFrame, drawAxes } from '../charts/axes.js';
import { renderLegend } from '../charts/legend.js';
import { tooltip } from '../charts/tooltip.js';
import { cssColor } from '../shell/theme.js';
import { secondsText } from './secondsText.js';
import type { TimeoutTrace, TracedRequest } from './timeoutTrace.js';

/** Fig 3, once built: redrawn for each trace. */
export interface TraceFigure {
  draw(trace: TimeoutTrace): void;
  /** Re-reads the theme's colours (the legend's swatches). */
  redrawLegend(): void;
}

const WIDTH = 760;
const HEIGHT = 320;
/** Radius of an attempt's dot and half-size of a timed-out attempt's cross, px. */
const MARK_SIZE = 1.8;

/**
 * Fig 3 of the timeouts paper: a strategy's run through a scenario, request by request (x) on
 * a log latency axis (s): the scenario's noise-free latency curve, the timeout the strategy set
 * for each request's first attempt, and every attempt's latency, completed attempts as dots and
 * timed-out ones as crosses (at the latency they would have taken). The initialisation, sent but
 * not measured, is shaded. All dots share one path and all crosses another: 800 requests are a
 * thousand marks or more.
 */
export function traceFigure(parent: HTMLElement): TraceFigure {
  const frame = chartFrame(WIDTH, HEIGHT);
  const svg = select(parent)
    .append('svg')
    .attr('class', 'timeouts-figure')
    .attr('viewBox', `0 0 ${WIDTH} ${HEIGHT}`)
    .attr('role', 'img')
    .attr('aria-label', 'Each request’s attempts and timeouts over the run');
  const g = svg
    .append('g')
    .attr('transform', `translate(${frame.margin.left},${frame.margin.top})`);
  const initShade = g.append('rect').attr('class', 'timeouts-init').attr('height', frame.height);
  const initLabel = g.append('text').attr('class', 'timeouts-init-label').attr('y', 12);
  const completed = g.append('path').attr('class', 'timeouts-trace-completed');
  const timedOut = g.append('path').attr('class', 'timeouts-trace-timed-out');
  const curve = g.append('path').attr('class', 'timeouts-trace-curve');
  const firstTimeout = g.append('path').attr('class', 'timeouts-trace-timeout');
  let x = scaleLinear().range([0, frame.width]);
  let requests: readonly TracedRequest[] = [];
  g.append('rect')
    .attr('class', 'timeouts-overlay')
    .attr('width', frame.width)
    .attr('height', frame.height)
    .on('pointermove', (event: PointerEvent) => {
      const index = Math.floor(x.invert(pointer(event)[0]));
      const request = requests[index];
      if (request === undefined) return;
      const attempts = request.attempts.map(
        (a, n) =>
          `attempt ${n}: ${secondsText(a.latencyS)}${a.timeoutS === undefined ? ', no timeout' : `, timeout ${secondsText(a.timeoutS)}`}${a.timedOut ? ': timed out' : ''}`,
      );
      tooltip().show(
        event,
        [
          `request ${index}${request.measured ? '' : ' (initialisation)'}: curve ${secondsText(request.curveS)}`,
          ...attempts,
        ].join('\n'),
      );
    })
    .on('pointerleave', () => tooltip().hide());
  const legend = document.createElement('div');
  parent.append(legend);

  return {
    draw(trace) {
      requests = trace.requests;
      x = scaleLinear().domain([0, requests.length]).range([0, frame.width]);
      const seconds = requests.flatMap((r) => [
        r.curveS,
        ...r.attempts.flatMap((a) => [a.latencyS, a.timeoutS ?? a.latencyS]),
      ]);
      const y = scaleLog()
        .domain([Math.min(...seconds) * 0.8, Math.max(...seconds) * 1.25])
        .nice()
        .range([frame.height, 0]);
      const firstMeasured = requests.findIndex((r) => r.measured);
      initShade.attr('width', x(firstMeasured));
      initLabel
        .attr('x', x(firstMeasured / 2))
        .attr('text-anchor', 'middle')
        .text('initialisation');
      const marks = (timedOutMarks: boolean) =>
        requests
          .flatMap((r, i) =>
            r.attempts
              .filter((a) => a.timedOut === timedOutMarks)
              .map((a) => {
                const [px, py] = [x(i + 0.5), y(a.latencyS)];
                return timedOutMarks
                  ? `M${px - MARK_SIZE},${py - MARK_SIZE}l${2 * MARK_SIZE},${2 * MARK_SIZE}m0,${-2 * MARK_SIZE}l${-2 * MARK_SIZE},${2 * MARK_SIZE}`
                  : `M${px - MARK_SIZE},${py}a${MARK_SIZE},${MARK_SIZE} 0 1,0 ${2 * MARK_SIZE},0a${MARK_SIZE},${MARK_SIZE} 0 1,0 ${-2 * MARK_SIZE},0`;
              }),
          )
          .join('');
      completed.attr('d', marks(false));
      timedOut.attr('d', marks(true));
      curve.attr(
        'd',
        line<TracedRequest>()
          .x((_, i) => x(i + 0.5))
          .y((r) => y(r.curveS))(requests) ?? '',
      );
      firstTimeout.attr(
        'd',
        line<TracedRequest>()
          .defined((r) => r.attempts[0]?.timeoutS !== undefined)
          .x((_, i) => x(i + 0.5))
          .y((r) => y(r.attempts[0]?.timeoutS as number))(requests) ?? '',
      );
      drawAxes(
        g,
        frame,
        { axis: axisBottom(x).ticks(8), label: 'request' },
        { axis: axisLeft(y).ticks(6, '~g'), label: 'latency, timeout (s)' },
      );
    },
    redrawLegend() {
      renderLegend(legend, [
        { label: 'scenario latency curve', color: cssColor('--fg') },
        { label: 'timeout of the first attempt', color: cssColor('--accent') },
        { label: 'attempt answered', color: cssColor('--muted'), mark: 'dot' },
        { label: 'attempt timed out', color: cssColor('--bad'), mark: 'dot' },
        { label: 'initialisation (not measured)', color: cssColor('--grid') },
      ]);
    },
  };
}
