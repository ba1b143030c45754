/**
 * The orbit law against the simulator and the mean-field law on issue 25's flank grid (docs/model.md,
 * "The orbit law"): one service, μ = 100/s, two classes sharing the nominal load ρ = 0.2 … 0.6
 * by 0.05 equally — gold with k retries and bronze with k − 1, k = 1, 3, 5 — per-try timeout
 * T = 2, 3.5 and 5 mean service times, m = 10, 40 and 80, exponential backoff with mean 100 ms
 * (difftry's default). 243 points.
 *
 * Each simulated run starts idle and is watched over [warm-up, duration]. A law's prediction of
 * such a run: its one state where it has one; where it has a healthy state and a storm, the two
 * weighted by the shares of the window a run started healthy spends in each, from the orbit
 * law's escape times (`runShares`; the mean field has no escape times, so its healthy state,
 * where an idle start stays until the fold). The gap of a point is the larger over the two
 * classes of |mean of the runs − prediction|, with the runs' 95 % interval beside it; the
 * per-run gap of the earlier grid (the mean over the runs of the distance to the nearer state)
 * is printed too, as it also counts the runs' own scatter.
 *
 * Beside the orbit law as `analyze --law orbit` takes it (the orbit's mean mix), the same law with
 * a mix per level (`orbitQueue`'s `mix: 'level'`).
 *
 * `--timeouts exponential`: every timeout exponentially distributed with the same mean, in the
 * simulator (drawn per attempt) and in the law (`timeoutLaw: 'exponential'`) — the law's own
 * approximations measured apart from what fixed timeouts add (issue 25's split); the mean field,
 * which reads a fixed timeout's sojourn tail, is left out.
 *
 * Prints the points, then per law: points within 0.02 and 0.05, the worst gap and the median.
 * Run with `npx tsx scripts/orbit-law-grid.ts` (`-- --quick`: k = 1 and 5, m = 10 and 40, ρ by
 * 0.1). Fixed seeds: the same code prints the same. Progress goes to stderr.
 */

import {
  FLANK_BACKOFF_S,
  FLANK_CLASSES,
  FLANK_MU,
  flankNetwork,
  flankOrbitClasses,
  runReading,
} from '../src/experiments/flankGrid/flankPoint.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkReport } from '../src/model/network/NetworkReport.js';
import { type OrbitFigures, orbitQueue } from '../src/model/queue/orbitQueue.js';
import { seededRandom } from '../src/model/random.js';
import { fixedTimeout, type TimeoutStrategy } from '../src/policy/timeouts/TimeoutStrategy.js';
import { simulateNetwork } from '../src/sim/network/simulateNetwork.js';
import { meanWithCi95 } from '../src/stats/confidence.js';

