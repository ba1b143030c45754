/**
 * Re-creates docs/validation-calls.md and docs/validation-calls.csv: the call-graph analysis
 * (`analyzeNetwork` in call-graph mode, with its equilibria) against the network simulator, per
 * class end to end, on 50 generated call graphs of 20–300 services (25 µBench-like, 25 composed
 * DGG-like; m ≥ 20, retry delays random with mean 2 s, bottleneck loads 0.7–2.5) and on chains of
 * 40 and 300 services at light, heavy and overloaded loads.
 *
 * Where the analysis finds two equilibria (healthy and storm) each simulated run, started idle,
 * is matched to the nearer one.
 *
 * Run with `npm run validate:calls` (`npx tsx scripts/validate-calls.ts`; about 20 minutes on two
 * cores). Fixed seeds: the same code gives the same files. Progress goes to stderr.
 *
 * `--shard I/N --out DIR` runs only part I of N of the cases (each on the substreams it has in
 * the whole run) and writes `DIR/validate-calls.shard-I-of-N.json` instead of the docs; then
 * `difftry merge DIR… --csv docs/validation-calls.csv > docs/validation-calls.md` writes the
 * whole run's page and CSV (docs/scale-out.md). The experiment
 * is src/experiments/callValidation/ (its cases, the run, the summaries, the CSV and the page);
 * this driver runs it and writes the files.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import {
  callValidationCases,
  TARGET,
} from '../src/experiments/callValidation/callValidationCases.js';
import { callValidationCsv } from '../src/experiments/callValidation/callValidationCsv.js';
import { callValidationMarkdown } from '../src/experiments/callValidation/callValidationMarkdown.js';
import { callValidationShardDocument } from '../src/experiments/callValidation/callValidationShard.js';
import {
  byGroup,
  fmt,
  summarise,
} from '../src/experiments/callValidation/callValidationSummary.js';
import { runCallValidation } from '../src/experiments/callValidation/runCallValidation.js';
import { sourceRevision } from '../src/experiments/provenance/sourceRevision.js';
import { shardArgs, writeShardFile } from './lib/validationShardArgs.js';

const cases = callValidationCases();
const args = shardArgs(cases.length);
const { shard, range } = args;
const revision = sourceRevision();
const loadAtStart = loadavg();
const started = performance.now();
const run = runCallValidation(cases, {
  range,
  onCase: ({ index, count, outcome, largestGap }) => {
    const { c, report } = outcome;
    process.stderr.write(
      `[${index + 1}/${count}] ${c.id}: ${c.network.services.length} services, ρ₀ = ${c.rho0.toFixed(2)}, ` +
        `${report.converged ? 'converged' : 'NOT converged'}, ${report.equilibria.map((e) => e.kind).join('+')}` +
        `${report.tippedAt === undefined ? '' : ` (tipped at ${report.tippedAt.toFixed(3)})`}, ` +
        `largest gap ${largestGap.toFixed(4)} (analysis ${outcome.analysisSeconds.toFixed(1)} s, simulation ${outcome.simulationSeconds.toFixed(1)} s)\n`,
    );
  },
});
const seconds = (performance.now() - started) / 1000;
const loadAtEnd = loadavg();

const context = { revision, seconds, loadAtStart, loadAtEnd };
if (shard !== undefined) {
  writeShardFile(
    { ...args, shard },
    'validate-calls',
    callValidationShardDocument(shard, cases, run, context),
    cases.length,
    'case',
    seconds,
  );
} else {
  writeFileSync(
    new URL('../docs/validation-calls.csv', import.meta.url),
    callValidationCsv(run.outcomes),
  );
  writeFileSync(
    new URL('../docs/validation-calls.md', import.meta.url),
    callValidationMarkdown(run, context),
  );
  const generatedSummary = summarise(run.outcomes.filter((o) => o.c.group !== 'chain'));
  const chainSummary = summarise(byGroup(run.outcomes, 'chain'));
  process.stderr.write(
    `generated: ${generatedSummary.converged} / ${generatedSummary.cases} converged, ` +
      `${generatedSummary.figuresWithin} / ${generatedSummary.figures} class figures within ${TARGET}, ` +
      `largest gap ${fmt(generatedSummary.maxGap)}; chains: ${chainSummary.figuresWithin} / ${chainSummary.figures}\n` +
      `wrote docs/validation-calls.md and docs/validation-calls.csv in ${seconds.toFixed(1)} s\n`,
  );
}
