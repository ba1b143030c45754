import { pathToFileURL } from 'node:url';
import { attemptsPerRequest, mixedPhi, solveService } from '../src/model/index.js';
import { brentRoot } from '../src/model/numeric/brent.js';
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

const phi = mixedPhi(load.queue);
/** h(s) = s − φ(ρ(s)), the function both root finders below solve. */
function h(s: number): number {
  let attempts = 0;
  for (const c of load.classes) attempts += c.arrivalRate * attemptsPerRequest(s, c.retryLimit);
  return s - phi(attempts / load.capacity);
}

/** The peer: plain bisection on the same h to the same tolerance. */
function bisection(): number {
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
  const solveNs = medianNanosPerOp(
    () => {
      checksum += solveService(load).s;
    },
    { batch: 20_000 },
  );
  const brentNs = medianNanosPerOp(
    () => {
      checksum += brentRoot(h, 0, 1, 1e-12).root;
    },
    { batch: 20_000 },
  );
  const bisectionNs = medianNanosPerOp(
    () => {
      checksum += bisection();
    },
    { batch: 20_000 },
  );
  const s = solveService(load).s;
  if (!(Math.abs(s - bisection()) < 1e-11) || !(checksum > 0)) {
    throw new Error(`solvers disagree: ${s} vs ${bisection()}`);
  }
  report('Single-service fixed point (μ = 143, m = 50, γ = (50, 250), k = (5, 1), mixed)', [
    ['solveService (checks, Brent to 1e-12, report)', `${(solveNs / 1000).toFixed(2)} µs/solve`],
    ['root only: difftry brentRoot on h(s)', `${(brentNs / 1000).toFixed(2)} µs/solve`],
    ['root only, peer: plain bisection on h(s)', `${(bisectionNs / 1000).toFixed(2)} µs/solve`],
    ['ratio peer / brentRoot', `${(bisectionNs / brentNs).toFixed(2)}×`],
    ['s', s.toFixed(12)],
  ]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
