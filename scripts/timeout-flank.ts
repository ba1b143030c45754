/**
 * Why the timeout validation misses 0.02 at four one-service points and two points of the routing
 * chain (docs/validation.md, section 8): each is re-simulated exactly as
 * scripts/validate-timeouts-model.ts does (same seed, same substreams, same runs) with 5 s
 * windows, and the windows are set beside the analysis (for the chain, at b, the service on
 * whose flank it sits; a rejects almost nothing there, so end to end R ≈ 0.8 R_b).
 *
 * Per point it prints: the analysis (ρ, the attempt failure f = s + (1 − s)τ and R = f^(k+1));
 * the simulation (its mean R and ρ); the local law per window — the measured attempt failure
 * f_w against the model's f(ρ_w) at the window's own offered load, as a mean distance and a mean
 * difference (does the timeout law hold where the load is known?); how far the window loads spread (their 10th and 90th percentiles);
 * and the model's R averaged over the windows' loads, Σ n_w f(ρ_w)^(k+1) / Σ n_w (what the
 * mean field gives once the load's fluctuation is put back).
 *
 * Run with `npx tsx scripts/timeout-flank.ts`. Fixed seeds: the same code prints the same.
 */

import { simulateRuns } from '../src/experiments/simulation/simulateRuns.js';
import {
  routingChain,
  simulatorTimeouts,
  TIMED_CAPACITY,
  TIMEOUT_VALIDATION,
  timedService,
} from '../src/experiments/timeoutValidation/timeoutCases.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { phiFor } from '../src/model/phi/index.js';
import { mm1mSojournTail } from '../src/model/queue/mm1mSojourn.js';

// The validation's settings and grid (scripts/validate-timeouts-model.ts), for its substreams.
const {
  seed: SEED,
  backoff: BACKOFF,
  run: RUN,
  queues: QUEUES,
  retries: RETRIES,
  rhos: RHOS,
  timeouts: TIMEOUTS,
} = TIMEOUT_VALIDATION;
const WINDOW = 5;

interface FlankCase {
  readonly label: string;
  readonly network: NetworkModel;
  /** The validation's substream of the point's first run. */
  readonly stream: number;
  /** The timed service whose flank it is, and the share of the requests that reach it. */
  readonly service: string;
  readonly share: number;
  /** Its m and μT. */
  readonly queue: number;
  readonly x: number;
}

/** The substream of the validation's first run of a single-service point. */
function singleStream(queue: number, retries: number, rho: number, x: number): number {
  const index =
    ((QUEUES.indexOf(queue as 50) * RETRIES.length + RETRIES.indexOf(retries as 5)) * RHOS.length +
      RHOS.indexOf(rho as 0.5)) *
      TIMEOUTS.length +
    TIMEOUTS.indexOf(x as 2);
  return index * RUN.replications;
}

const single = (queue: number, retries: number, rho: number, x: number): FlankCase => ({
  label: `m=${queue} k=${retries} ρ=${rho} T=${x}/μ (${(1000 * x) / TIMED_CAPACITY} ms)`,
  network: timedService({ queue, retries, rho, timeoutServiceTimes: x }),
  stream: singleStream(queue, retries, rho, x),
  service: 'api',
  share: 1,
  queue,
  x,
});
/** The routing chain's points come after the 170 single-service and call-graph points. */
const chain = (queue: number, rho: number, timeoutMs: number, index: number): FlankCase => ({
  label: `a→b routes m_b=${queue} ρ_b=${rho} T=${timeoutMs} ms (b's flank)`,
  network: routingChain({ rho, timeoutMs, queue }),
  stream: (170 + index) * RUN.replications,
  service: 'b',
  share: 0.8,
  queue,
  x: (timeoutMs / 1000) * TIMED_CAPACITY,
});

const CASES: readonly FlankCase[] = [
  single(50, 1, 0.5, 2),
  single(50, 1, 0.5, 3),
  single(10, 1, 0.5, 3),
  single(10, 1, 0.7, 5),
  chain(50, 0.5, 30, 0),
  chain(10, 0.5, 30, 9),
];

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

