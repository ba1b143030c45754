/**
 * docs/validation-calls.csv: every figure of the call-graph validation, one line per case and
 * class. Pure.
 */
import { csvLine } from '../../report/csv.js';
import { FIGURE_COLUMNS, figureCells } from '../simulation/validationFigures.js';
import { matchList, within } from './callValidationSummary.js';
import { type Outcome, rowsOf } from './runCallValidation.js';

/** The CSV file's text: a header, then one line per case and class in the cases' order. */
export function callValidationCsv(outcomes: readonly Outcome[]): string {
  const rows = outcomes.flatMap(rowsOf);
  const csv = [
    csvLine([
      'group',
      'case',
      'seed',
      'services',
      'overloadedServices',
      'minQueue',
      'bottleneck',
      'rho0',
      ...FIGURE_COLUMNS,
      'within003',
      'runsMatched',
      'absGapToMatchedState',
      'analysisAtSimulatedS',
      'absGapAtSimulatedS',
      'closureAtSimulatedS',
      'relaxedFromSimulatedS',
      'relaxedFromSimulatedSConverged',
      'analysisMm1m',
      'analysisFollowUps',
      'replications',
      'warmupS',
      'durationS',
      'analysisSeconds',
      'simulationSeconds',
    ]),
    ...rows.map((r) =>
      csvLine([
        r.o.c.group,
        r.o.c.id,
        r.o.c.seed ?? '',
        r.o.c.network.services.length,
        r.o.c.overloaded,
        Math.min(...r.o.c.network.services.map((s) => s.queue)),
        r.o.c.bottleneck,
        r.o.c.rho0,
        ...figureCells(r),
        within(r) ? 'yes' : 'no',
        matchList(r.o),
        r.gapMatched,
        r.atSimulatedS,
        r.gapAtSimulatedS,
        r.o.closureAtSimulatedS,
        r.o.fromSimulatedS[r.cls] ?? '',
        r.o.fromSimulatedSConverged ? 'yes' : 'no',
        r.o.mm1m?.endToEnd[r.cls]?.rejection ?? '',
        r.o.followUps?.report.endToEnd[r.cls]?.rejection ?? '',
        r.o.c.run.replications,
        r.o.c.run.warmup,
        r.o.c.run.duration,
        r.o.analysisSeconds,
        r.o.simulationSeconds,
      ]),
    ),
  ];
  return `${csv.join('\n')}\n`;
}
