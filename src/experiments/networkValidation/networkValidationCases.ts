/**
 * The cases of the network validation (docs/validation-networks.*): hotelReservation (routing
 * form) at four loads under both Figure 5 retry configurations, 25 generated DAGs and 25 cyclic
 * networks, then deliberately harder cases — the bottleneck at ρ₀ = 1, short queues (m = 5),
 * short retry delays (mean 20 ms) and call-graph mode — with the run's settings. Fixed seeds: the
 * same code gives the same cases.
 */

import {
  builtinExample,
  generateCyclic,
  generateDgg,
  generateMuBench,
  type NetworkSpec,
  parseNetwork,
  scaleToBottleneck,
  toNetworkModel,
} from '../../config/index.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { nominalBottleneck } from '../../model/network/nominalLoads.js';
import { figure5Limits, specAtFigure5Point } from '../figure5/figure5Sweep.js';
import { withBottleneck } from './withBottleneck.js';

export const REPLICATIONS = 8;
export const DURATION = 150; // measured virtual seconds per replication
export const WARMUP = 50; // virtual seconds before the window
export const SEED = 2026;
export const LONG_DELAY_MS = 2000;
export const SHORT_DELAY_MS = 20;
export const TARGET = 0.02;
/** Queues of the main set: the generators draw m from {10, 20, 50, 100}; 10 is raised to 20. */
export const MIN_QUEUE = 20;
export const SMALL_QUEUE = 5;
/** Bottleneck loads of the main set: 25 values evenly from 0.7 to 2.5, permuted per group. */
export const RHO_LOW = 0.7;
export const RHO_HIGH = 2.5;
export const GROUP_SIZE = 25;

export type Group =
  | 'hotel'
  | 'dag'
  | 'cyclic'
  | 'near-1'
  | 'small-m'
  | 'short-delay'
  | 'calls'
  | 'hotel-calls'
  | 'calls-short';

export const GROUP_LABELS: Readonly<Record<Group, string>> = {
  hotel: 'hotelReservation, routing form',
  dag: 'generated DAGs (µBench, DGG), routing',
  cyclic: 'generated cyclic networks, routing',
  'near-1': 'harder: bottleneck at ρ₀ = 1',
  'small-m': 'harder: every queue m = 5',
  'short-delay': 'harder: retry delay mean 20 ms',
  calls: 'harder: generated call graphs',
  'hotel-calls': 'harder: hotelReservation, call-graph form',
  'calls-short': 'harder: call graphs, retry delay mean 20 ms',
};
export const MAIN_GROUPS: readonly Group[] = ['hotel', 'dag', 'cyclic'];

export interface Case {
  readonly group: Group;
  readonly id: string;
  readonly kind: string;
  readonly seed: number | undefined;
  readonly network: NetworkModel;
  /** The same network with the residual-time correction for `backoff` (short delays only). */
  readonly residualNetwork?: NetworkModel;
  readonly backoff: BackoffDescription;
  /** Nominal (loss-free, retry-free) load of the most loaded service, and its name. */
  readonly rho0: number;
  readonly bottleneck: string;
}

// ---------------------------------------------------------------------------------------------
// Building the cases.

const LONG: BackoffDescription = { kind: 'random', meanMs: LONG_DELAY_MS };
const SHORT: BackoffDescription = { kind: 'random', meanMs: SHORT_DELAY_MS };

/** The same spec with the residual-time correction under `backoff` at every service. */
function withResidual(spec: NetworkSpec, backoff: BackoffDescription): NetworkSpec {
  return {
    ...spec,
    backoff,
    classes: spec.classes.map((c) => ({ ...c, backoff: undefined })),
    services: spec.services.map((s) => ({ ...s, residual: true })),
  };
}

function makeCase(
  group: Group,
  id: string,
  kind: string,
  seed: number | undefined,
  network: NetworkModel,
  backoff: BackoffDescription,
  residualNetwork?: NetworkModel,
): Case {
  const { rho0, name } = nominalBottleneck(network);
  return {
    group,
    id,
    kind,
    seed,
    network,
    residualNetwork,
    backoff,
    rho0,
    bottleneck: name,
  };
}

