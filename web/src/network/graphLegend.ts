import { axisBottom, range, scaleLinear, select } from 'd3';
import { EDGE_ATTEMPTS_MAX, edgeWidth, themeRhoColor } from './graphView.js';
import { RHO_SCALE_MAX } from './rhoColor.js';

/** Edge widths shown in the legend, attempts per second. */
const EDGE_SAMPLES = [10, 100, EDGE_ATTEMPTS_MAX];

/**
 * Draws the graph's legend into `svg`: the ρ colour scale (offered load, attempts over
 * capacity) as a bar with its axis, and sample edge widths in attempts per second. Call again
 * when the theme changes.
 */
export function drawGraphLegend(svg: SVGSVGElement): void {
  const barWidth = 200;
  const color = themeRhoColor();
  const root = select(svg).attr('width', 460).attr('height', 56).attr('role', 'img');
  root.attr('aria-label', 'ρ colour scale and edge widths');
  root.selectAll('*').remove();
  const gradient = root.append('defs').append('linearGradient').attr('id', 'network-rho-gradient');
  for (const rho of range(0, RHO_SCALE_MAX + 0.01, RHO_SCALE_MAX / 8)) {
    gradient
      .append('stop')
      .attr('offset', `${(100 * rho) / RHO_SCALE_MAX}%`)
      .attr('stop-color', color(rho));
  }
  const scale = root.append('g').attr('transform', 'translate(8,4)');
  scale
    .append('rect')
    .attr('width', barWidth)
    .attr('height', 10)
    .attr('fill', 'url(#network-rho-gradient)');
  const x = scaleLinear().domain([0, RHO_SCALE_MAX]).range([0, barWidth]);
  scale
    .append('g')
    .attr('class', 'axis')
    .attr('transform', 'translate(0,10)')
    .call(
      axisBottom(x)
        .tickValues([0, 0.5, 1, 1.5, 2])
        .tickFormat((v) => (Number(v) === RHO_SCALE_MAX ? `≥ ${v}` : String(v))),
    );
  scale
    .append('text')
    .attr('class', 'axis-label')
    .attr('x', barWidth / 2)
    .attr('y', 44)
    .attr('text-anchor', 'middle')
    .text('ρ, offered load (attempts over capacity)');
  const widths = root.append('g').attr('transform', `translate(${barWidth + 40},8)`);
  EDGE_SAMPLES.forEach((attempts, i) => {
    const row = widths.append('g').attr('transform', `translate(${i * 70},0)`);
    row
      .append('line')
      .attr('class', 'network-edge-line')
      .attr('x1', 0)
      .attr('x2', 40)
      .attr('y1', 8)
      .attr('y2', 8)
      .attr('stroke-width', edgeWidth(attempts));
    row
      .append('text')
      .attr('x', 20)
      .attr('y', 30)
      .attr('text-anchor', 'middle')
      .text(String(attempts));
  });
  widths
    .append('text')
    .attr('class', 'axis-label')
    .attr('x', 100)
    .attr('y', 44)
    .attr('text-anchor', 'middle')
    .text('edge width: attempts/s');
}
