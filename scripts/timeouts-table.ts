/**
 * Re-creates the results of docs/timeouts.md: `npx tsx scripts/timeouts-table.ts` (about two
 * minutes: seconds in virtual time, the rest live).
 *
 * Rewrites what lies between `<!-- BEGIN timeouts-table -->` and `<!-- END timeouts-table -->`:
 * the Time Fraction table in virtual time (seed 1) beside the paper's figures, the other
 * metrics, the spread over seeds 1–10, and the live App1 → App2 table at a time scale.
 *
 * Options: `--time-scale X` (live; default 0.1), `--no-live` (skip the live run; a note takes its
 * place), `--seeds N` (default 10).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { assessTarget, type TargetAssessment } from '../src/experiments/timeouts/assessTarget.js';
import {
  createEvalStrategy,
  TIMEOUT_EVAL_RUN_DEFAULTS,
  TIMEOUT_EVAL_STRATEGIES,
} from '../src/experiments/timeouts/evalStrategies.js';
import {
  evaluateTimeoutSuite,
  type StrategyEvaluation,
} from '../src/experiments/timeouts/evaluateSuite.js';
import {
  evaluateTimeoutSuiteLive,
  type LiveStrategyEvaluation,
} from '../src/experiments/timeouts/live/evaluateLiveSuite.js';
import {
  COMBINED_TARGET_TIME_FRACTION,
  PAPER_TIME_FRACTIONS,
} from '../src/experiments/timeouts/paperFigures.js';
import {
  TIMEOUT_SCENARIO_LABELS,
  TIMEOUT_SCENARIO_NAMES,
  type TimeoutScenarioName,
} from '../src/experiments/timeouts/scenarios.js';
import { fixed } from '../src/report/numberFormat.js';

const DOC = new URL('../docs/timeouts.md', import.meta.url);
const BEGIN = '<!-- BEGIN timeouts-table -->';
const END = '<!-- END timeouts-table -->';
const SEED = 1;

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const live = !args.includes('--no-live');
const timeScale = Number(option('--time-scale') ?? 0.1);
const seeds = Number(option('--seeds') ?? 10);
if (!(timeScale > 0) || !(Number.isInteger(seeds) && seeds >= 1)) {
  throw new RangeError(`--time-scale should be positive and --seeds a positive integer`);
}

const started = performance.now();
const log = (text: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${text}\n`);
const f = (x: number | undefined, digits: number) => fixed(x ?? Number.NaN, digits);
const scenarios = TIMEOUT_SCENARIO_NAMES;
const strategies = TIMEOUT_EVAL_STRATEGIES;
const suite = {
  requests: TIMEOUT_EVAL_RUN_DEFAULTS.requests,
  scenarios,
  strategies,
  createStrategy: createEvalStrategy,
};

function markdownTable(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rule = headings.map((_, i) => (i === 0 ? ':--' : '--:'));
  return [line(headings), line(rule), ...rows.map(line)].join('\n');
}

function timeFractionTable(rows: readonly StrategyEvaluation[]): string {
  return markdownTable(
    ['Scenario', ...strategies, 'paper Combined', 'paper Exp. backoff'],
    scenarios.map((scenario) => [
      TIMEOUT_SCENARIO_LABELS[scenario],
      ...strategies.map((strategy) => {
        const value = rows.find((r) => r.scenario === scenario && r.strategy === strategy);
        const text = f(value?.timeFraction, 3);
        return strategy === 'combined' ? `**${text}**` : text;
      }),
      String(PAPER_TIME_FRACTIONS[scenario].combined),
      String(PAPER_TIME_FRACTIONS[scenario].exponentialBackoff),
    ]),
  );
}

function verdict(target: TargetAssessment | undefined): string {
  if (target === undefined) return 'Target: not assessed.';
  const goal = `Combined ≤ ${COMBINED_TARGET_TIME_FRACTION} and below exponential backoff in every scenario`;
  if (target.met) return `**Target (${goal}): met** in all ${target.scenarios} scenarios.`;
  const misses = target.misses.map((miss) => {
    const reasons = [
      ...(miss.aboveThreshold ? [`${f(miss.combined, 4)} > ${COMBINED_TARGET_TIME_FRACTION}`] : []),
      ...(miss.notBelowBaseline
        ? [`not below exponential backoff (${f(miss.exponentialBackoff, 4)})`]
        : []),
    ];
    return `${TIMEOUT_SCENARIO_LABELS[miss.scenario]} (${reasons.join('; ')})`;
  });
  return `**Target (${goal}): not met** in ${target.misses.length} of ${target.scenarios}: ${misses.join(', ')}.`;
}

const out: string[] = [];

// ── Virtual time, seed 1 ────────────────────────────────────────────────────────────────────
log('virtual time, seed 1');
const virtual = evaluateTimeoutSuite({ ...suite, seed: SEED });
out.push(
  `### Time Fraction, virtual time (seed ${SEED})\n`,
  `${suite.requests} requests per scenario, the first ${suite.requests / 10} initialising; ` +
    '1.00 is the oracle, lower is better. Re-create with `npx tsx scripts/timeouts-table.ts`; ' +
    'the same table: `npx tsx src/cli/main.ts timeouts eval --scenario all`.\n',
  timeFractionTable(virtual),
  '',
  verdict(assessTarget(virtual)),
  '',
  `### The other metrics (virtual time, seed ${SEED})\n`,
  markdownTable(
    [
      'Scenario',
      'Strategy',
      'Time Fraction',
      'Timeouts %',
      'Total s',
      'Closeness',
      'Recompute ms',
      'Diagnostic',
    ],
    virtual.map((r) => [
      TIMEOUT_SCENARIO_LABELS[r.scenario],
      r.strategy,
      f(r.timeFraction, 3),
      f(r.timeoutPercentage, 1),
      f(r.totalTimeS, 1),
      f(r.timeoutCloseness, 2),
      f(r.recomputeTimeMs, 1),
      String(r.diagnosticRequests),
    ]),
  ),
  '',
  'Recompute ms is real time on the machine that ran the script (it varies from run to run); ' +
    'every other figure is a deterministic function of the seed.',
  '',
);

// ── Virtual time, seeds 1…N ─────────────────────────────────────────────────────────────────
log(`virtual time, seeds 1 to ${seeds}`);
const bySeed = Array.from({ length: seeds }, (_, i) =>
  evaluateTimeoutSuite({ ...suite, seed: i + 1, strategies: ['exponential-backoff', 'combined'] }),
);
const spread = (scenario: TimeoutScenarioName, strategy: string) => {
  const values = bySeed.map(
    (rows) =>
      rows.find((r) => r.scenario === scenario && r.strategy === strategy)?.timeFraction ??
      Number.NaN,
  );
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `${f(mean, 3)} [${f(Math.min(...values), 3)}, ${f(Math.max(...values), 3)}]`;
};
const metIn = (scenario: TimeoutScenarioName) =>
  bySeed.filter((rows) => {
    const target = assessTarget(rows.filter((r) => r.scenario === scenario));
    return target?.met === true;
  }).length;
const allMet = bySeed.filter((rows) => assessTarget(rows)?.met === true).length;
out.push(
  `### Over seeds 1–${seeds} (virtual time)\n`,
  'Mean [min, max] of the Time Fraction over the seeds (each seed: its own random walk, noise ' +
    'and thus strategy runs), and in how many seeds the scenario meets the target.\n',
  markdownTable(
    ['Scenario', 'combined', 'exponential-backoff', `Target met (of ${seeds})`],
    scenarios.map((scenario) => [
      TIMEOUT_SCENARIO_LABELS[scenario],
      spread(scenario, 'combined'),
      spread(scenario, 'exponential-backoff'),
      String(metIn(scenario)),
    ]),
  ),
  '',
  `The target holds in all eight scenarios at once in ${allMet} of the ${seeds} seeds.`,
  '',
);

// ── Live ────────────────────────────────────────────────────────────────────────────────────
if (live) {
  log(`live, time scale ${timeScale} (about ${Math.round(800 * timeScale)} s)`);
  const liveStarted = performance.now();
  const liveRows: LiveStrategyEvaluation[] = await evaluateTimeoutSuiteLive({
    ...suite,
    seed: SEED,
    timeScale,
  });
  const wallS = (performance.now() - liveStarted) / 1000;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const byDesign = liveRows.map((r) => ({
    ...r,
    timeFraction: r.timeFraction - r.overheadFraction,
  }));
  out.push(
    `### Time Fraction, live App1 → App2 on loopback (time scale ${timeScale}, seed ${SEED})\n`,
    `The same curves and noise as the virtual table, every latency × ${timeScale}; all ` +
      `${liveRows.length} runs at once, each its own App1 → App2 pair; ${f(wallS, 0)} s of wall time. ` +
      `Same table: \`npx tsx src/cli/main.ts timeouts eval --scenario all --live --time-scale ${timeScale}\`.\n`,
    timeFractionTable(liveRows),
    '',
    verdict(assessTarget(liveRows)),
    '',
    `An attempt took ${f(mean(liveRows.map((r) => r.overheadMs)), 2)} ms (real) more than designed ` +
      "on average (App2's sleep, or the timeout): loopback HTTP, timer lateness, reconnecting " +
      `after aborts and ${liveRows.length} runs sharing one event loop. That is ` +
      `+${f(mean(liveRows.map((r) => r.overheadFraction)), 3)} of a Time Fraction on average ` +
      `(${f(Math.min(...liveRows.map((r) => r.overheadFraction)), 3)} to ` +
      `${f(Math.max(...liveRows.map((r) => r.overheadFraction)), 3)}). The strategies observe the ` +
      'inflated latencies and adapt to them. Less that overhead, the live Time Fractions — what ' +
      'the strategies’ live decisions cost by design — are:\n',
    timeFractionTable(byDesign),
    '',
    verdict(assessTarget(byDesign)),
    '',
  );
} else {
  out.push('### Live\n', 'Not run this time (`--no-live`).', '');
}

const text = readFileSync(DOC, 'utf8');
const begin = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (begin === -1 || end < begin) {
  throw new Error(`${DOC.pathname}: expected the markers ${BEGIN} … ${END}`);
}
writeFileSync(
  DOC,
  `${text.slice(0, begin + BEGIN.length)}\n\n${out.join('\n')}\n${text.slice(end)}`,
);
log(`wrote ${DOC.pathname}`);
