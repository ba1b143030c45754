/**
 * Writes docs/metastability.* from a {@link MetastabilityResult}: the Markdown page, the CSV of
 * every simulated window and of the analysis's branches, and three charts. Pure: the same result
 * gives the same bytes. Every number in the text is read from the result, and every qualitative
 * sentence is chosen by the numbers it states (a run that no longer shows the storm staying is
 * not described as one that does).
 */

import type { MetastabilityConfig } from './MetastabilityConfig.js';
import type { MetastabilityResult } from './MetastabilityResult.js';
import { dropChart, hotelChart, loopChart } from './metastabilityCharts.js';
import { branchesCsv, windowsCsv } from './metastabilityCsv.js';
import { metastabilityMarkdown, type ReportContext } from './metastabilityMarkdown.js';

export type { ReportContext } from './metastabilityMarkdown.js';

/** File name (under docs/) → contents. */
export type ReportFiles = Readonly<Record<string, string>>;

/** The page, its CSV files and its charts. */
export function renderMetastability(
  result: MetastabilityResult,
  config: MetastabilityConfig,
  context: ReportContext,
): ReportFiles {
  return {
    'metastability.md': metastabilityMarkdown(result, config, context),
    'metastability.csv': windowsCsv(result),
    'metastability-branches.csv': branchesCsv(result),
    'metastability.svg': dropChart(result, config),
    'metastability-loop.svg': loopChart(result, config.replications, config.seed),
    'metastability-hotel.svg': hotelChart(result, config),
  };
}
