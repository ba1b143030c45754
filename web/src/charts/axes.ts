import { type Axis, axisBottom, axisLeft, type NumberValue, type Selection } from 'd3';

/** The inner box of a chart: its size less margins, and the margins. */
export interface ChartFrame {
  readonly width: number;
  readonly height: number;
  readonly margin: {
    readonly top: number;
    readonly right: number;
    readonly bottom: number;
    readonly left: number;
  };
}

/** A frame from an outer size and margins. */
export function chartFrame(
  outerWidth: number,
  outerHeight: number,
  margin: ChartFrame['margin'] = { top: 12, right: 16, bottom: 40, left: 56 },
): ChartFrame {
  return {
    width: Math.max(10, outerWidth - margin.left - margin.right),
    height: Math.max(10, outerHeight - margin.top - margin.bottom),
    margin,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: any parent and datum: the axes only append children.
type G = Selection<SVGGElement, any, any, any>;

/**
 * Draws (or redraws) a bottom and a left axis with their labels, units included
 * (`γ_low (requests/s)`), into `g` (the chart's inner group).
 */
export function drawAxes(
  g: G,
  frame: ChartFrame,
  x: { axis: Axis<NumberValue>; label: string },
  y: { axis: Axis<NumberValue>; label: string },
): void {
  const xg = g
    .selectAll<SVGGElement, null>('g.x-axis')
    .data([null])
    .join('g')
    .attr('class', 'axis x-axis');
  xg.attr('transform', `translate(0,${frame.height})`).call(x.axis);
  const yg = g
    .selectAll<SVGGElement, null>('g.y-axis')
    .data([null])
    .join('g')
    .attr('class', 'axis y-axis');
  yg.call(y.axis);
  g.selectAll<SVGTextElement, string>('text.x-label')
    .data([x.label])
    .join('text')
    .attr('class', 'axis-label x-label')
    .attr('x', frame.width / 2)
    .attr('y', frame.height + frame.margin.bottom - 6)
    .attr('text-anchor', 'middle')
    .text((d) => d);
  g.selectAll<SVGTextElement, string>('text.y-label')
    .data([y.label])
    .join('text')
    .attr('class', 'axis-label y-label')
    .attr('transform', 'rotate(-90)')
    .attr('x', -frame.height / 2)
    .attr('y', -frame.margin.left + 14)
    .attr('text-anchor', 'middle')
    .text((d) => d);
}

export { axisBottom, axisLeft };
