import { axisBottom, axisLeft, format, line, type Selection, scaleLinear, select } from 'd3';
import type { TestbedEvent } from 'difftry/ui';
import { chartFrame, drawAxes } from '../charts/axes.js';
import { classColorVariable } from '../charts/classColor.js';
import { renderLegend } from '../charts/legend.js';
import { tooltip } from '../charts/tooltip.js';
import { cssColor } from '../shell/theme.js';
import type { View, ViewContext } from '../shell/ViewContext.js';
import { classPoints, type MeasuredPoint } from './testbedEvents.js';
import './testbed.css';

/** The testbed view: starts a run on the server, draws each measured point as it streams in. */
export const testbedView: View = {
  mount(root, context) {
    mountTestbed(root, context);
  },
};

function mountTestbed(root: HTMLElement, context: ViewContext): void {
  const { url } = context;
  root.innerHTML = `
    <div class="panel testbed-controls">
      <h2>Live testbed</h2>
      <p class="muted">Starts real services on this machine's loopback (the server that serves this page runs them),
      loads them with Poisson clients, and draws each measured point beside the analysis's prediction as it arrives.
      One run at a time.</p>
      <div class="row">
        <label>Run <select data-testid="testbed-kind">
          <option value="run">testbed run (hotelReservation, one point)</option>
          <option value="fig5">testbed fig5 --quick (3 points × 2 limits)</option>
        </select></label>
        <label>Transport <select data-testid="testbed-transport">
          <option value="http">HTTP, DiffTry sidecars</option>
          <option value="grpc-xds">gRPC, xDS retries</option>
        </select></label>
        <label>Window <input type="number" data-testid="testbed-duration" min="0.2" max="120" step="0.1" placeholder="default" /> s</label>
        <label>Warm-up <input type="number" data-testid="testbed-warmup" min="0" max="60" step="0.1" placeholder="default" /> s</label>
        <label>Scale <input type="number" data-testid="testbed-scale" min="0.01" max="1" step="0.01" placeholder="0.5" /></label>
        <button type="button" data-testid="testbed-start">Start</button>
        <button type="button" data-testid="testbed-stop" disabled>Stop</button>
      </div>
      <div class="row testbed-state">
        <progress data-testid="testbed-progress" max="1" value="0"></progress>
        <span data-testid="testbed-status" class="figure">idle</span>
      </div>
    </div>
    <div class="panel">
      <h2>Measured beside predicted</h2>
      <svg class="testbed-chart" role="img" aria-label="End-to-end rejection per class: measured points with 95 % bars, predicted rings"></svg>
      <div class="testbed-legend"></div>
      <table class="testbed-table"><thead><tr><th>γ_low (req/s)</th><th>k</th><th>class</th><th>measured</th><th>± 95 %</th><th>predicted</th><th>p50 (s)</th></tr></thead><tbody data-testid="testbed-rows"></tbody></table>
    </div>`;
  const $ = <T extends Element>(id: string) => root.querySelector(`[data-testid="${id}"]`) as T;
  const kind = $<HTMLSelectElement>('testbed-kind');
  const transport = $<HTMLSelectElement>('testbed-transport');
  const duration = $<HTMLInputElement>('testbed-duration');
  const warmup = $<HTMLInputElement>('testbed-warmup');
  const scale = $<HTMLInputElement>('testbed-scale');
  const start = $<HTMLButtonElement>('testbed-start');
  const stop = $<HTMLButtonElement>('testbed-stop');
  const progress = $<HTMLProgressElement>('testbed-progress');
  const status = $<HTMLSpanElement>('testbed-status');
  const rows = $<HTMLTableSectionElement>('testbed-rows');
  const svg = select(root.querySelector('svg.testbed-chart') as SVGSVGElement);
  const legend = root.querySelector('.testbed-legend') as HTMLElement;

  kind.value = url.get('tb.kind') === 'fig5' ? 'fig5' : 'run';
  transport.value = url.get('tb.transport') === 'grpc-xds' ? 'grpc-xds' : 'http';
  for (const [input, key] of [
    [duration, 'tb.duration'],
    [warmup, 'tb.warmup'],
    [scale, 'tb.scale'],
  ] as const) {
    input.value = url.get(key) ?? '';
    input.addEventListener('change', () => url.set({ [key]: input.value || undefined }));
  }
  kind.addEventListener('change', () => url.set({ 'tb.kind': kind.value }));
  transport.addEventListener('change', () => url.set({ 'tb.transport': transport.value }));

  // The current run's measured points: cleared when a run starts, drawn again when one arrives
  // (progress events, several a second, touch only the bar and the status line).
  let points: MeasuredPoint[] = [];
  const redraw = () => {
    drawChart(svg, legend, points);
    rows.replaceChildren(
      ...points.map((p) => {
        const tr = document.createElement('tr');
        tr.dataset.testid = 'testbed-row';
        for (const cell of [
          String(p.x),
          p.k,
          p.className,
          p.measured.toFixed(4),
          p.ci95.toFixed(4),
          p.predicted.toFixed(4),
          Number.isFinite(p.p50) ? p.p50.toFixed(3) : '—',
        ]) {
          const td = document.createElement('td');
          td.textContent = cell;
          tr.append(td);
        }
        return tr;
      }),
    );
  };

  const source = new EventSource('api/testbed/events');
  const onEvent = (message: MessageEvent<string>) => {
    const event = JSON.parse(message.data) as TestbedEvent;
    switch (event.kind) {
      case 'started':
        points = [];
        redraw();
        status.textContent = `running ${event.request.kind === 'fig5' ? 'fig5 --quick' : 'testbed run'}…`;
        progress.value = 0;
        start.disabled = true;
        stop.disabled = false;
        break;
      case 'progress':
        progress.value = event.fraction;
        status.textContent = `${Math.round(100 * event.fraction)} % · ${event.label}`;
        break;
      case 'point':
        points = [...points, ...classPoints(event)];
        redraw();
        break;
      case 'done':
      case 'stopped':
      case 'error':
        start.disabled = false;
        stop.disabled = true;
        status.textContent =
          event.kind === 'error'
            ? `failed: ${event.message}`
            : `${event.kind} after ${event.seconds.toFixed(1)} s`;
        if (event.kind === 'done') progress.value = 1;
        break;
    }
  };
  for (const name of ['started', 'progress', 'point', 'done', 'stopped', 'error']) {
    source.addEventListener(name, onEvent as EventListener);
  }

  start.addEventListener('click', async () => {
    const body: Record<string, unknown> = { kind: kind.value, transport: transport.value };
    for (const [input, key] of [
      [duration, 'durationS'],
      [warmup, 'warmupS'],
      [scale, 'scale'],
    ] as const) {
      if (input.value.trim() !== '') body[key] = Number(input.value);
    }
    const response = await fetch('api/testbed', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      const answer = (await response.json().catch(() => ({}))) as { error?: string };
      status.textContent = answer.error ?? `refused (${response.status})`;
    }
  });
  stop.addEventListener('click', async () => {
    await fetch('api/testbed/stop', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
  });
  context.onThemeChange(redraw);
  redraw();
}

function drawChart(
  svg: Selection<SVGSVGElement, unknown, null, undefined>,
  legendBox: HTMLElement,
  points: readonly MeasuredPoint[],
): void {
  const outerWidth = 720;
  const outerHeight = 320;
  const frame = chartFrame(outerWidth, outerHeight);
  svg.attr('viewBox', `0 0 ${outerWidth} ${outerHeight}`).attr('width', outerWidth);
  const xs = points.map((p) => p.x);
  const x = scaleLinear()
    .domain(xs.length === 0 ? [0, 250] : [Math.min(0, ...xs), Math.max(10, ...xs) * 1.05])
    .range([0, frame.width]);
  const y = scaleLinear().domain([0, 1]).range([frame.height, 0]);
  const g = svg
    .selectAll<SVGGElement, null>('g.frame')
    .data([null])
    .join('g')
    .attr('class', 'frame')
    .attr('transform', `translate(${frame.margin.left},${frame.margin.top})`);
  drawAxes(
    g,
    frame,
    { axis: axisBottom(x).ticks(8), label: 'γ_low at the entry (requests/s, file units)' },
    { axis: axisLeft(y).ticks(5).tickFormat(format('.0%')), label: 'end-to-end rejection' },
  );
  const classes = [...new Set(points.map((p) => p.className))];
  const keys = [...new Set(points.map((p) => p.k))];
  // Read once per draw: every mark of a class takes the same colour.
  const colors = new Map(
    classes.map((name, i) => [name, cssColor(classColorVariable(i, classes.length))]),
  );
  const color = (name: string) => colors.get(name) as string;
  const offset = (p: MeasuredPoint) => (keys.indexOf(p.k) - (keys.length - 1) / 2) * 8;
  // The prediction as a line per class and retry configuration (solid DiffTry, dashed uniform).
  const series = classes.flatMap((name) =>
    keys.map((k) => ({
      name,
      k,
      points: points.filter((p) => p.className === name && p.k === k).sort((a, b) => a.x - b.x),
    })),
  );
  const path = line<MeasuredPoint>()
    .x((p) => x(p.x) + offset(p))
    .y((p) => y(p.predicted));
  g.selectAll<SVGPathElement, (typeof series)[number]>('path.testbed-predicted')
    .data(
      series.filter((s) => s.points.length > 1),
      (s) => `${s.name}|${s.k}`,
    )
    .join('path')
    .attr('class', 'testbed-predicted')
    .attr('fill', 'none')
    .attr('stroke', (s) => color(s.name))
    .attr('stroke-width', 1.5)
    .attr('stroke-dasharray', (s) =>
      keys.indexOf(s.k) === keys.length - 1 && keys.length > 1 ? '6 4' : null,
    )
    .attr('d', (s) => path(s.points));
  const tip = tooltip();
  const marks = g
    .selectAll<SVGGElement, MeasuredPoint>('g.testbed-point')
    .data(points, (p) => `${p.x}|${p.k}|${p.className}`)
    .join('g')
    .attr('class', 'testbed-point')
    .attr('data-testid', 'testbed-point')
    .attr('transform', (p) => `translate(${x(p.x) + offset(p)},0)`);
  marks
    .selectAll('line.bar')
    .data((p) => [p])
    .join('line')
    .attr('class', 'bar')
    .attr('y1', (p) => y(Math.max(0, p.measured - p.ci95)))
    .attr('y2', (p) => y(Math.min(1, p.measured + p.ci95)))
    .attr('stroke', (p) => color(p.className))
    .attr('stroke-width', 1.5);
  marks
    .selectAll('circle.measured')
    .data((p) => [p])
    .join('circle')
    .attr('class', 'measured')
    .attr('cy', (p) => y(p.measured))
    .attr('r', 4.5)
    .attr('fill', (p) => color(p.className));
  marks
    .selectAll('circle.predicted')
    .data((p) => [p])
    .join('circle')
    .attr('class', 'predicted')
    .attr('cy', (p) => y(p.predicted))
    .attr('r', 6)
    .attr('fill', 'none')
    .attr('stroke', (p) => color(p.className))
    .attr('stroke-dasharray', (p) =>
      keys.indexOf(p.k) === keys.length - 1 && keys.length > 1 ? '2 2' : null,
    );
  marks
    .on('pointerenter pointermove', (event: PointerEvent, p) =>
      tip.show(
        event,
        `γ_low ${p.x} req/s · k ${p.k} · ${p.className}\nmeasured ${(100 * p.measured).toFixed(1)} % ± ${(100 * p.ci95).toFixed(1)}\npredicted ${(100 * p.predicted).toFixed(1)} %`,
      ),
    )
    .on('pointerleave', () => tip.hide());
  renderLegend(legendBox, [
    ...classes.map((name) => ({
      label: `${name}: measured, 95 % bar`,
      color: color(name),
      mark: 'dot' as const,
    })),
    ...classes.map((name) => ({
      label: `${name}: predicted (rings and lines; dashed: uniform limits)`,
      color: color(name),
      dash: '6 4',
    })),
  ]);
}
