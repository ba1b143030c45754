/**
 * Call-graph solve times (issue targets: a 1,000-service generated call graph under 50 ms, 10,000
 * services under 1 s, a 5,000-deep chain under 1 s, all converged), each beside a named peer in
 * the same run:
 * - the previous solver (bench/peers/gaussSeidelCalls.ts: Gauss–Seidel with a full network
 *   evaluation per Brent step), where it finishes in reasonable time;
 * - plain sweeps of the current solver with no acceleration, damping or continuation
 *   (`relaxCalls(…, { accelerate: false })`), on every case.
 * Every result is checked: converged, and the same state as the peer's where both converge.
 */
import { pathToFileURL } from 'node:url';
import { chainNetwork } from '../scripts/lib/callCases.js';
import { analyzeNetwork, type NetworkModel, solveCalls } from '../src/model/index.js';
import { compileCallPlan } from '../src/model/network/callPlan.js';
import { CallSweep } from '../src/model/network/callSweep.js';
import { relaxCalls } from '../src/model/network/relaxCalls.js';
import {
  builtinExample,
  generateMuBench,
  parseNetwork,
  toNetworkModel,
} from '../src/spec/index.js';
import { medianMillis, report } from './harness.js';
import { gaussSeidelCalls } from './peers/gaussSeidelCalls.js';

/** The issue's chain: μ = 1000/s and m = 10 at every hop, γ = (50, 250) at the top, k = (5, 1). */
const chain = (length: number): NetworkModel => chainNetwork(length, 1, 10);

const unit = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(1)} ms`);

function plainSweeps(network: NetworkModel): {
  converged: boolean;
  iterations: number;
  s: Float64Array;
} {
  const sweep = new CallSweep(compileCallPlan(network));
  const relaxed = relaxCalls(sweep, 1, { accelerate: false, maxIterations: 5000 });
  return { converged: relaxed.converged, iterations: relaxed.iterations, s: sweep.s };
}

function largestDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let most = 0;
  for (let i = 0; i < a.length; i++)
    most = Math.max(most, Math.abs((a[i] as number) - (b[i] as number)));
  return most;
}

export async function run(): Promise<void> {
  const hotel = (() => {
    const { fileName, text } = builtinExample('hotel-calls');
    return toNetworkModel(parseNetwork(text, fileName));
  })();
  const cases: { label: string; network: NetworkModel; target?: string; previous: boolean }[] = [
    { label: 'hotelReservation, call-graph form (8 services)', network: hotel, previous: true },
    { label: 'chain of 40 services, light load', network: chain(40), previous: true },
    {
      label: 'generated µBench call graph, 100 services',
      network: toNetworkModel(
        generateMuBench({ services: 100, classes: 2, seed: 1, form: 'calls' }),
      ),
      previous: true,
    },
    {
      label: 'generated µBench call graph, 1,000 services',
      network: toNetworkModel(
        generateMuBench({ services: 1000, classes: 2, seed: 1, form: 'calls' }),
      ),
      target: '50 ms',
      previous: false,
    },
    {
      label: 'generated µBench call graph, 10,000 services',
      network: toNetworkModel(
        generateMuBench({ services: 10_000, classes: 2, seed: 1, form: 'calls' }),
      ),
      target: '1 s',
      previous: false,
    },
    {
      label: 'chain of 5,000 services, light load',
      network: chain(5000),
      target: '1 s',
      previous: false,
    },
  ];
  const lines: [string, string][] = [];
  for (const { label, network, target, previous } of cases) {
    const ours = solveCalls(network);
    if (!ours.converged) throw new Error(`${label}: did not converge`);
    const oursMs = medianMillis(() => solveCalls(network), 3, 500);
    lines.push([
      label,
      `${unit(oursMs)} (${ours.iterations} sweeps${target ? `; target < ${target}` : ''})`,
    ]);
    const plain = plainSweeps(network);
    const plainMs = medianMillis(() => plainSweeps(network), 1, 300);
    const plainNote = plain.converged
      ? `same state within ${largestDifference(plain.s, ours.s).toExponential(0)}`
      : 'did NOT converge in 5,000 sweeps';
    lines.push([
      '  peer: plain sweeps',
      `${unit(plainMs)} (${plain.iterations} sweeps, ${plainNote})   ratio peer/difftry ${(plainMs / oursMs).toFixed(1)}×`,
    ]);
    if (previous) {
      const t0 = performance.now();
      const old = gaussSeidelCalls(network);
      const oldMs = performance.now() - t0;
      const oldNote = old.converged
        ? `same state within ${largestDifference(old.s, ours.s).toExponential(0)}`
        : `did NOT converge in ${old.iterations} sweeps`;
      lines.push([
        '  peer: previous solver (6e26a09)',
        `${unit(oldMs)} (one run; ${oldNote})   ratio peer/difftry ${(oldMs / oursMs).toFixed(1)}×`,
      ]);
    }
  }
  // The whole analysis: both starts (raised from zero, and from saturation) and the report.
  const thousand = cases[3]?.network as NetworkModel;
  const analysisMs = medianMillis(() => analyzeNetwork(thousand), 3, 500);
  lines.push([
    'analyzeNetwork, 1,000 services (healthy and storm states, report)',
    `${unit(analysisMs)} (${analyzeNetwork(thousand).equilibria.length} equilibrium found)`,
  ]);
  report('Call-graph solve time (median; solveCalls from idle)', lines);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
