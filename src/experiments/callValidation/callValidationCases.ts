/**
 * The cases of the call-graph validation (scripts/validate-calls.ts, docs/validation-calls.md):
 * the 50 generated call graphs of callCases.ts and chains of 40 and 300 services at light, heavy
 * and overloaded loads, each with how long it is simulated and its nominal bottleneck; and the
 * target the analysis is held to.
 */
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { nominalBottleneck, nominalLoads } from '../../model/network/nominalLoads.js';
import { chainNetwork, FAMILY_SIZE, GENERATED_RUN, generatedCallGraph } from './callCases.js';

/** The largest |analysis − simulation| of a class figure, end to end, that counts as agreement. */
export const TARGET = 0.03;
/** Chains: fewer, shorter runs (a 300-chain at load 3 is half a million events per second). */
export const CHAIN_RUN = { replications: 4, warmup: 40, duration: 40, window: 10 } as const;

/** The groups of cases: the two families of generated call graphs, and the chains. */
export type Group = 'mubench' | 'dgg' | 'chain';
/** Each group as the page names it. */
export const GROUP_LABELS: Readonly<Record<Group, string>> = {
  mubench: 'µBench-like call graphs (`generateMuBench`, form calls)',
  dgg: 'composed DGG-like call graphs (`composeDgg`)',
  chain: 'chains (μ = 1000/s, k = (5, 1))',
};
/** The groups, in the page's order. */
export const GROUPS = Object.keys(GROUP_LABELS) as Group[];

/** One network of the validation. */
export interface Case {
  readonly group: Group;
  readonly id: string;
  readonly seed: number | undefined;
  readonly network: NetworkModel;
  readonly run: typeof GENERATED_RUN | typeof CHAIN_RUN;
  /** Nominal load of the most loaded service (no rejection, no retries), and its name. */
  readonly rho0: number;
  readonly bottleneck: string;
  /** Services with nominal load above 1. */
  readonly overloaded: number;
  /** What the case is, in words (chains). */
  readonly note: string;
}

function makeCase(
  group: Group,
  id: string,
  seed: number | undefined,
  network: NetworkModel,
  run: Case['run'],
  note = '',
): Case {
  const loads = nominalLoads(network);
  const { rho0, name } = nominalBottleneck(network, loads);
  return {
    group,
    id,
    seed,
    network,
    run,
    rho0,
    bottleneck: name,
    overloaded: loads.filter((rho) => rho > 1).length,
    note,
  };
}

/** The chains: light (load 1, ρ 0.3 a hop), heavy (ρ near 1 a hop) and overloaded (ρ₀ = 1.2). */
const CHAINS = [
  { length: 40, queue: 10, load: 1, note: 'light' },
  { length: 40, queue: 10, load: 3, note: 'heavy' },
  { length: 40, queue: 20, load: 3.2, note: 'heavy' },
  { length: 40, queue: 10, load: 4, note: 'overloaded' },
  { length: 300, queue: 10, load: 1, note: 'light' },
  { length: 300, queue: 10, load: 3, note: 'heavy' },
  { length: 300, queue: 10, load: 4, note: 'overloaded' },
] as const;

/**
 * Every case, in the validation's order, which sets each run's substream: the generated call
 * graphs (`generatedCallGraph` 0–49), then the chains.
 */
export function callValidationCases(): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < 2 * FAMILY_SIZE; i++) {
    const g = generatedCallGraph(i);
    cases.push(makeCase(g.family, g.id, g.seed, g.network, GENERATED_RUN));
  }
  for (const c of CHAINS) {
    cases.push(
      makeCase(
        'chain',
        `chain-${c.length} m=${c.queue} load ${c.load}`,
        undefined,
        chainNetwork(c.length, c.load, c.queue),
        CHAIN_RUN,
        c.note,
      ),
    );
  }
  return cases;
}