for (const c of CASES) {
  const network = c.network;
  const phi = phiFor('mm1m', c.queue);
  const failure = (rho: number) => {
    const s = phi(rho);
    return s + (1 - s) * mm1mSojournTail(rho, c.queue, c.x);
  };
  const report = analyzeNetwork(network);
  const rhoModel = report.services[c.service]?.rho as number;
  const runs = simulateRuns(
    network,
    {
      duration: RUN.duration,
      warmup: RUN.warmup,
      seed: SEED,
      backoff: BACKOFF,
      timeouts: simulatorTimeouts(network),
      windowSeconds: WINDOW,
    },
    RUN.replications,
    c.stream,
  );
  const fixed = (v: number, d = 3) => v.toFixed(d);
  const lines = [c.label];
  const loads: number[] = [];
  let localGap = 0;
  let localBias = 0;
  let localWeight = 0;
  for (const run of runs.runs) {
    for (const w of run.windows ?? []) {
      const at = w.services[c.service];
      if (w.start < RUN.warmup || at === undefined || !(at.attempts > 0)) continue;
      const measured = at.s + at.timeouts / at.attempts;
      localGap += at.attempts * Math.abs(measured - failure(at.rho));
      localBias += at.attempts * (measured - failure(at.rho));
      localWeight += at.attempts;
      loads.push(at.rho);
    }
  }
  loads.sort((a, b) => a - b);
  lines.push(
    `  ${c.service}: analysis ρ ${fixed(rhoModel)}, f ${fixed(failure(rhoModel))}; simulation ρ ${fixed(runs.services[c.service]?.rho.mean as number)}`,
    `  local law per ${WINDOW} s window: mean |f_w − f(ρ_w)| ${fixed(localGap / localWeight, 4)}, ` +
      `mean f_w − f(ρ_w) ${fixed(localBias / localWeight, 4)} (attempt-weighted)`,
    `  window loads: 10 % ${fixed(quantile(loads, 0.1))}, median ${fixed(quantile(loads, 0.5))}, 90 % ${fixed(quantile(loads, 0.9))}`,
  );
  network.classes.forEach((cls, p) => {
    const k = network.services.find((s) => s.name === c.service)?.retryLimits[p] ?? 0;
    let fluctuating = 0;
    let requests = 0;
    const windowRejections: number[] = [];
    for (const run of runs.runs) {
      for (const w of run.windows ?? []) {
        const at = w.services[c.service];
        const figures = w.classes[cls.name];
        if (w.start < RUN.warmup || at === undefined || figures === undefined) continue;
        const ended = figures.completed + figures.rejected;
        fluctuating += ended * failure(at.rho) ** (k + 1);
        requests += ended;
        if (ended > 0) windowRejections.push(figures.rejection);
      }
    }
    windowRejections.sort((a, b) => a - b);
    const rHere = failure(rhoModel) ** (k + 1);
    lines.push(
      `  ${cls.name} (k = ${k}): analysis R ${fixed(report.endToEnd[cls.name]?.rejection as number, 4)} ` +
        `(at ρ ± 2 %: ${fixed(c.share * failure(rhoModel * 0.98) ** (k + 1), 4)} … ${fixed(c.share * failure(rhoModel * 1.02) ** (k + 1), 4)}); ` +
        `simulation ${fixed(runs.rejection[cls.name]?.mean as number, 4)} ± ${fixed(runs.rejection[cls.name]?.ci95 as number, 4)}; ` +
        `the model over the windows' loads ${fixed((c.share * fluctuating) / requests, 4)} (at the mean field ${fixed(c.share * rHere, 4)}); ` +
        `window rejections 10 % ${fixed(quantile(windowRejections, 0.1))}, median ${fixed(quantile(windowRejections, 0.5))}, 90 % ${fixed(quantile(windowRejections, 0.9))}`,
    );
  });
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
