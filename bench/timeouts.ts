/**
 * The Optimizer's recompute time: build `empiricalLatency` from 2,000 samples (bimodal: 70 %
 * lognormal median 0.1 s, 30 % median 0.5 s, σ = 0.25; those above 0.8 s censored there, as a
 * 0.8 s timeout would; recency weights 1…2000) and run `optimizeTimeouts` at depth 4 (target:
 * under 2 ms), beside the named peer: exhaustive search of every increasing depth-4 sequence
 * t_0 < t_1 < t_2 < t_z on a 100-point geometric grid of the same law (161,700 sequences, a and
 * b precomputed per grid point). The run checks that the tree's E_0 is no worse than the grid's.
 *
 * Run alone with `npx tsx bench/timeouts.ts`.
 */
import { pathToFileURL } from 'node:url';
import {
  empiricalLatency,
  type LatencyDistribution,
  type LatencySample,
  optimizeTimeouts,
  seededRandom,
  singleTimeout,
} from '../src/model/index.js';
import { medianNanosPerOp, report } from './harness.js';

const SAMPLES = 2000;
const DEPTH = 4;
const GRID = 100;

function benchSamples(): LatencySample[] {
  const random = seededRandom(20261129);
  return Array.from({ length: SAMPLES }, (_, i) => {
    const median = random() < 0.7 ? 0.1 : 0.5;
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const latency = median * Math.exp(0.25 * normal);
    return latency > 0.8
      ? { latency: 0.8, censored: true, weight: i + 1 }
      : { latency, weight: i + 1 };
  });
}

/** The peer: the least E_0 over every increasing depth-4 sequence on a geometric grid below tz. */
function gridOptimum(law: LatencyDistribution, tz: number): number {
  const low = law.minObserved;
  const a = new Float64Array(GRID);
  const b = new Float64Array(GRID);
  for (let k = 0; k < GRID; k++) {
    const attempt = singleTimeout(law, low * (tz / low) ** (k / GRID));
    a[k] = attempt.a;
    b[k] = attempt.b;
  }
  const top = singleTimeout(law, tz).E;
  let best = top;
  for (let k2 = 0; k2 < GRID; k2++) {
    const E2 = (a[k2] as number) + (b[k2] as number) * top;
    for (let k1 = 0; k1 < k2; k1++) {
      const E1 = (a[k1] as number) + (b[k1] as number) * E2;
      for (let k0 = 0; k0 < k1; k0++) {
        const E0 = (a[k0] as number) + (b[k0] as number) * E1;
        if (E0 < best) best = E0;
      }
    }
  }
  return best;
}

/** Recompute time of the Optimizer (2,000 samples, depth 4) against an exhaustive grid search. */
export async function run(): Promise<void> {
  const samples = benchSamples();
  const law = empiricalLatency(samples);
  const result = optimizeTimeouts(law, { depth: DEPTH });
  const peerE0 = gridOptimum(law, result.tz);
  let checksum = 0;
  for (let i = 0; i < 50; i++)
    checksum += optimizeTimeouts(empiricalLatency(samples), { depth: DEPTH }).E0;
  const recomputeNs = medianNanosPerOp(
    () => {
      checksum += optimizeTimeouts(empiricalLatency(samples), { depth: DEPTH }).E0;
    },
    { batch: 10, runs: 25 },
  );
  const buildNs = medianNanosPerOp(
    () => {
      checksum += empiricalLatency(samples).mass;
    },
    { batch: 10, runs: 25 },
  );
  const optimizeNs = medianNanosPerOp(
    () => {
      checksum += optimizeTimeouts(law, { depth: DEPTH }).E0;
    },
    { batch: 10, runs: 25 },
  );
  const peerNs = medianNanosPerOp(
    () => {
      checksum += gridOptimum(law, result.tz);
    },
    { batch: 1, runs: 21 },
  );
  const { sequence, E0 } = result;
  const increasing = sequence.every((t, n) => n === 0 || t > (sequence[n - 1] as number));
  if (
    !(checksum > 0) ||
    !increasing ||
    sequence.length !== DEPTH ||
    sequence[DEPTH - 1] !== result.tz ||
    !(E0 <= peerE0 * (1 + 1e-9)) ||
    !(E0 >= peerE0 * 0.99)
  ) {
    throw new Error(
      `optimizer check failed: sequence [${sequence}], E0 ${E0}, grid E0 ${peerE0}, checksum ${checksum}`,
    );
  }
  const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`;
  report(
    `Timeout Optimizer recompute (${SAMPLES} samples, ${samples.filter((s) => s.censored).length} censored, recency weights; depth ${DEPTH})`,
    [
      ['empiricalLatency + optimizeTimeouts (target < 2 ms)', ms(recomputeNs)],
      ['  empiricalLatency (Kaplan–Meier, 512-node log grid)', ms(buildNs)],
      ['  optimizeTimeouts (tree search, 32 seeds)', ms(optimizeNs)],
      [`peer: exhaustive depth-${DEPTH} search on a ${GRID}-point grid`, ms(peerNs)],
      ['ratio peer / optimizeTimeouts', `${(peerNs / optimizeNs).toFixed(0)}×`],
      [
        'ratio peer / (empiricalLatency + optimizeTimeouts)',
        `${(peerNs / recomputeNs).toFixed(1)}×`,
      ],
      ['sequence (s)', sequence.map((t) => t.toFixed(4)).join(', ')],
      ['E_0: tree / grid (s)', `${E0.toFixed(5)} / ${peerE0.toFixed(5)}`],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
