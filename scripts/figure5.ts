/**
 * Re-creates docs/figure5.csv, docs/figure5.svg and docs/figure5.md: the DiffTry paper's Figure 5
 * (hotelReservation, frontend as the bottleneck) in simulation against the analysis. γ_high = 50,
 * γ_low from 50 to 250 in steps of 25, DiffTry k = (5, 1) against uniform k = (5, 5), routing and
 * call-graph forms. Run with `npx tsx scripts/figure5.ts` (well under two minutes on 2 cores).
 *
 * The experiment is src/experiments/figure5/ (simulateFigure5.ts and its CSV, chart and Markdown):
 * this driver runs it with `SIMULATED_FIGURE5_DEFAULTS`, writes the three files and reports
 * progress on stderr.
 */
import { writeFileSync } from 'node:fs';
import { figure5Svg } from '../src/experiments/figure5/figure5Chart.js';
import { figure5Csv } from '../src/experiments/figure5/figure5Csv.js';
import { figure5Markdown } from '../src/experiments/figure5/figure5Markdown.js';
import {
  runSimulatedFigure5,
  SIMULATED_FIGURE5_DEFAULTS,
} from '../src/experiments/figure5/simulateFigure5.js';

const setup = SIMULATED_FIGURE5_DEFAULTS;
const started = performance.now();
const rows = runSimulatedFigure5(setup, {
  onPoint: ({ form, k, gammaLow }) =>
    process.stderr.write(`${form} ${k} γ_low = ${gammaLow} done\n`),
  onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
});
const seconds = (performance.now() - started) / 1000;

const docs = (name: string) => new URL(`../docs/${name}`, import.meta.url);
writeFileSync(docs('figure5.csv'), figure5Csv(rows));
writeFileSync(docs('figure5.svg'), figure5Svg(rows, setup));
writeFileSync(docs('figure5.md'), figure5Markdown(rows, setup, seconds));
process.stderr.write(
  `wrote docs/figure5.csv, docs/figure5.svg and docs/figure5.md in ${seconds.toFixed(1)} s\n`,
);
