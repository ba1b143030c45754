/**
 * How the orbit law's gap to the simulator grows as the per-try timeout becomes regular: one
 * service (μ = 100/s, two classes sharing the load, gold with k retries and bronze with k − 1,
 * backoff exponential with mean 100 ms) at a few points of issue 25's flank grid, the timeout
 * drawn per attempt from an Erlang law of r stages with mean T (r = 1: exponential; many: nearly
 * fixed) and fixed, in the simulator and in the law alike (`timeoutLaw: 'erlang'`,
 * `timeoutStages`, or `fixed`), the law with its mean mix and with a mix per level (docs/model.md,
 * "The orbit law": the clustering of deterministic timeouts). The law's fates are exact one by
 * one; what it leaves out is that attempts close in time share the completions that decide them.
 *
 * Run with `npm run validate:timeout-shape > docs/validation-timeout-shape.md`. Fixed seeds: the
 * same code prints the same. Progress goes to stderr.
 */

import {
  FLANK_BACKOFF_S,
  FLANK_CLASSES,
  FLANK_MU,
  flankNetwork,
  flankOrbitClasses,
} from '../src/experiments/flankGrid/flankPoint.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { orbitQueue } from '../src/model/queue/orbitQueue.js';
import { seededRandom } from '../src/model/random.js';
import { fixedTimeout, type TimeoutStrategy } from '../src/policy/timeouts/TimeoutStrategy.js';
import { simulateNetwork } from '../src/sim/network/simulateNetwork.js';
import { meanWithCi95 } from '../src/stats/confidence.js';

const MU = FLANK_MU;
const BACKOFF_S = FLANK_BACKOFF_S;
const RUNS = 48;
const RUN = { duration: 300, warmup: 30 };
const SEED = 2037;
/** Points of the flank grid: m, gold's k, μT, ρ. */
const POINTS = [
  [10, 3, 2, 0.3],
  [10, 3, 2, 0.35],
  [10, 5, 3.5, 0.35],
  [40, 3, 2, 0.25],
  [40, 3, 3.5, 0.3],
] as const;
/** Erlang stages of the timeout; `fixed` last. */
const SHAPES = [1, 2, 8, 'fixed'] as const;
const CLASSES = FLANK_CLASSES;

type Shape = (typeof SHAPES)[number];

/** The clients' timeout: Erlang with `shape` stages and mean x/μ, or fixed at x/μ. */
function timeoutFor(x: number, shape: Shape, random: () => number): TimeoutStrategy {
  const ms = (x / MU) * 1000;
  if (shape === 'fixed') return fixedTimeout(ms);
  return {
    next: () => {
      let total = 0;
      for (let stage = 0; stage < shape; stage++) total -= (ms / shape) * Math.log(1 - random());
      return total;
    },
    observe: () => {},
  };
}

/** The law's R per class for the shape and mix (the one state, or the healthy one). */
function lawOf(
  m: number,
  k: number,
  x: number,
  rho: number,
  shape: Shape,
  mix: 'mean' | 'level',
): number[] {
  const classes = flankOrbitClasses(
    rho,
    x,
    k,
    shape === 'fixed' ? { timeoutLaw: 'fixed' } : { timeoutLaw: 'erlang', timeoutStages: shape },
  );
  const figures = orbitQueue({ capacity: MU, queue: m, classes, mix });
  return CLASSES.map((_, p) => figures.classes[p]?.requestRejection ?? Number.NaN);
}

const network = (m: number, k: number, rho: number) =>
  flankNetwork(rho, 0, k, m, { timeouts: false });

