import { pathToFileURL } from 'node:url';
import { attemptsPerRequest, mixedPhi, solveService } from '../src/model/index.js';
import { medianNanosPerOp, report } from './harness.js';

const load = {
  capacity: 143,
  queue: 50,
  model: 'mixed' as const,
  classes: [
    { arrivalRate: 50, retryLimit: 5 },
    { arrivalRate: 250, retryLimit: 1 },
  ],
};

/** The peer: plain bisection on the same h(s) = s − φ(ρ(s)) to the same tolerance. */
function bisectionSolve(): number {
  const phi = mixedPhi(load.queue);
  const h = (s: number) => {
    let attempts = 0;
    for (const c of load.classes) attempts += c.arrivalRate * attemptsPerRequest(s, c.retryLimit);
    return s - phi(attempts / load.capacity);
  };
  let lo = 0;
  let hi = 1;
  while (hi - lo > 1e-12) {
    const mid = (lo + hi) / 2;
    if (h(mid) > 0) hi = mid;
    else lo = mid;
  }
  return (lo + hi) / 2;
}

/** Fixed-point solve time of the single-service model (two classes, k = (5, 1)). */
export async function run(): Promise<void> {
  let checksum = 0;
  const brentNs = medianNanosPerOp(
    () => {
      checksum += solveService(load).s;
    },
    { batch: 20_000 },
  );
  const bisectionNs = medianNanosPerOp(
    () => {
      checksum += bisectionSolve();
    },
    { batch: 20_000 },
  );
  const s = solveService(load).s;
  if (!(Math.abs(s - bisectionSolve()) < 1e-11) || !(checksum > 0)) {
    throw new Error(`solvers disagree: ${s} vs ${bisectionSolve()}`);
  }
  report('Single-service fixed point (μ = 143, m = 50, γ = (50, 250), k = (5, 1), mixed)', [
    ['difftry solveService (Brent, 1e-12)', `${(brentNs / 1000).toFixed(2)} µs/solve`],
    ['peer: plain bisection to 1e-12', `${(bisectionNs / 1000).toFixed(2)} µs/solve`],
    ['ratio peer / difftry', `${(bisectionNs / brentNs).toFixed(2)}×`],
    ['s', s.toFixed(12)],
  ]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