const MUBENCH_SIZES = [6, 8, 10, 12, 15, 20] as const;
const DGG_SIZES = [4, 5, 6, 7] as const;
const CYCLIC_SIZES = [6, 8, 10, 12, 15, 20] as const;

/** The i-th bottleneck load of a group of 25, spread over [0.7, 2.5] by the permutation i ↦ a·i. */
function targetRho(i: number, multiplier: number): number {
  const slot = (i * multiplier) % GROUP_SIZE;
  return RHO_LOW + ((RHO_HIGH - RHO_LOW) * slot) / (GROUP_SIZE - 1);
}

interface Generated {
  readonly kind: 'mubench' | 'dgg' | 'cyclic';
  readonly seed: number;
  readonly spec: NetworkSpec;
  readonly rho0: number;
}

function dagSpec(i: number, form: 'routes' | 'calls' = 'routes'): Generated {
  const seed = 100 + i;
  const classes = i % 4 === 3 ? 3 : 2;
  if (i % 2 === 0) {
    const services = MUBENCH_SIZES[(i / 2) % MUBENCH_SIZES.length] as number;
    return {
      kind: 'mubench',
      seed,
      spec: generateMuBench({ services, classes, seed, form }),
      rho0: targetRho(i, 7),
    };
  }
  const services = DGG_SIZES[((i - 1) / 2) % DGG_SIZES.length] as number;
  return {
    kind: 'dgg',
    seed,
    spec: generateDgg({ services, classes, seed, form }),
    rho0: targetRho(i, 7),
  };
}

function cyclicSpec(i: number): Generated {
  const seed = 200 + i;
  const classes = i % 4 === 1 ? 3 : 2;
  const services = CYCLIC_SIZES[i % CYCLIC_SIZES.length] as number;
  const backEdges = 1 + (i % 3 === 0 ? 1 : 0);
  return {
    kind: 'cyclic',
    seed,
    spec: generateCyclic({ services, classes, seed, backEdges }),
    rho0: targetRho(i, 11),
  };
}

/** A hotelReservation example with retry limits, γ_low at the frontend and optionally every m. */
function hotelSpec(
  example: string,
  retries: Record<string, number>,
  gammaLow: number,
  queue?: number,
): NetworkSpec {
  const { fileName, text } = builtinExample(example);
  const spec = parseNetwork(text, fileName);
  return specAtFigure5Point(
    {
      ...spec,
      classes: spec.classes.map((c) => ({ ...c, retries: retries[c.name] ?? c.retries })),
      services: spec.services.map((s) => ({ ...s, queue: queue ?? s.queue, retries: undefined })),
    },
    gammaLow,
  );
}

function hotel(example: string, retries: Record<string, number>, gammaLow: number): NetworkModel {
  return toNetworkModel(hotelSpec(example, retries, gammaLow));
}

/** hotelReservation's γ_low: ρ₀ = (50 + γ_low) / 143 ≈ 0.70, 1.0, 1.40, 2.10. */
export const HOTEL_GAMMA_LOWS = [50, 93, 150, 250] as const;