const lines: string[] = [];
const gaps = new Map<string, number[]>();
let stream = 0;
for (const [m, k, x, rho] of POINTS) {
  for (const shape of SHAPES) {
    const label = `m=${m} k=${k},${k - 1} μT=${x} ρ=${rho}`;
    process.stderr.write(
      `timeout-shape: ${label}, ${shape === 'fixed' ? 'fixed' : `r = ${shape}`}\n`,
    );
    const runs: number[][] = CLASSES.map(() => []);
    for (let r = 0; r < RUNS; r++) {
      const random = seededRandom(SEED + 1, stream);
      const result = simulateNetwork(network(m, k, rho), {
        ...RUN,
        seed: SEED,
        stream: stream++,
        backoff: { kind: 'random', meanMs: BACKOFF_S * 1000 },
        timeouts: () => timeoutFor(x, shape, random),
      });
      CLASSES.forEach((name, p) => {
        runs[p]?.push(result.endToEnd[name]?.rejection ?? Number.NaN);
      });
    }
    const sim = runs.map((values) => meanWithCi95(values));
    const mean = lawOf(m, k, x, rho, shape, 'mean');
    const level = lawOf(m, k, x, rho, shape, 'level');
    const signed = (law: number[]) =>
      CLASSES.map((_, p) => (law[p] as number) - (sim[p]?.mean as number));
    const worst = (law: number[]) =>
      signed(law).reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a), 0);
    const key = String(shape);
    gaps.set(key, [...(gaps.get(key) ?? []), Math.abs(worst(level))]);
    const fmt = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(4)}`;
    lines.push(
      `| ${label} | ${shape === 'fixed' ? 'fixed' : shape} | ${sim.map((s) => `${s.mean.toFixed(4)} ± ${s.ci95.toFixed(4)}`).join(' / ')} | ${mean.map((v) => v.toFixed(4)).join(' / ')} | ${fmt(worst(mean))} | ${level.map((v) => v.toFixed(4)).join(' / ')} | ${fmt(worst(level))} |`,
    );
  }
}

// The fates one by one: no retries (k = 0), so nothing clusters through the orbit — the law's
// timeout share against long runs, the timeout fixed.
const fateLines: string[] = [];
for (const rho of [0.5, 0.8, 0.95]) {
  const [m, x] = [40, 3.5];
  process.stderr.write(`timeout-shape: fates alone, ρ = ${rho}\n`);
  const law = orbitQueue({
    capacity: MU,
    queue: m,
    classes: [{ arrivalRate: rho * MU, retryLimit: 0, timeout: x, meanBackoff: BACKOFF_S }],
  }).classes[0]?.requestRejection;
  const alone: NetworkModel = {
    classes: [{ name: 'only', retryLimit: 0, meanBackoffs: [BACKOFF_S] }],
    services: [
      {
        name: 'api',
        capacity: MU,
        queue: m,
        model: 'mm1m',
        arrivals: [rho * MU],
        retryLimits: [0],
        routes: [],
      },
    ],
  };
  const simulated = simulateNetwork(alone, {
    duration: 2000,
    warmup: 30,
    seed: SEED,
    stream: stream++,
    timeouts: () => fixedTimeout((x / MU) * 1000),
  }).endToEnd.only?.rejection;
  fateLines.push(`| m=${m} k=0 μT=${x} ρ=${rho} | ${simulated?.toFixed(4)} | ${law?.toFixed(4)} |`);
}

console.log('# The orbit law against the simulator as the timeout becomes regular\n');
console.log(
  'Made by `npm run validate:timeout-shape > docs/validation-timeout-shape.md` (scripts/timeout-shape.ts); docs/model.md, "The orbit law", says what it shows. ' +
    `One service, μ = ${MU}/s, two classes sharing the load equally (gold with k retries, bronze with k − 1), backoff exponential with mean ${BACKOFF_S * 1000} ms; ` +
    'the per-try timeout has mean T and is drawn per attempt from an Erlang law of r stages (r = 1: exponential) or is fixed, in the simulator and the law alike. ' +
    `Simulator: ${RUNS} runs of ${RUN.duration} s a point (warm-up ${RUN.warmup} s), seed ${SEED}. ` +
    'The gap is law − simulated for the class where it is larger (gold, bronze).\n',
);
console.log(
  '| point | timeout stages r | simulated R gold / bronze (95 %) | law, mean mix | gap | law, mix per level | gap |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const line of lines) console.log(line);
console.log('');
console.log(
  '\nThe fates one by one: without retries (k = 0) nothing clusters through the orbit; a fixed timeout, one run of 2,000 s (after 30 s) a point.\n',
);
console.log('| point | simulated R | law R |');
console.log('| --- | ---: | ---: |');
for (const line of fateLines) console.log(line);
console.log('');
for (const shape of SHAPES) {
  const values = gaps.get(String(shape)) ?? [];
  const sorted = [...values].sort((a, b) => a - b);
  console.log(
    `mix per level, ${shape === 'fixed' ? 'fixed timeouts' : `r = ${shape}`}: worst |gap| ${(sorted.at(-1) as number).toFixed(4)}, median ${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(4)} over ${values.length} points`,
  );
}
