/**
 * Re-creates docs/strategies.csv, docs/strategies.svg and docs/strategies.md: the Figure 5
 * overload sweep (hotelReservation, routing form, frontend as the bottleneck; γ_high = 50, γ_low
 * from 50 to 250 in steps of 25) under every simulated retry strategy — DiffTry, uniform limits
 * and the five budgets — with a long random retry delay (mean 2 s, the paper's regime) and a
 * short exponential backoff (base 25 ms, full jitter), beside two references (DiffTry k = (5, 0)
 * and no retries). Run with `npx tsx scripts/strategies.ts` or `npm run strategies` (one to two
 * minutes on 2 cores).
 *
 * The experiment is src/experiments/strategies/: this driver runs it with its defaults
 * (`STRATEGY_SWEEP_DEFAULTS`: the replications, window, seed, sweep and delays), writes the three
 * files and reports progress on stderr. The written comparison in the Markdown reads its figures
 * from the run and checks each qualitative statement it makes against them: a statement the run
 * no longer supports is warned about on stderr and flagged in docs/strategies.md.
 */
import { writeFileSync } from 'node:fs';
import { strategiesSvg } from '../src/experiments/strategies/strategiesChart.js';
import { strategiesCsv } from '../src/experiments/strategies/strategiesCsv.js';
import { strategiesMarkdown } from '../src/experiments/strategies/strategiesMarkdown.js';
import {
  runStrategySweep,
  STRATEGY_SWEEP_DEFAULTS,
} from '../src/experiments/strategies/strategySweep.js';

const setup = STRATEGY_SWEEP_DEFAULTS;
const started = performance.now();
let pointStarted = started;
const rows = runStrategySweep(setup, {
  onPoint: ({ gammaLow, variant, strategy }) => {
    const now = performance.now();
    process.stderr.write(
      `γ_low = ${gammaLow} ${variant} ${strategy}: ${((now - pointStarted) / 1000).toFixed(1)} s\n`,
    );
    pointStarted = now;
  },
  onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
});
const seconds = (performance.now() - started) / 1000;

const docs = (name: string) => new URL(`../docs/${name}`, import.meta.url);
writeFileSync(docs('strategies.csv'), strategiesCsv(rows, setup.gammaHigh));
writeFileSync(docs('strategies.svg'), strategiesSvg(rows, setup));
const { markdown, failed } = strategiesMarkdown(rows, setup, seconds);
if (failed.length > 0) {
  process.stderr.write(
    `warning: the written comparison claims what this run does not show:\n  ${failed.join('\n  ')}\n` +
      'revise strategiesComparison() in src/experiments/strategies/strategiesComparison.ts\n',
  );
}
writeFileSync(docs('strategies.md'), markdown);
process.stderr.write(
  `wrote docs/strategies.csv, docs/strategies.svg and docs/strategies.md in ${seconds.toFixed(1)} s\n`,
);