/** Every case of the validation, in the order the report lists them. */
export function networkValidationCases(): Case[] {
  const cases: Case[] = [];
  /** Figure 5's two retry configurations, keyed `5-1` and `5-5` in the case names. */
  const HOTEL_LIMITS = figure5Limits().map((limit) => ({
    ...limit,
    key: limit.key.replace('/', '-'),
  }));
  for (const limit of HOTEL_LIMITS) {
    for (const gammaLow of HOTEL_GAMMA_LOWS) {
      const network = hotel('hotel', { ...limit.retries }, gammaLow);
      cases.push(
        makeCase(
          'hotel',
          `hotel k=${limit.key} γlow=${gammaLow}`,
          'hotel',
          undefined,
          network,
          LONG,
        ),
      );
    }
  }
  const dags = Array.from({ length: GROUP_SIZE }, (_, i) => dagSpec(i));
  const cyclics = Array.from({ length: GROUP_SIZE }, (_, i) => cyclicSpec(i));
  for (const g of [...dags, ...cyclics]) {
    const spec = scaleToBottleneck(g.spec, g.rho0, { minQueue: MIN_QUEUE });
    const group: Group = g.kind === 'cyclic' ? 'cyclic' : 'dag';
    cases.push(makeCase(group, `${g.kind}-${g.seed}`, g.kind, g.seed, toNetworkModel(spec), LONG));
  }

  // Harder cases, on the first networks of each main group (DAGs: two µBench, two DGG; cyclic: four).
  const hardBase = [
    dags[0],
    dags[1],
    dags[2],
    dags[3],
    cyclics[0],
    cyclics[1],
    cyclics[2],
    cyclics[3],
  ];
  for (const g of hardBase) {
    if (g === undefined) continue;
    const near = scaleToBottleneck(g.spec, 1, { minQueue: MIN_QUEUE });
    cases.push(
      makeCase('near-1', `${g.kind}-${g.seed} ρ₀=1`, g.kind, g.seed, toNetworkModel(near), LONG),
    );
    const small = scaleToBottleneck(g.spec, g.rho0, { queue: SMALL_QUEUE });
    cases.push(
      makeCase('small-m', `${g.kind}-${g.seed} m=5`, g.kind, g.seed, toNetworkModel(small), LONG),
    );
    const short = scaleToBottleneck(g.spec, g.rho0, { minQueue: MIN_QUEUE });
    cases.push(
      makeCase(
        'short-delay',
        `${g.kind}-${g.seed} 20 ms`,
        g.kind,
        g.seed,
        toNetworkModel(short),
        SHORT,
        toNetworkModel(withResidual(short, SHORT)),
      ),
    );
  }
  for (const gammaLow of [93, 250] as const) {
    const spec = hotelSpec('hotel', { high: 5, low: 1 }, gammaLow);
    cases.push(
      makeCase(
        'short-delay',
        `hotel k=5-1 γlow=${gammaLow} 20 ms`,
        'hotel',
        undefined,
        toNetworkModel(spec),
        SHORT,
        toNetworkModel(withResidual(spec, SHORT)),
      ),
    );
    const small = hotelSpec('hotel', { high: 5, low: 1 }, gammaLow, SMALL_QUEUE);
    cases.push(
      makeCase(
        'small-m',
        `hotel k=5-1 γlow=${gammaLow} m=5`,
        'hotel',
        undefined,
        toNetworkModel(small),
        LONG,
      ),
    );
  }
  /** The generated call graphs also run with short retry delays (the overloaded ones). */
  const CALLS_SHORT: readonly number[] = [1, 2, 3, 5];
  for (let i = 0; i < 8; i++) {
    const g = dagSpec(i, 'calls');
    const spec = scaleToBottleneck(g.spec, g.rho0, { minQueue: MIN_QUEUE });
    const network = toNetworkModel(spec);
    cases.push(makeCase('calls', `${g.kind}-${g.seed} calls`, g.kind, g.seed, network, LONG));
    if (CALLS_SHORT.includes(i)) {
      cases.push(
        makeCase('calls-short', `${g.kind}-${g.seed} calls 20 ms`, g.kind, g.seed, network, SHORT),
      );
    }
  }
  for (const gammaLow of [93, 150, 250] as const) {
    const network = hotel('hotel-calls', { high: 5, low: 1 }, gammaLow);
    cases.push(
      makeCase(
        'hotel-calls',
        `hotel-calls k=5-1 γlow=${gammaLow}`,
        'hotel',
        undefined,
        network,
        LONG,
      ),
    );
  }
  for (const [service, share] of [
    ['search', 0.6],
    ['profile', 0.99],
  ] as const) {
    const network = withBottleneck(hotel('hotel-calls', { high: 5, low: 1 }, 250), service, share);
    cases.push(
      makeCase(
        'hotel-calls',
        `hotel-calls k=5-1 γlow=250 bottleneck ${service}`,
        'hotel',
        undefined,
        network,
        LONG,
      ),
    );
    cases.push(
      makeCase(
        'calls-short',
        `hotel-calls k=5-1 γlow=250 bottleneck ${service} 20 ms`,
        'hotel',
        undefined,
        network,
        SHORT,
      ),
    );
  }

  return cases;
}