const MU = FLANK_MU;
const BACKOFF_S = FLANK_BACKOFF_S;
const quick = process.argv.includes('--quick');
const RHOS = quick ? [0.2, 0.3, 0.4, 0.5, 0.6] : [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
const TIMEOUTS = [2, 3.5, 5];
const RETRIES = quick ? [1, 5] : [1, 3, 5];
const QUEUES = quick ? [10, 40] : [10, 40, 80];
const CLASSES = FLANK_CLASSES;
const RUNS = quick ? 8 : 24;
const RUN = { duration: 300, warmup: 30 };
const SEED = 2029;
const exponential = process.argv.includes('exponential');
const TIMEOUT_LAW = exponential ? 'exponential' : 'fixed';

/** The part of a run the simulator watches, seconds from its start. */
const RUN_WINDOW = { from: RUN.warmup, to: RUN.duration };

const network = (rho: number, x: number, k: number, m: number) =>
  flankNetwork(rho, x, k, m, { timeouts: true });

/** Per class, the rejection of each state the report lists. */
const statesOf = (report: NetworkReport, name: string) =>
  report.equilibria.map((e) => e.endToEnd[name]?.rejection ?? Number.NaN);

/** A run's expected rejection per the report: its one state, or two weighted by escape times. */
const runPrediction = (report: NetworkReport, name: string) =>
  runReading(
    report.equilibria.map((e) => ({
      figure: e.endToEnd[name]?.rejection ?? Number.NaN,
      escape: e.services.api?.escapeSeconds,
    })),
    RUN_WINDOW,
  );

/** The orbit law of the point solved directly, its mix `mean` or per `level`. */
function orbitOf(rho: number, x: number, k: number, m: number, mix: 'mean' | 'level') {
  return orbitQueue({
    capacity: MU,
    queue: m,
    mix,
    classes: flankOrbitClasses(rho, x, k, { timeoutLaw: TIMEOUT_LAW }),
  });
}

/** Per class, the rejection of each of the law's states. */
const orbitStatesOf = (figures: OrbitFigures, p: number) =>
  figures.modes.map((mode) => mode.classes[p]?.requestRejection ?? Number.NaN);

/** {@link runPrediction} from the law's own figures. */
const orbitRunPrediction = (figures: OrbitFigures, p: number) =>
  runReading(
    figures.modes.map((mode) => ({
      figure: mode.classes[p]?.requestRejection ?? Number.NaN,
      escape: mode.escapeTime,
    })),
    RUN_WINDOW,
  );

/** The clients' per-try timeout x/μ: fixed, or exponential with that mean from `random`. */
function timeoutFor(x: number, random: () => number): TimeoutStrategy {
  const ms = (x / MU) * 1000;
  if (!exponential) return fixedTimeout(ms);
  return { next: () => -ms * Math.log(1 - random()), observe: () => {} };
}

/** The mean over runs of the distance to the nearer state (the earlier grid's gap). */
function perRunGap(states: readonly number[], runs: readonly number[]): number {
  let sum = 0;
  for (const r of runs) sum += Math.min(...states.map((l) => Math.abs(l - r)));
  return sum / runs.length;
}

interface Row {
  readonly label: string;
  /** Per class: the runs' mean and 95 % half-width. */
  readonly sim: readonly { mean: number; ci95: number }[];
  readonly meanField: number;
  readonly orbit: number;
  readonly meanFieldPerRun: number;
  readonly orbitPerRun: number;
  readonly orbitStates: number;
  readonly orbitMs: number;
  readonly level: number;
  readonly levelPerRun: number;
  readonly levelStates: number;
  readonly levelMs: number;
}
const rows: Row[] = [];
let stream = 0;
const total = QUEUES.length * RETRIES.length * TIMEOUTS.length * RHOS.length;
for (const m of QUEUES) {
  for (const k of RETRIES) {
    for (const x of TIMEOUTS) {
      for (const rho of RHOS) {
        const label = `m=${m} k=${k},${k - 1} μT=${x} ρ=${rho}`;
        process.stderr.write(`orbit-law-grid: ${rows.length + 1}/${total} ${label}\n`);
        const net = network(rho, x, k, m);
        const meanField = exponential ? undefined : analyzeNetwork(net);
        let started = performance.now();
        // The law as `analyze --law orbit` reads it (fixed timeouts), or solved directly.
        const orbit = exponential ? undefined : analyzeNetwork(net, { law: 'orbit' });
        const orbitDirect = exponential ? orbitOf(rho, x, k, m, 'mean') : undefined;
        const orbitMs = performance.now() - started;
        started = performance.now();
        const level = orbitOf(rho, x, k, m, 'level');
        const levelMs = performance.now() - started;
        const runs: number[][] = CLASSES.map(() => []);
        for (let r = 0; r < RUNS; r++) {
          const random = seededRandom(SEED + 1, stream);
          const result = simulateNetwork(net, {
            ...RUN,
            seed: SEED,
            stream: stream++,
            backoff: { kind: 'random', meanMs: BACKOFF_S * 1000 },
            timeouts: () => timeoutFor(x, random),
          });
          CLASSES.forEach((name, p) => {
            runs[p]?.push(result.endToEnd[name]?.rejection ?? Number.NaN);
          });
        }
        const sim = runs.map((values) => meanWithCi95(values));
        const worst = (f: (name: string, p: number) => number) =>
          Math.max(...CLASSES.map((name, p) => f(name, p)));
        const predicted = (name: string, p: number) =>
          orbit !== undefined
            ? runPrediction(orbit, name)
            : orbitRunPrediction(orbitDirect as OrbitFigures, p);
        const orbitStates = (name: string, p: number) =>
          orbit !== undefined
            ? statesOf(orbit, name)
            : orbitStatesOf(orbitDirect as OrbitFigures, p);
        rows.push({
          label,
          sim,
          meanField:
            meanField === undefined
              ? Number.NaN
              : worst((name, p) =>
                  Math.abs((statesOf(meanField, name)[0] as number) - (sim[p]?.mean as number)),
                ),
          orbit: worst((name, p) => Math.abs(predicted(name, p) - (sim[p]?.mean as number))),
          meanFieldPerRun:
            meanField === undefined
              ? Number.NaN
              : worst((name, p) => perRunGap(statesOf(meanField, name), runs[p] as number[])),
          orbitPerRun: worst((name, p) => perRunGap(orbitStates(name, p), runs[p] as number[])),
          orbitStates: orbit?.equilibria.length ?? (orbitDirect as OrbitFigures).modes.length,
          orbitMs,
          level: worst((_, p) => Math.abs(orbitRunPrediction(level, p) - (sim[p]?.mean as number))),
          levelPerRun: worst((_, p) => perRunGap(orbitStatesOf(level, p), runs[p] as number[])),
          levelStates: level.modes.length,
          levelMs,
        });
      }
    }
  }
}

const timeoutWords = exponential
  ? 'every per-try timeout exponentially distributed with mean T, in the simulator and in the law'
  : 'every per-try timeout fixed at T';
console.log(
  `# The orbit law on the flank below a storm: one service against the simulator${exponential ? ', exponential timeouts' : ''}\n`,
);
console.log(
  `Made by \`npm run ${exponential ? 'validate:orbit-law-exponential > docs/validation-orbit-law-exponential.md' : 'validate:orbit-law > docs/validation-orbit-law.md'}\` (scripts/orbit-law-grid.ts); docs/model.md, "The orbit law", says what it measures. ` +
    `μ = ${MU}/s, two classes sharing the load equally (gold with k retries, bronze with k − 1), backoff exponential with mean ${BACKOFF_S * 1000} ms, ${timeoutWords}. ` +
    'A gap is the larger over the two classes of |mean of the runs − the law’s prediction of a run|: its one state, or where it has two (the states columns say 2) the healthy state and the storm weighted by the shares of the window a run started idle spends in each, from the orbit law’s escape times' +
    (exponential ? '. ' : '; the mean field’s healthy state. ') +
    "The orbit law is as `difftry analyze --law orbit` takes it (the orbit’s mean mix of classes and retries used); “level mix” is the same law with the mix of each orbit level (`orbitQueue` with `mix: 'level'`). " +
    'The per-run gaps are the mean over the runs of the distance to the nearer state, which counts the runs’ own scatter as well. The times vary with the machine.\n',
);
console.log(
  `Simulator: ${RUNS} runs of ${RUN.duration} s a point (watched after a warm-up of ${RUN.warmup} s), seed ${SEED}.\n`,
);
console.log(
  exponential
    ? '| point | simulated R gold (95 %) | simulated R bronze (95 %) | orbit-law gap | orbit-law states | level-mix gap | level-mix states | orbit-law per-run gap | level-mix per-run gap | orbit law time | level mix time |'
    : '| point | simulated R gold (95 %) | simulated R bronze (95 %) | mean-field gap | orbit-law gap | orbit-law states | level-mix gap | level-mix states | mean-field per-run gap | orbit-law per-run gap | level-mix per-run gap | orbit law time | level mix time |',
);
console.log(
  exponential
    ? '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'
    : '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
);
const withCi = (s: { mean: number; ci95: number } | undefined) =>
  s === undefined ? '' : `${s.mean.toFixed(4)} ± ${s.ci95.toFixed(4)}`;
for (const r of rows) {
  const cells = exponential
    ? [
        r.orbit.toFixed(4),
        r.orbitStates,
        r.level.toFixed(4),
        r.levelStates,
        r.orbitPerRun.toFixed(4),
        r.levelPerRun.toFixed(4),
      ]
    : [
        r.meanField.toFixed(4),
        r.orbit.toFixed(4),
        r.orbitStates,
        r.level.toFixed(4),
        r.levelStates,
        r.meanFieldPerRun.toFixed(4),
        r.orbitPerRun.toFixed(4),
        r.levelPerRun.toFixed(4),
      ];
  console.log(
    `| ${r.label} | ${withCi(r.sim[0])} | ${withCi(r.sim[1])} | ${cells.join(' | ')} | ${r.orbitMs.toFixed(0)} ms | ${r.levelMs.toFixed(0)} ms |`,
  );
}
const summary = (name: string, gaps: number[]) => {
  const sorted = [...gaps].sort((a, b) => a - b);
  const within = (t: number) => gaps.filter((g) => g <= t).length;
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  console.log(
    `${name}: ${within(0.02)} of ${gaps.length} within 0.02, ${within(0.05)} within 0.05; worst ${(sorted.at(-1) as number).toFixed(4)}, median ${median.toFixed(4)}`,
  );
};
console.log('');
const laws: [string, (r: Row) => number][] = [
  ...(exponential
    ? []
    : ([['mean field', (r: Row) => r.meanField]] as [string, (r: Row) => number][])),
  ['orbit law', (r) => r.orbit],
  ['level mix', (r) => r.level],
  ...(exponential
    ? []
    : ([['mean field, per run', (r: Row) => r.meanFieldPerRun]] as [string, (r: Row) => number][])),
  ['orbit law, per run', (r) => r.orbitPerRun],
  ['level mix, per run', (r) => r.levelPerRun],
];
for (const [name, gap] of laws) summary(name, rows.map(gap));
const wide = rows.filter((r) => r.sim.some((s) => s.ci95 > 0.02)).length;
console.log(`points whose simulated 95 % interval is wider than ± 0.02 (either class): ${wide}`);
for (const [name, ms] of [
  ['orbit law', (r: Row) => r.orbitMs],
  ['level mix', (r: Row) => r.levelMs],
] as const) {
  const times = rows.map(ms).sort((a, b) => a - b);
  console.log(
    `${name} time per point: worst ${(times.at(-1) as number).toFixed(0)} ms, median ${(times[Math.floor(times.length / 2)] as number).toFixed(0)} ms`,
  );
}
