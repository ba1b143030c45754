/** One entry of a chart's legend: a swatch (colour, optional dash) and its label. */
export interface LegendEntry {
  readonly label: string;
  readonly color: string;
  readonly dash?: string;
  /** `line` (default) or `dot`. */
  readonly mark?: 'line' | 'dot';
}

/** Renders a legend as an HTML list under a chart (keeps SVG layout simple and text selectable). */
export function renderLegend(container: HTMLElement, entries: readonly LegendEntry[]): void {
  container.classList.add('legend');
  container.replaceChildren(
    ...entries.map((entry) => {
      const item = document.createElement('span');
      item.className = 'legend-item';
      const swatch = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      swatch.setAttribute('width', '22');
      swatch.setAttribute('height', '10');
      swatch.setAttribute('aria-hidden', 'true');
      if (entry.mark === 'dot') {
        const dot = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
        dot.setAttribute('cx', '11');
        dot.setAttribute('cy', '5');
        dot.setAttribute('r', '4');
        dot.setAttribute('fill', entry.color);
        swatch.append(dot);
      } else {
        const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
        line.setAttribute('x1', '1');
        line.setAttribute('x2', '21');
        line.setAttribute('y1', '5');
        line.setAttribute('y2', '5');
        line.setAttribute('stroke', entry.color);
        line.setAttribute('stroke-width', '2.5');
        if (entry.dash !== undefined) line.setAttribute('stroke-dasharray', entry.dash);
        swatch.append(line);
      }
      item.append(swatch, document.createTextNode(entry.label));
      return item;
    }),
  );
}
