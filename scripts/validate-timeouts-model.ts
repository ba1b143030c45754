/**
 * Re-creates docs/validation-timeouts-model.md and docs/validation-timeouts-model.csv: the
 * analysis with per-try timeouts (src/model/queue/mm1mSojourn.ts: an accepted attempt whose
 * sojourn exceeds T is abandoned by its caller while the server still does the work) against the
 * simulator with the same fixed timeouts (`difftry simulate --timeout MS`).
 *
 * One service (μ = 100/s, m = 50 and 10, one class with k = 5 and 1) over ρ = 0.3 … 1.5 and
 * T = 2 … 20 mean service times; then call graphs: a two-level a → b with timeouts on the calls
 * into b, and hotelReservation's call-graph form with a timeout at every hop; then routing
 * networks with a timeout at every hop: a chain a → b, a cycle a ⇄ b and hotelReservation's
 * routing form. Where the analysis finds two equilibria, each simulated run (started idle) is
 * matched to the nearer one.
 *
 * Run with `npm run validate:timeouts-model` (`npx tsx scripts/validate-timeouts-model.ts`).
 * Fixed seeds: the same code gives the same files. Progress goes to stderr.
 *
 * `--shard I/N --out DIR` runs only part I of N of the points (each on the substreams it has in
 * the whole run) and writes `DIR/validate-timeouts-model.shard-I-of-N.json` instead of the docs;
 * then `difftry merge DIR… --csv docs/validation-timeouts-model.csv >
 * docs/validation-timeouts-model.md` writes the whole run's page and CSV (docs/scale-out.md). The
 * experiment is src/experiments/timeoutValidation/ (its networks and cases, the run, the
 * summaries, the CSV and the page); this driver runs it and writes the files.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { sourceRevision } from '../src/experiments/provenance/sourceRevision.js';
import { runTimeoutValidation } from '../src/experiments/timeoutValidation/runTimeoutValidation.js';
import {
  GROUPS,
  TARGET,
  timeoutValidationCases,
} from '../src/experiments/timeoutValidation/timeoutValidationCases.js';
import { timeoutValidationCsv } from '../src/experiments/timeoutValidation/timeoutValidationCsv.js';
import { timeoutValidationMarkdown } from '../src/experiments/timeoutValidation/timeoutValidationMarkdown.js';
import { timeoutValidationShardDocument } from '../src/experiments/timeoutValidation/timeoutValidationShard.js';
import {
  byGroup,
  fmt,
  summarise,
} from '../src/experiments/timeoutValidation/timeoutValidationSummary.js';
import { shardArgs, writeShardFile } from './lib/validationShardArgs.js';

const cases = timeoutValidationCases();
const args = shardArgs(cases.length);
const { shard, range } = args;
const revision = sourceRevision();
const loadAtStart = loadavg();
const started = performance.now();
const run = runTimeoutValidation(cases, {
  range,
  onCase: ({ index, count, outcome, largestGap, seconds }) => {
    const { c, report } = outcome;
    process.stderr.write(
      `[${index + 1}/${count}] ${c.id}: ${report.equilibria.map((e) => e.kind).join('+')}` +
        `${report.tippedAt === undefined ? '' : ` (tipped at ${report.tippedAt.toFixed(3)})`}` +
        `${report.converged ? '' : ', NOT converged'}, largest gap ${largestGap.toFixed(4)} ` +
        `(${seconds.toFixed(1)} s)\n`,
    );
  },
});
const seconds = (performance.now() - started) / 1000;
const loadAtEnd = loadavg();

const context = { revision, seconds, loadAtStart, loadAtEnd };
if (shard !== undefined) {
  writeShardFile(
    { ...args, shard },
    'validate-timeouts-model',
    timeoutValidationShardDocument(shard, cases, run, context),
    cases.length,
    'point',
    seconds,
  );
} else {
  writeFileSync(
    new URL('../docs/validation-timeouts-model.csv', import.meta.url),
    timeoutValidationCsv(run.outcomes),
  );
  writeFileSync(
    new URL('../docs/validation-timeouts-model.md', import.meta.url),
    timeoutValidationMarkdown(run, context),
  );
  for (const g of GROUPS) {
    const sg = summarise(byGroup(run.outcomes, g));
    process.stderr.write(
      `${g}: ${sg.points} points (${sg.unique} one state, ${sg.bistable} bistable, ${sg.converged} converged); ` +
        `${sg.uniqueWithin} / ${sg.uniqueFigures} unique-state figures within ${TARGET}, largest gap ${fmt(sg.maxGap)}` +
        `${sg.worst ? ` (${sg.worst.o.c.id}, ${sg.worst.cls})` : ''}\n`,
    );
  }
  const single = summarise(byGroup(run.outcomes, 'single'));
  process.stderr.write(
    `one service: ${single.uniqueWithin} / ${single.uniqueFigures} unique-state figures within ${TARGET} ` +
      `(${single.nonTrivialWithin} / ${single.nonTrivial} non-trivial), ${single.bistable} bistable points\n` +
      `wrote docs/validation-timeouts-model.md and .csv in ${seconds.toFixed(1)} s\n`,
  );
}
