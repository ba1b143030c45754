/** docs/strategies.csv: one line per delay variant × strategy × γ_low. */
import { csvLine } from '../../report/csv.js';
import type { StrategyRow } from './StrategyRow.js';

/** The figures of a row, in the CSV's column order after the point's own columns. */
export const STRATEGY_CSV_FIELDS = [
  'highRejection',
  'highRejectionCi95',
  'lowRejection',
  'lowRejectionCi95',
  'attemptsPerRequest',
  'attemptsPerRequestCi95',
  'attemptsPerSuccess',
  'attemptsPerSuccessCi95',
  'highFrontendRetries',
  'lowFrontendRetries',
  'highLatencyP50',
  'highLatencyP99',
  'highLatencyP99Ci95',
  'lowLatencyP50',
  'lowLatencyP99',
  'lowLatencyP99Ci95',
  'predHighRejection',
  'predLowRejection',
  'predAttemptsPerRequest',
] as const;

/**
 * The CSV text of a run (header line first, a line break after every line): the delay, the
 * strategy, γ_high, γ_low, then {@link STRATEGY_CSV_FIELDS}.
 */
export function strategiesCsv(rows: readonly StrategyRow[], gammaHigh: number): string {
  const lines = [
    csvLine(['backoff', 'strategy', 'gammaHigh', 'gammaLow', ...STRATEGY_CSV_FIELDS]),
    ...rows.map((r) =>
      csvLine([
        r.variant,
        r.strategy,
        gammaHigh,
        r.gammaLow,
        ...STRATEGY_CSV_FIELDS.map((field) => r[field]),
      ]),
    ),
  ];
  return `${lines.join('\n')}\n`;
}
