import { line, scaleSqrt } from 'd3';
import type { NetworkModel, NetworkReport } from 'difftry/model';
import { fixed } from 'difftry/report';
import { tooltip } from '../charts/tooltip.js';
import { cssColor } from '../shell/theme.js';
import { edgeAttempts } from './edgeAttempts.js';
import { makeSvg, setText } from './elements.js';
import type { GraphLayout } from './graphLayout.js';
import { CLIENTS, type NetworkGraph } from './networkGraph.js';
import { rhoColor } from './rhoColor.js';

/** Attempts per second at which an edge reaches its widest stroke. */
export const EDGE_ATTEMPTS_MAX = 1000;

/** An edge's stroke width (px) by its attempts per second: area-like (sqrt), 1 to 16 px. */
export const edgeWidth = scaleSqrt().domain([0, EDGE_ATTEMPTS_MAX]).range([1, 16]).clamp(true);

/** What the graph shows: a network's model and its analysis. */
export interface GraphState {
  readonly model: NetworkModel;
  readonly report: NetworkReport;
}

/** The drawn network: nodes coloured by ρ, edges as wide as their attempts per second. */
export interface GraphView {
  /** Draws another state: colours, figures and widths only (the layout stays). */
  update(next: GraphState): void;
  /** Re-reads the theme's colours. */
  recolor(): void;
}

interface NodeMarks {
  readonly index: number;
  readonly box: SVGRectElement;
  readonly figures: SVGTextElement | undefined;
}

/**
 * Draws a laid-out network graph in a state into `svg` (replacing what it held) and returns how
 * to redraw other states. Every node and edge has a tooltip with its figures, read when hovered.
 */
