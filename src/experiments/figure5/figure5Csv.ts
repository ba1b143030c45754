/** docs/figure5.csv: one line per form × retry configuration × γ_low × class. */
import { csvLine } from '../../report/csv.js';
import { FIGURE5_GAMMA_HIGH } from './figure5Sweep.js';
import type { Figure5Row } from './simulateFigure5.js';

/** The figures of a row, in the CSV's column order after the point's own columns. */
export const FIGURE5_CSV_FIELDS = [
  'simRejection',
  'simRejectionCi95',
  'predRejection',
  'simAttemptsPerRequest',
  'simAttemptsPerRequestCi95',
  'simAttemptsPerSuccess',
  'simAttemptsPerSuccessCi95',
  'predAttemptsPerRequest',
  'predAttemptsPerSuccess',
  'simInternalPerRequest',
  'simInternalPerRequestCi95',
  'simInternalPerSuccess',
  'predInternalPerRequest',
  'predInternalPerSuccess',
  'simLatencyP50',
  'simLatencyP99',
] as const;

/** The CSV text of a run (header line first, a line break after every line). */
export function figure5Csv(rows: readonly Figure5Row[]): string {
  const lines = [
    csvLine(['form', 'k', 'gammaHigh', 'gammaLow', 'class', ...FIGURE5_CSV_FIELDS]),
    ...rows.map((r) =>
      csvLine([
        r.form,
        r.k,
        FIGURE5_GAMMA_HIGH,
        r.gammaLow,
        r.cls,
        ...FIGURE5_CSV_FIELDS.map((field) => r[field]),
      ]),
    ),
  ];
  return `${lines.join('\n')}\n`;
}
