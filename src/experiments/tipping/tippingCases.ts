/**
 * The bistable services issue 25's tipping and recovery checks run on (scripts/tipping-recovery.ts,
 * scripts/window-readings.ts): examples/metastable-classes.yaml and services drawn from a seeded
 * generator (μ 50–200/s, m 10–80, per-try timeout 2–5/μ, k_high 2–5, k_low 1–k_high, 10–30 % high
 * class), kept where the mean-field law finds them bistable with a recovery load of at least 0.1 μ.
 */

import { loadNetworkFile, parseNetwork, toNetworkModel } from '../../config/index.js';
import type { NetworkSpec } from '../../config/schema.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { sweepEquilibria } from '../../model/network/sweepEquilibria.js';
import { seededRandom } from '../../model/random.js';
import { totalRate } from '../metastability/metastabilityAnalysis.js';

/** The seed the services are drawn with. */
const DRAW_SEED = 25;

export interface Case {
  readonly name: string;
  readonly spec: NetworkSpec;
  readonly summary: string;
}

/** The network with every service read as M/M/1/m, the queue the orbit law solves. */
export function asMm1m(network: NetworkModel): NetworkModel {
  return { ...network, services: network.services.map((s) => ({ ...s, model: 'mm1m' as const })) };
}

/** The network with every external rate scaled so that they add up to `rate`. */
export function atRate(network: NetworkModel, rate: number): NetworkModel {
  const factor = rate / totalRate(network);
  return {
    ...network,
    services: network.services.map((s) => ({ ...s, arrivals: s.arrivals.map((g) => g * factor) })),
  };
}

/** The mean-field law's tipping and recovery total rates, pinned by `sweepEquilibria`. */
export function meanField(network: NetworkModel, capacity: number) {
  const values = Array.from({ length: 75 }, (_, i) => capacity * (0.02 + (1.48 * i) / 74));
  const swept = sweepEquilibria((rate) => atRate(network, rate), values, { loadRises: true });
  return { tipping: swept.tipping, recovery: swept.recovery };
}

/** One network file for a drawn service. */
function drawnCase(index: number, random: () => number): Case {
  const mu = Math.round(50 + 150 * random());
  const m = 10 + Math.floor(71 * random());
  const tMu = 2 + 3 * random();
  const timeoutMs = Math.round((1000 * tMu) / mu);
  const kHigh = 2 + Math.floor(4 * random());
  const kLow = 1 + Math.floor(kHigh * random());
  const share = 0.1 + 0.2 * random();
  const rate = 0.3 * mu;
  const high = Math.round(rate * share * 100) / 100;
  const low = Math.round((rate - high) * 100) / 100;
  const text = [
    'classes:',
    `  - { name: high, retries: ${kHigh}, timeoutMs: ${timeoutMs} }`,
    `  - { name: low, retries: ${kLow}, timeoutMs: ${timeoutMs} }`,
    'services:',
    '  - name: api',
    `    capacity: ${mu}`,
    `    queue: ${m}`,
    `    arrivals: { high: ${high}, low: ${low} }`,
    '',
  ].join('\n');
  return {
    name: `drawn-${index}`,
    spec: parseNetwork(text, `drawn-${index}.yaml`),
    summary: `μ = ${mu}, m = ${m}, T = ${timeoutMs} ms (${((timeoutMs * mu) / 1000).toFixed(2)}/μ), k = (${kHigh}, ${kLow}), high ${(100 * share).toFixed(0)} %`,
  };
}

/** metastable-classes.yaml, then the first drawn services the mean-field law finds bistable. */
export async function tippingCases(count: number): Promise<Case[]> {
  const example = await loadNetworkFile(
    new URL('../../../examples/metastable-classes.yaml', import.meta.url).pathname,
  );
  const found: Case[] = [
    {
      name: 'metastable-classes.yaml',
      spec: example,
      summary: 'μ = 100, m = 50, T = 100 ms (10/μ), k = (5, 5), high 12.5 %',
    },
  ];
  const random = seededRandom(DRAW_SEED);
  for (let draw = 0; found.length < count && draw < 200; draw++) {
    const candidate = drawnCase(draw, random);
    const network = toNetworkModel(candidate.spec);
    const capacity = network.services[0]?.capacity ?? 1;
    const mf = meanField(network, capacity);
    if (mf.tipping === undefined || mf.recovery === undefined) continue;
    if (mf.recovery < 0.1 * capacity) continue;
    found.push(candidate);
  }
  return found;
}