export function drawGraph(
  svg: SVGSVGElement,
  graph: NetworkGraph,
  layout: GraphLayout,
  initial: GraphState,
): GraphView {
  const tip = tooltip();
  let state = { ...initial, edges: edgeAttempts(initial.model, initial.report, graph) };
  svg.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  svg.setAttribute('width', String(layout.width));
  svg.setAttribute('height', String(layout.height));
  const defs = makeSvg('defs', {});
  const marker = makeSvg('marker', {
    id: 'network-arrow',
    viewBox: '0 0 10 10',
    refX: '9',
    refY: '5',
    markerWidth: '8',
    markerHeight: '8',
    markerUnits: 'userSpaceOnUse',
    orient: 'auto',
  });
  marker.append(makeSvg('path', { d: 'M0,0L10,5L0,10z', class: 'network-arrow' }));
  defs.append(marker);
  svg.replaceChildren(defs);

  const path = line();
  const edgeMarks = graph.edges.map((edge) => {
    const d = path((layout.edges.get(edge.id) ?? []).map(([x, y]) => [x, y])) ?? '';
    const group = makeSvg('g', { class: 'network-edge', 'data-edge': edge.id });
    const stroke = makeSvg('path', {
      d,
      class: 'network-edge-line',
      'marker-end': 'url(#network-arrow)',
    });
    // A wide transparent twin, so that a thin edge can be hovered.
    const hit = makeSvg('path', { d, class: 'network-edge-hit' });
    group.append(stroke, hit);
    hover(group, () => edgeText(edge.from, edge.to, edge.id));
    svg.append(group);
    return { id: edge.id, stroke };
  });

  const nodeMarks: NodeMarks[] = graph.nodes.map((node) => {
    const box = layout.nodes.get(node.index) ?? { x: 0, y: 0, width: 0, height: 0 };
    const group = makeSvg('g', {
      class: node.index === CLIENTS ? 'network-node network-clients' : 'network-node',
      transform: `translate(${box.x},${box.y})`,
      ...(node.index === CLIENTS ? {} : { 'data-service': node.name }),
    });
    const rect = makeSvg('rect', {
      width: String(box.width),
      height: String(box.height),
      rx: node.index === CLIENTS ? String(box.height / 2) : '6',
      class: 'network-node-box',
    });
    const name = makeSvg('text', {
      x: String(box.width / 2),
      y: String(node.index === CLIENTS ? box.height / 2 + 4 : 17),
      'text-anchor': 'middle',
      class: 'network-node-name',
    });
    name.textContent = node.name;
    group.append(rect, name);
    let figures: SVGTextElement | undefined;
    if (node.index !== CLIENTS) {
      figures = makeSvg('text', {
        x: String(box.width / 2),
        y: '34',
        'text-anchor': 'middle',
        class: 'network-node-figures',
      });
      group.append(figures);
      hover(group, () => serviceText(node.index));
    } else {
      hover(group, () => 'clients: the requests from outside the network');
    }
    svg.append(group);
    return { index: node.index, box: rect, figures };
  });

  function hover(target: SVGElement, text: () => string): void {
    target.addEventListener('pointerenter', (event) => tip.show(event, text()));
    target.addEventListener('pointermove', (event) => tip.show(event, text()));
    target.addEventListener('pointerleave', () => tip.hide());
  }

  function serviceName(index: number): string {
    return index === CLIENTS ? 'clients' : (state.model.services[index]?.name ?? '');
  }

  function serviceText(index: number): string {
    const service = state.model.services[index];
    const analysis = state.report.services[service?.name ?? ''];
    if (service === undefined || analysis === undefined) return '';
    const inUnit = state.report.mode === 'calls' ? 'calls in/s' : 'in/s';
    return [
      `${service.name}: μ ${service.capacity} requests/s, m ${service.queue}`,
      `ρ ${fixed(analysis.rho, 3)} (attempts over capacity)`,
      `s ${fixed(analysis.s, 4)} (attempt rejection)`,
      ...Object.entries(analysis.classes).map(
        ([name, c]) =>
          `${name}: ${fixed(c.in, 2)} ${inUnit}, ${fixed(c.attempts, 2)} attempts/s, rejection ${fixed(c.rejection, 4)}`,
      ),
    ].join('\n');
  }

  function edgeText(from: number, to: number, id: string): string {
    const perClass = state.edges.get(id) ?? [];
    const total = perClass.reduce((a, b) => a + b, 0);
    const classes = state.model.classes.map((c, p) => `${c.name} ${fixed(perClass[p] ?? 0, 2)}`);
    return `${serviceName(from)} → ${serviceName(to)}: ${fixed(total, 2)} attempts/s\n${classes.join(', ')}`;
  }

  let color = themeRhoColor();

  /** Writes the state's figures and widths, then its colours. */
  function draw(): void {
    const { model, report, edges } = state;
    for (const node of nodeMarks) {
      if (node.figures === undefined) continue;
      const analysis = report.services[model.services[node.index]?.name ?? ''];
      const rho = fixed(analysis?.rho ?? Number.NaN, 2);
      setText(node.figures, `ρ ${rho} · s ${fixed(analysis?.s ?? Number.NaN, 3)}`);
    }
    for (const edge of edgeMarks) {
      const total = (edges.get(edge.id) ?? []).reduce((a, b) => a + b, 0);
      edge.stroke.setAttribute('stroke-width', edgeWidth(total).toFixed(2));
    }
    paint();
  }

  function paint(): void {
    for (const node of nodeMarks) {
      if (node.index === CLIENTS) continue;
      const analysis = state.report.services[state.model.services[node.index]?.name ?? ''];
      const fill = color(analysis?.rho ?? Number.NaN);
      node.box.setAttribute('fill', fill);
      node.box.setAttribute('stroke', fill);
    }
  }

  draw();
  return {
    update(next) {
      state = { ...next, edges: edgeAttempts(next.model, next.report, graph) };
      draw();
    },
    recolor() {
      color = themeRhoColor();
      paint();
    },
  };
}

/** The ρ colour scale in the theme's colours. */
export function themeRhoColor(): (rho: number) => string {
  return rhoColor({ good: cssColor('--good'), warn: cssColor('--warn'), bad: cssColor('--bad') });
}
