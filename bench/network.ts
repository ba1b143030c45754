/**
 * Network solve times: hotelReservation, a 1,000-service random DAG and a 1,000-service cyclic
 * network, each beside a named peer measured in the same run: plain Jacobi iteration of the same
 * flow equations from λin = γ (every service re-solved from the previous sweep's λout, as
 * docs/design.md's fixed-point iteration reads literally), using the same single-service solver.
 */

import { pathToFileURL } from 'node:url';
import {
  builtinExample,
  generateCyclic,
  generateMuBench,
  parseNetwork,
  toNetworkModel,
} from '../src/config/index.js';
import { analyzeNetwork, type NetworkModel, solveService } from '../src/model/index.js';
import { routingRows } from '../src/model/network/structure.js';
import { medianMillis, report } from './harness.js';

/** The peer: Jacobi sweeps of λin = γ + Fᵀ λout until nothing moves by 1e-12 relative. */
function jacobi(network: NetworkModel): { lambdaIn: number[][]; sweeps: number } {
  const n = network.services.length;
  const classes = network.classes.length;
  const rows = network.classes.map((_, p) => routingRows(network, p));
  const gamma = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  let lambdaIn = gamma.map((r) => [...r]);
  for (let sweep = 1; sweep <= 100_000; sweep++) {
    const lambdaOut = network.services.map((service, i) => {
      const solved = solveService({
        capacity: service.capacity,
        queue: service.queue,
        model: service.model,
        classes: network.classes.map((_, p) => ({
          arrivalRate: lambdaIn[i]?.[p] ?? 0,
          retryLimit: service.retryLimits[p] ?? 0,
          residualAlphas: service.residualAlphas?.[p],
        })),
      });
      return solved.classes.map((c) => c.goodput);
    });
    const next = gamma.map((r) => [...r]);
    rows.forEach((classRows, p) => {
      classRows.forEach((row, from) => {
        for (const e of row)
          (next[e.to] as number[])[p] += ((lambdaOut[from] as number[])[p] as number) * e.p;
      });
    });
    let change = 0;
    for (let i = 0; i < n; i++) {
      for (let p = 0; p < classes; p++) {
        const a = next[i]?.[p] ?? 0;
        const b = lambdaIn[i]?.[p] ?? 0;
        change = Math.max(change, Math.abs(a - b) / Math.max(Math.abs(a), 1e-300));
      }
    }
    lambdaIn = next;
    if (change <= 1e-12) return { lambdaIn, sweeps: sweep };
  }
  throw new Error('Jacobi did not converge');
}

function fromExample(name: string): NetworkModel {
  const { fileName, text } = builtinExample(name);
  return toNetworkModel(parseNetwork(text, fileName));
}

/** Solve times of the network analysis against Jacobi iteration. */
export async function run(): Promise<void> {
  const cases: [string, NetworkModel, string][] = [
    ['hotelReservation (8 services, routing)', fromExample('hotel'), '50 µs'],
    [
      'random DAG, 1,000 services (µBench-like)',
      toNetworkModel(generateMuBench({ services: 1000, classes: 2, seed: 1 })),
      '50 ms',
    ],
    [
      'cyclic, 1,000 services',
      toNetworkModel(generateCyclic({ services: 1000, classes: 2, seed: 1 })),
      '50 ms',
    ],
  ];
  const lines: [string, string][] = [];
  for (const [label, network, target] of cases) {
    const ours = analyzeNetwork(network);
    if (!ours.converged) throw new Error(`${label}: did not converge`);
    const peer = jacobi(network);
    // Check the two agree, so neither result can be optimised away or wrong.
    let worst = 0;
    network.services.forEach((service, i) => {
      network.classes.forEach((c, p) => {
        const a = ours.services[service.name]?.classes[c.name]?.in ?? Number.NaN;
        const b = peer.lambdaIn[i]?.[p] ?? Number.NaN;
        worst = Math.max(worst, Math.abs(a - b) / Math.max(Math.abs(b), 1e-9));
      });
    });
    if (!(worst < 1e-8)) throw new Error(`${label}: solvers disagree by ${worst}`);
    const oursMs = medianMillis(() => analyzeNetwork(network), 5, 1000);
    const peerMs = medianMillis(() => jacobi(network), 3, 1000);
    const unit = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
    lines.push([
      `${label}`,
      `${unit(oursMs)} (${ours.iterations} sweep${ours.iterations === 1 ? '' : 's'}; target < ${target})`,
    ]);
    lines.push([
      `  peer: Jacobi iteration`,
      `${unit(peerMs)} (${peer.sweeps} sweeps)   ratio peer/difftry ${(peerMs / oursMs).toFixed(1)}×`,
    ]);
  }
  report(
    'Network analysis solve time (median; analyzeNetwork includes structure checks and the report)',
    lines,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
