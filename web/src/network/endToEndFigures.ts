import type { NetworkReport } from 'difftry/model';
import { fixed } from 'difftry/report';
import { make, setText } from './elements.js';

/** The end-to-end figures of a network: per class k and rejection, attempts, the equilibria. */
export interface EndToEndFigures {
  readonly element: HTMLElement;
  /** Writes a report's figures (only the texts that changed). */
  update(report: NetworkReport): void;
}

/**
 * The end-to-end figures of a network with these classes: a table of each class's retry limit,
 * end-to-end rejection (`rejection-CLASS`, 4 decimals as `difftry analyze` prints it) and its
 * rejection in the storm where there is one; a `bistable` badge shown when the analysis finds two
 * equilibria; attempts per request (`attempts-per-request`); how the analysis solved.
 */
export function endToEndFigures(classes: readonly string[]): EndToEndFigures {
  const badge = make('span', { class: 'badge', 'data-testid': 'bistable' }, 'bistable');
  const heading = make('h3');
  heading.append('End to end ', badge);
  const table = make('table', { class: 'network-end-to-end' });
  const head = make('tr');
  for (const text of ['class', 'k', 'rejection', 'storm']) {
    head.append(make('th', { scope: 'col' }, text));
  }
  table.createTHead().append(head);
  const body = table.createTBody();
  const cells = classes.map((name) => {
    const retries = make('td');
    const rejection = make('output', { 'data-testid': `rejection-${name}` });
    const storm = make('td', { class: 'network-storm-cell' });
    const cell = make('td');
    cell.append(rejection);
    const tr = make('tr');
    tr.append(make('td', {}, name), retries, cell, storm);
    body.append(tr);
    return { name, retries, rejection, storm };
  });
  const attempts = make('output', { 'data-testid': 'attempts-per-request' });
  const attemptsLine = make('p', { class: 'figure' });
  attemptsLine.append('Attempts per request: ', attempts);
  const status = make('p', { class: 'muted', 'data-testid': 'network-status' });
  const element = make('div');
  element.append(heading, table, attemptsLine, status);
  return {
    element,
    update(report) {
      const storm = report.equilibria.find((e, i) => i > 0 && e.kind === 'storm');
      const rejection = (endToEnd: NetworkReport['endToEnd'], name: string) =>
        fixed(endToEnd[name]?.rejection ?? Number.NaN, 4, '—');
      for (const cell of cells) {
        const c = report.classes.find((k) => k.name === cell.name);
        setText(cell.retries, String(c?.retries ?? ''));
        setText(cell.rejection, rejection(report.endToEnd, cell.name));
        setText(cell.storm, storm === undefined ? '—' : rejection(storm.endToEnd, cell.name));
      }
      setText(attempts, fixed(report.load.attemptsPerRequest, 3, '—'));
      badge.hidden = report.equilibria.length < 2;
      setText(status, statusText(report));
    },
  };
}

/** How the analysis solved: the form, convergence, the equilibria. */
function statusText(report: NetworkReport): string {
  const form = report.mode === 'calls' ? 'Call graph' : 'Routing';
  const solved = report.converged
    ? `converged in ${report.iterations} iteration${report.iterations === 1 ? '' : 's'}`
    : `did NOT converge in ${report.iterations} iterations`;
  const states =
    report.equilibria.length > 1
      ? '; two equilibria at these rates: a healthy state and a retry storm'
      : report.equilibria[0]?.kind === 'storm'
        ? '; its one equilibrium is a retry storm'
        : '';
  return `${form}, ${solved}${states}.`;
}
