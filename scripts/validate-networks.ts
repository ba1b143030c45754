/**
 * Re-creates docs/validation-networks.md and docs/validation-networks.csv: the network analysis
 * (`analyzeNetwork`) against the discrete-event network simulator (`replicateNetwork`), per class
 * end to end, on hotelReservation (routing form) and 50 generated networks (25 DAGs, µBench- and
 * DGG-like, and 25 cyclic), then on deliberately harder cases: the bottleneck at ρ₀ = 1, short
 * queues (m = 5), short retry delays (mean 20 ms) and call-graph mode.
 *
 * Run with `npm run validate:networks` (`npx tsx scripts/validate-networks.ts`). Fixed seeds: the
 * same code gives the same files. Progress goes to stderr.
 *
 * `--shard I/N --out DIR` runs only part I of N of the cases (each on the substreams it has in
 * the whole run) and writes `DIR/validate-networks.shard-I-of-N.json` instead of the docs; then
 * `difftry merge DIR… --csv docs/validation-networks.csv > docs/validation-networks.md` writes the
 * whole run's page and CSV (docs/scale-out.md). The experiment is
 * src/experiments/networkValidation/ (its cases and settings, the run, the report); this driver
 * runs it and writes the files.
 */
import { writeFileSync } from 'node:fs';
import {
  networkValidationCases,
  TARGET,
} from '../src/experiments/networkValidation/networkValidationCases.js';
import { networkValidationReport } from '../src/experiments/networkValidation/networkValidationReport.js';
import { networkValidationShardDocument } from '../src/experiments/networkValidation/networkValidationShard.js';
import { runNetworkValidation } from '../src/experiments/networkValidation/runNetworkValidation.js';
import { sourceRevision } from '../src/experiments/provenance/sourceRevision.js';
import { fixed } from '../src/report/numberFormat.js';
import { shardArgs, writeShardFile } from './lib/validationShardArgs.js';

const cases = networkValidationCases();
const args = shardArgs(cases.length);
const { shard, range } = args;
const revision = sourceRevision();
const started = performance.now();
let caseStarted = started;
const run = runNetworkValidation(cases, {
  range,
  onCase: ({ index, count, case: c, largestError }) => {
    const now = performance.now();
    process.stderr.write(
      `[${index + 1}/${count}] ${c.group} ${c.id}: ρ₀ = ${c.rho0.toFixed(2)}, ` +
        `largest error ${largestError.toFixed(4)} (${((now - caseStarted) / 1000).toFixed(1)} s)\n`,
    );
    caseStarted = now;
  },
  onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
});
const seconds = (performance.now() - started) / 1000;

if (shard !== undefined) {
  writeShardFile(
    { ...args, shard },
    'validate-networks',
    networkValidationShardDocument(shard, cases, run, { revision, seconds }),
    cases.length,
    'case',
    seconds,
  );
} else {
  const { csv, markdown, mainSummary } = networkValidationReport(cases, run, seconds);
  writeFileSync(new URL('../docs/validation-networks.csv', import.meta.url), csv);
  writeFileSync(new URL('../docs/validation-networks.md', import.meta.url), markdown);
  process.stderr.write(
    `main set: ${mainSummary.figuresWithin} / ${mainSummary.figures} class figures within ${TARGET}, ` +
      `largest error ${fixed(mainSummary.maxError, 4)}\n` +
      `wrote docs/validation-networks.md and docs/validation-networks.csv in ${seconds.toFixed(1)} s\n`,
  );
}
