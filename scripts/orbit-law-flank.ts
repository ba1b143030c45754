/**
 * The orbit law on the steep flank below a retry storm (docs/model.md, "The orbit law"): issue
 * 25's case — one service, μ = 120/s, m = 40, one class with k = 1 (two classes alike are one), a
 * 27 ms per-try timeout (3.2 mean service times), exponential backoff with mean 100 ms — at
 * nominal loads 0.33, 0.42 and 0.48: the mean-field law, the orbit law and the simulator, first
 * with the fixed timeout, then with an exponentially distributed one of the same mean (where
 * the orbit law's one approximation left is the orbit's entry time: the gap between the two
 * rows is the effect of a deterministic timeout).
 *
 * Run with `npx tsx scripts/orbit-law-flank.ts` (`-- --quick` for 6 runs a point). Fixed seeds:
 * the same code prints the same. About three minutes on two cores. Progress goes to stderr.
 */
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { orbitQueue } from '../src/model/queue/orbitQueue.js';
import { seededRandom } from '../src/model/random.js';
import { fixedTimeout, type TimeoutStrategy } from '../src/policy/timeouts/TimeoutStrategy.js';
import { replicateNetwork } from '../src/sim/network/replicateNetwork.js';

const MU = 120;
const QUEUE = 40;
const TIMEOUT_S = 0.027;
const BACKOFF_S = 0.1;
const LOADS = [0.33, 0.42, 0.48] as const;
const quick = process.argv.includes('--quick');
const RUNS = quick ? 6 : 24;
const RUN = { duration: 600, warmup: 30 };

function service(load: number): NetworkModel {
  return {
    classes: [{ name: 'users', retryLimit: 1, meanBackoffs: [BACKOFF_S] }],
    services: [
      {
        name: 'api',
        capacity: MU,
        queue: QUEUE,
        model: 'mm1m',
        arrivals: [load * MU],
        retryLimits: [1],
        routes: [],
        timeouts: [TIMEOUT_S],
      },
    ],
  };
}

/** An exponentially distributed per-try timeout of mean TIMEOUT_S, seeded per hop. */
function exponentialTimeouts(): () => TimeoutStrategy {
  let hop = 0;
  return () => {
    hop += 1;
    const random = seededRandom(2025, hop);
    return { next: () => -TIMEOUT_S * 1000 * Math.log(1 - random()), observe: () => {} };
  };
}

const rows: string[] = [];
for (const law of ['fixed', 'exponential'] as const) {
  for (const load of LOADS) {
    process.stderr.write(`orbit-law-flank: ${law} timeout, load ${load}\n`);
    const network = service(load);
    const meanField =
      law === 'fixed' ? analyzeNetwork(network).endToEnd.users?.rejection : Number.NaN;
    const started = performance.now();
    const orbit = orbitQueue({
      capacity: MU,
      queue: QUEUE,
      classes: [
        {
          arrivalRate: load * MU,
          retryLimit: 1,
          timeout: MU * TIMEOUT_S,
          timeoutLaw: law,
          meanBackoff: BACKOFF_S,
        },
      ],
    });
    const ms = performance.now() - started;
    const simulated = replicateNetwork(
      network,
      {
        ...RUN,
        seed: 17,
        backoff: { kind: 'random', meanMs: BACKOFF_S * 1000 },
        timeouts: law === 'fixed' ? () => fixedTimeout(TIMEOUT_S * 1000) : exponentialTimeouts(),
      },
      RUNS,
    ).endToEnd.users;
    const sim = simulated?.rejection ?? Number.NaN;
    const ci = simulated?.rejectionCi95 ?? Number.NaN;
    const R = orbit.classes[0]?.requestRejection ?? Number.NaN;
    rows.push(
      `| ${law} | ${load} | ${Number.isNaN(meanField ?? Number.NaN) ? '' : (meanField as number).toFixed(4)} | ${R.toFixed(4)} | ${sim.toFixed(4)} ± ${ci.toFixed(4)} | ${(R - sim).toFixed(4)} | ${ms.toFixed(0)} ms |`,
    );
  }
}
console.log(
  `Simulator: ${RUNS} runs of ${RUN.duration} s each (warm-up ${RUN.warmup} s), seed 17.\n`,
);
console.log(
  '| timeout | load | mean field | orbit law | simulated (95 %) | orbit − simulated | orbit law time |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
