/**
 * docs/validation-timeouts-model.csv: every figure of the per-try timeout validation, one line per
 * point and class. Pure.
 */
import { csvLine } from '../../report/csv.js';
import { FIGURE_COLUMNS, figureCells } from '../simulation/validationFigures.js';
import { type Outcome, rowsOf } from './runTimeoutValidation.js';
import { TIMED_CAPACITY } from './timeoutCases.js';
import { within } from './timeoutValidationSummary.js';

/** The CSV file's text: a header, then one line per point and class in the cases' order. */
export function timeoutValidationCsv(outcomes: readonly Outcome[]): string {
  const rows = outcomes.flatMap(rowsOf);
  const csv = [
    csvLine([
      'group',
      'case',
      'queue',
      'retries',
      'rho',
      'timeoutServiceTimes',
      'timeoutMs',
      ...FIGURE_COLUMNS,
      'within002',
      'trivial',
      'runsMatchedHealthy',
      'runsMatchedStorm',
      'runsTipped',
      'meanFieldRunGap',
      'orbitLaw',
      'orbitRunGap',
      'orbitSeconds',
    ]),
    ...rows.map((r) => {
      const p = r.o.c.params;
      const count = (kind: string) =>
        r.o.matches.filter((m) => r.o.report.equilibria[m.whole.index]?.kind === kind).length;
      return csvLine([
        r.o.c.group,
        r.o.c.id,
        p.queue ?? '',
        p.retries ?? '',
        p.rho ?? p.rho0 ?? '',
        p.x ?? '',
        p.timeoutMs ?? (p.x === undefined ? '' : (1000 * p.x) / TIMED_CAPACITY),
        ...figureCells(r),
        within(r) ? 'yes' : 'no',
        r.trivial ? 'yes' : 'no',
        count('healthy'),
        count('storm'),
        r.o.matches.filter((m) => m.first.index !== m.last.index).length,
        r.meanFieldRunGap,
        r.orbitStates,
        Number.isNaN(r.orbitRunGap) ? '' : r.orbitRunGap,
        r.o.orbit?.seconds ?? '',
      ]);
    }),
  ];
  return `${csv.join('\n')}\n`;
}
