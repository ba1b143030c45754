/**
 * The orbit law against the simulator and the mean-field law on a grid of one service on the
 * flank below a storm (docs/model.md, "The orbit law"): μ = 100/s, one class, nominal load
 * ρ = 0.2 … 0.6, per-try timeout T = 2, 3.5 and 5 mean service times, k = 1, 3 and 5, m = 10, 40
 * and 80, exponential backoff with mean 100 ms (difftry's default). Each simulated run starts
 * idle; where the orbit law finds a healthy state and a storm, a run is set beside the state
 * whose rejection is nearer (as scripts/validate-timeouts-model.ts does for the mean field).
 *
 * Prints the points, then per law: points within 0.02 and 0.05, the worst gap and the median.
 * Run with `npx tsx scripts/orbit-law-grid.ts` (`-- --quick`: k = 1 and 5, m = 10 and 40 only).
 * Fixed seeds: the same code prints the same. Progress goes to stderr.
 */
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { fixedTimeout } from '../src/policy/timeouts/TimeoutStrategy.js';
import { simulateNetwork } from '../src/sim/network/simulateNetwork.js';

const MU = 100;
const BACKOFF_S = 0.1;
const quick = process.argv.includes('--quick');
const RHOS = [0.2, 0.3, 0.4, 0.5, 0.6];
const TIMEOUTS = [2, 3.5, 5];
const RETRIES = quick ? [1, 5] : [1, 3, 5];
const QUEUES = quick ? [10, 40] : [10, 40, 80];
const RUNS = 4;
const RUN = { duration: 300, warmup: 30 };
const SEED = 2029;

function network(rho: number, x: number, k: number, m: number): NetworkModel {
  return {
    classes: [{ name: 'users', retryLimit: k, meanBackoffs: [BACKOFF_S] }],
    services: [
      {
        name: 'api',
        capacity: MU,
        queue: m,
        model: 'mm1m',
        arrivals: [rho * MU],
        retryLimits: [k],
        routes: [],
        timeouts: [x / MU],
      },
    ],
  };
}

const rejections = (report: ReturnType<typeof analyzeNetwork>) =>
  report.equilibria.map((e) => e.endToEnd.users?.rejection ?? Number.NaN);

/** Per run, the gap to the nearer of the law's states; the mean over runs. */
function gap(law: readonly number[], runs: readonly number[]): number {
  let sum = 0;
  for (const r of runs) sum += Math.min(...law.map((l) => Math.abs(l - r)));
  return sum / runs.length;
}

interface Row {
  readonly label: string;
  readonly sim: number;
  readonly meanField: number;
  readonly orbit: number;
  readonly orbitMs: number;
}
const rows: Row[] = [];
let stream = 0;
for (const m of QUEUES) {
  for (const k of RETRIES) {
    for (const x of TIMEOUTS) {
      for (const rho of RHOS) {
        const label = `m=${m} k=${k} μT=${x} ρ=${rho}`;
        process.stderr.write(`orbit-law-grid: ${label}\n`);
        const net = network(rho, x, k, m);
        const meanField = rejections(analyzeNetwork(net));
        const started = performance.now();
        const orbit = rejections(analyzeNetwork(net, { law: 'orbit' }));
        const orbitMs = performance.now() - started;
        const runs: number[] = [];
        for (let r = 0; r < RUNS; r++) {
          const result = simulateNetwork(net, {
            ...RUN,
            seed: SEED,
            stream: stream++,
            backoff: { kind: 'random', meanMs: BACKOFF_S * 1000 },
            timeouts: () => fixedTimeout((x / MU) * 1000),
          });
          runs.push(result.endToEnd.users?.rejection ?? Number.NaN);
        }
        const sim = runs.reduce((a, b) => a + b, 0) / runs.length;
        rows.push({
          label,
          sim,
          meanField: gap(meanField, runs),
          orbit: gap(orbit, runs),
          orbitMs,
        });
      }
    }
  }
}

console.log('# The orbit law on the flank below a storm: one service against the simulator\n');
console.log(
  'Made by `npm run validate:orbit-law` (scripts/orbit-law-grid.ts); docs/model.md, "The orbit law", says what it measures. ' +
    'A gap is the mean over the runs of |R_run − R_law| for the law’s state nearer to each run (the orbit law’s healthy state or storm where it finds two). ' +
    `μ = ${MU}/s, one class, backoff exponential with mean ${BACKOFF_S * 1000} ms. The times vary with the machine.\n`,
);
console.log(
  `Simulator: ${RUNS} runs of ${RUN.duration} s a point (warm-up ${RUN.warmup} s), seed ${SEED}.\n`,
);
console.log('| point | simulated R | mean-field gap | orbit-law gap | orbit law time |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.sim.toFixed(4)} | ${r.meanField.toFixed(4)} | ${r.orbit.toFixed(4)} | ${r.orbitMs.toFixed(0)} ms |`,
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
summary(
  'mean field',
  rows.map((r) => r.meanField),
);
summary(
  'orbit law',
  rows.map((r) => r.orbit),
);
const times = rows.map((r) => r.orbitMs).sort((a, b) => a - b);
console.log(
  `orbit law time per point: worst ${(times.at(-1) as number).toFixed(0)} ms, median ${(times[Math.floor(times.length / 2)] as number).toFixed(0)} ms`,
);
