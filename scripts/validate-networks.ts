/**
 * Re-creates docs/validation-networks.md and docs/validation-networks.csv: the network analysis
 * (`analyzeNetwork`) against the discrete-event network simulator (`replicateNetwork`), per class
 * end to end, on hotelReservation (routing form) and 50 generated networks (25 DAGs, µBench- and
 * DGG-like, and 25 cyclic), then on deliberately harder cases: the bottleneck at ρ₀ = 1, short
 * queues (m = 5), short retry delays (mean 20 ms) and call-graph mode.
 *
 * Run with `npm run validate:networks` (`npx tsx scripts/validate-networks.ts`). Fixed seeds: the
 * same code gives the same files. Progress goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { figure5Limits, specAtFigure5Point } from '../src/experiments/figure5/figure5Sweep.js';
import type { BackoffDescription } from '../src/model/backoff/BackoffDescription.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import type { NetworkReport } from '../src/model/network/NetworkReport.js';
import { nominalLoads } from '../src/model/network/nominalLoads.js';
import type { ModelName } from '../src/model/phi/Phi.js';
import { fixed, plusMinus } from '../src/report/numberFormat.js';
import { replicateNetwork } from '../src/sim/network/replicateNetwork.js';
import {
  builtinExample,
  generateCyclic,
  generateDgg,
  generateMuBench,
  type NetworkSpec,
  parseNetwork,
  scaleToBottleneck,
  toNetworkModel,
} from '../src/spec/index.js';
import { withBottleneck } from './lib/hotel.js';

// ---------------------------------------------------------------------------------------------
// Settings.

const REPLICATIONS = 8;
const DURATION = 150; // measured virtual seconds per replication
const WARMUP = 50; // virtual seconds before the window
const SEED = 2026;
const LONG_DELAY_MS = 2000;
const SHORT_DELAY_MS = 20;
const TARGET = 0.02;
/** Queues of the main set: the generators draw m from {10, 20, 50, 100}; 10 is raised to 20. */
const MIN_QUEUE = 20;
const SMALL_QUEUE = 5;
/** Bottleneck loads of the main set: 25 values evenly from 0.7 to 2.5, permuted per group. */
const RHO_LOW = 0.7;
const RHO_HIGH = 2.5;
const GROUP_SIZE = 25;

type Group =
  | 'hotel'
  | 'dag'
  | 'cyclic'
  | 'near-1'
  | 'small-m'
  | 'short-delay'
  | 'calls'
  | 'hotel-calls'
  | 'calls-short';

const GROUP_LABELS: Readonly<Record<Group, string>> = {
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
const MAIN_GROUPS: readonly Group[] = ['hotel', 'dag', 'cyclic'];

interface Case {
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

interface Row {
  readonly c: Case;
  readonly mode: 'routing' | 'calls';
  readonly cls: string;
  readonly k: number;
  readonly pred: number;
  /** The analysis with φ = mm1m at every service. */
  readonly predMm1m: number;
  /** The analysis with the residual-time correction (short-delay cases), else NaN. */
  readonly predResidual: number;
  readonly sim: number;
  readonly simCi95: number;
  readonly error: number;
  /** The analysis's ρ (attempts / μ) at the bottleneck. */
  readonly rhoBottleneck: number;
  readonly mMin: number;
  readonly services: number;
  readonly overloaded: number;
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
  const loads = nominalLoads(network);
  const at = loads.indexOf(Math.max(...loads));
  return {
    group,
    id,
    kind,
    seed,
    network,
    residualNetwork,
    backoff,
    rho0: loads[at] ?? Number.NaN,
    bottleneck: network.services[at]?.name ?? '?',
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

const cases: Case[] = [];
const HOTEL_GAMMA_LOWS = [50, 93, 150, 250] as const; // ρ₀ = (50 + γ_low) / 143 ≈ 0.70, 1.0, 1.40, 2.10
/** Figure 5's two retry configurations, keyed `5-1` and `5-5` in the case names. */
const HOTEL_LIMITS = figure5Limits().map((limit) => ({
  ...limit,
  key: limit.key.replace('/', '-'),
}));
for (const limit of HOTEL_LIMITS) {
  for (const gammaLow of HOTEL_GAMMA_LOWS) {
    const network = hotel('hotel', { ...limit.retries }, gammaLow);
    cases.push(
      makeCase('hotel', `hotel k=${limit.key} γlow=${gammaLow}`, 'hotel', undefined, network, LONG),
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

// ---------------------------------------------------------------------------------------------
// Running them.

const withModel = (network: NetworkModel, model: ModelName): NetworkModel => ({
  ...network,
  services: network.services.map((s) => ({ ...s, model })),
});

function analyse(network: NetworkModel, id: string): NetworkReport {
  const report = analyzeNetwork(network);
  if (!report.converged) process.stderr.write(`warning: analysis did not converge (${id})\n`);
  return report;
}

const started = performance.now();
const rows: Row[] = [];
let stream = 0;
let events = 0;
cases.forEach((c, index) => {
  const t0 = performance.now();
  const predicted = analyse(c.network, c.id);
  const mm1m = analyse(withModel(c.network, 'mm1m'), c.id);
  const residual = c.residualNetwork === undefined ? undefined : analyse(c.residualNetwork, c.id);
  const simulated = replicateNetwork(
    c.network,
    { duration: DURATION, warmup: WARMUP, seed: SEED, stream, backoff: c.backoff },
    REPLICATIONS,
  );
  stream += REPLICATIONS;
  events += simulated.events;
  const bottleneck = predicted.services[c.bottleneck];
  const overloaded = nominalLoads(c.network).filter((rho) => rho > 1).length;
  for (const [p, cls] of c.network.classes.entries()) {
    const pred = predicted.endToEnd[cls.name]?.rejection ?? Number.NaN;
    const sim = simulated.endToEnd[cls.name]?.rejection ?? Number.NaN;
    rows.push({
      c,
      mode: predicted.mode,
      cls: cls.name,
      k: c.network.services[0]?.retryLimits[p] ?? cls.retryLimit,
      pred,
      predMm1m: mm1m.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predResidual: residual?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      sim,
      simCi95: simulated.endToEnd[cls.name]?.rejectionCi95 ?? Number.NaN,
      error: Math.abs(pred - sim),
      rhoBottleneck: bottleneck?.rho ?? Number.NaN,
      mMin: Math.min(...c.network.services.map((s) => s.queue)),
      services: c.network.services.length,
      overloaded,
    });
  }
  const worst = Math.max(...rows.filter((r) => r.c === c).map((r) => r.error));
  process.stderr.write(
    `[${index + 1}/${cases.length}] ${c.group} ${c.id}: ρ₀ = ${c.rho0.toFixed(2)}, ` +
      `largest error ${worst.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
  );
});
const seconds = (performance.now() - started) / 1000;

// ---------------------------------------------------------------------------------------------
// Summaries.

const fmt = (x: number, d = 4) => fixed(x, d);
const pm = (x: number, h: number) => plusMinus(x, h, 4);
const within = (r: Row) => r.error <= TARGET;
const rowsOf = (group: Group) => rows.filter((r) => r.c.group === group);
const casesOf = (group: Group) => cases.filter((c) => c.group === group);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const max = (xs: readonly number[]) => Math.max(...xs);

interface Summary {
  readonly cases: number;
  readonly casesWithin: number;
  readonly figures: number;
  readonly figuresWithin: number;
  readonly maxError: number;
  readonly meanError: number;
  readonly maxCi95: number;
  readonly worst: Row | undefined;
}

function summarise(selected: readonly Row[]): Summary {
  const byCase = new Map<Case, Row[]>();
  for (const r of selected) byCase.set(r.c, [...(byCase.get(r.c) ?? []), r]);
  const errors = selected.map((r) => r.error);
  const worst = [...selected].sort((a, b) => b.error - a.error)[0];
  return {
    cases: byCase.size,
    casesWithin: [...byCase.values()].filter((list) => list.every(within)).length,
    figures: selected.length,
    figuresWithin: selected.filter(within).length,
    maxError: max(errors),
    meanError: mean(errors),
    maxCi95: max(selected.map((r) => r.simCi95).filter(Number.isFinite)),
    worst,
  };
}

const GROUPS = Object.keys(GROUP_LABELS) as Group[];
const summaries = new Map(GROUPS.map((g) => [g, summarise(rowsOf(g))]));
const generated = rows.filter((r) => r.c.group === 'dag' || r.c.group === 'cyclic');
const generatedSummary = summarise(generated);
const mainSummary = summarise(rows.filter((r) => MAIN_GROUPS.includes(r.c.group)));

// ---------------------------------------------------------------------------------------------
// CSV: every figure.

const csvNumber = (x: number) => (Number.isFinite(x) ? String(x) : 'n/a');
const csv = [
  [
    'group',
    'case',
    'kind',
    'seed',
    'mode',
    'services',
    'overloadedServices',
    'minQueue',
    'retryDelayMeanMs',
    'bottleneck',
    'rho0',
    'rhoBottleneckAnalysis',
    'class',
    'k',
    'analysis',
    'analysisMm1m',
    'analysisResidual',
    'simulation',
    'simulationCi95',
    'absError',
    'within002',
  ].join(','),
  ...rows.map((r) =>
    [
      r.c.group,
      `"${r.c.id}"`,
      r.c.kind,
      r.c.seed ?? '',
      r.mode,
      r.services,
      r.overloaded,
      r.mMin,
      r.c.backoff.kind === 'random' ? r.c.backoff.meanMs : '',
      r.c.bottleneck,
      csvNumber(r.c.rho0),
      csvNumber(r.rhoBottleneck),
      r.cls,
      r.k,
      csvNumber(r.pred),
      csvNumber(r.predMm1m),
      csvNumber(r.predResidual),
      csvNumber(r.sim),
      csvNumber(r.simCi95),
      csvNumber(r.error),
      within(r) ? 'yes' : 'no',
    ].join(','),
  ),
];
writeFileSync(new URL('../docs/validation-networks.csv', import.meta.url), `${csv.join('\n')}\n`);

// ---------------------------------------------------------------------------------------------
// Markdown.

const md: string[] = [];
const delayOf = (c: Case) => (c.backoff.kind === 'random' ? `${c.backoff.meanMs} ms` : '?');
md.push(
  '# Network analysis against simulation',
  '',
  'Generated by `npm run validate:networks` (scripts/validate-networks.ts); do not edit by hand. ' +
    'Every figure is also in [validation-networks.csv](validation-networks.csv). ' +
    'See [validation.md](validation.md) for what they show.',
  '',
  '## Setup',
  '',
  '- **Analysis**: `analyzeNetwork` with the φ law the network file names (`mixed` for every ' +
    'network here). The harder groups also show the analysis with `mm1m` at every service and, ' +
    'for short retry delays in routing mode, with the residual-time correction (`residual: true`, ' +
    'α from the exponential service time and the 20 ms random delay).',
  `- **Simulation**: \`replicateNetwork\`, ${REPLICATIONS} replications × ${DURATION} s virtual ` +
    `(warm-up ${WARMUP} s), seed ${SEED} with a fresh substream per replication; exponential ` +
    `service; retry delay random (exponential) with mean ${LONG_DELAY_MS} ms unless the group ` +
    `says ${SHORT_DELAY_MS} ms. Each simulated figure is the mean over replications ± its 95 % ` +
    'half-width.',
  '- **Figure compared**: per-class end-to-end rejection; error = |analysis − simulation|; ' +
    `target ${TARGET}.`,
  '- **hotelReservation**: `examples/hotel.yaml` (routing form), γ_high = 50, ' +
    `γ_low ∈ {${HOTEL_GAMMA_LOWS.join(', ')}} (frontend ρ₀ = ${HOTEL_GAMMA_LOWS.map((g) => ((50 + g) / 143).toFixed(2)).join(', ')}), ` +
    'k = (5, 1) and (5, 5), m = 50.',
  `- **Generated networks** (\`src/spec/generators\`, 2 classes k = (5, 1), every fourth network 3 ` +
    'classes k = (5, 3, 1)): 25 DAGs alternating `generateMuBench` (6–20 services, seeds 100, 102, ' +
    '…) and `generateDgg` (4–7 services, seeds 101, 103, …), and 25 `generateCyclic` networks ' +
    '(6–20 services, 1–2 back edges, seeds 200–224). Queues: the generators draw m from ' +
    `{10, 20, 50, 100}; 10 is raised to ${MIN_QUEUE}. Load: all external arrivals are scaled so ` +
    'that the most loaded service has nominal load ρ₀ (external flow with no rejection and no ' +
    `retries, over μ) equal to a target; the 25 targets of each group run evenly from ${RHO_LOW} ` +
    `to ${RHO_HIGH}. Other services keep the generator's relative loads, so several are often ` +
    'overloaded at once.',
  '- **Harder cases**: the first four DAGs and first four cyclic networks again, (a) scaled to ' +
    `ρ₀ = 1, (b) with every m = ${SMALL_QUEUE}, (c) with ${SHORT_DELAY_MS} ms retry delays, plus ` +
    'hotelReservation at γ_low = 93 and 250 with (b) and (c); call-graph mode: the first eight DAGs ' +
    'generated in `calls` form (same seeds, loads and queues), the `hotel-calls` example at ' +
    'γ_low = 93, 150, 250 and with the bottleneck moved below the frontend (search at 0.6 × 143, ' +
    'profile at 0.99 × 143, frontend μ = 1000: nested retries), and some of them with ' +
    `${SHORT_DELAY_MS} ms delays.`,
  '- Columns: ρ₀ is the nominal load of the bottleneck (named); "ρ an." is the analysis\'s ' +
    'offered load there, retries included (Σ attempts / μ); "over" counts services with ρ₀ > 1.',
  '',
  '## Summary',
  '',
  `**Routing mode, m ≥ ${MIN_QUEUE}, ${LONG_DELAY_MS} ms retry delays: ` +
    `${generatedSummary.casesWithin} of ` +
    `${generatedSummary.cases} generated networks have every class within ${TARGET}` +
    ` (${generatedSummary.figuresWithin} of ${generatedSummary.figures} class figures); largest ` +
    `error ${fmt(generatedSummary.maxError)}, mean ${fmt(generatedSummary.meanError)}. ` +
    `hotelReservation: ${summaries.get('hotel')?.figuresWithin} of ` +
    `${summaries.get('hotel')?.figures} figures within, largest error ` +
    `${fmt(summaries.get('hotel')?.maxError ?? Number.NaN)}.**`,
  '',
  '| group | cases | all classes within 0.02 | class figures within 0.02 | max error | mean error | largest 95 % half-width | worst case (class) |',
  '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | :--- |',
);
for (const g of GROUPS) {
  const s = summaries.get(g);
  if (s === undefined) continue;
  md.push(
    `| ${GROUP_LABELS[g]} | ${s.cases} | ${s.casesWithin} | ${s.figuresWithin} / ${s.figures} | ${fmt(s.maxError)} | ${fmt(s.meanError)} | ${fmt(s.maxCi95)} | ${s.worst ? `${s.worst.c.id} (${s.worst.cls})` : 'n/a'} |`,
  );
}
md.push('');

// Error against the bottleneck load, main groups.
const BANDS = [
  { label: 'ρ₀ < 0.95', test: (rho: number) => rho < 0.95 },
  { label: '0.95 ≤ ρ₀ ≤ 1.05', test: (rho: number) => rho >= 0.95 && rho <= 1.05 },
  { label: '1.05 < ρ₀ ≤ 1.5', test: (rho: number) => rho > 1.05 && rho <= 1.5 },
  { label: '1.5 < ρ₀ ≤ 2.5', test: (rho: number) => rho > 1.5 },
] as const;
md.push(
  '### Error against the bottleneck load (hotelReservation and the 50 generated networks)',
  '',
  '| bottleneck load | cases | class figures | max error | mean error |',
  '| :--- | ---: | ---: | ---: | ---: |',
);
for (const band of BANDS) {
  const selected = rows.filter((r) => MAIN_GROUPS.includes(r.c.group) && band.test(r.c.rho0));
  if (selected.length === 0) continue;
  const s = summarise(selected);
  md.push(
    `| ${band.label} | ${s.cases} | ${s.figures} | ${fmt(s.maxError)} | ${fmt(s.meanError)} |`,
  );
}
md.push('');

// Variants on the harder groups.
md.push(
  '### The harder groups with other analysis variants',
  '',
  'Largest and mean error of each variant of the analysis against the same simulation.',
  '',
  '| group | as the file says (`mixed`) | `mm1m` at every service | residual-time correction |',
  '| :--- | :--- | :--- | :--- |',
);
for (const g of ['near-1', 'small-m', 'short-delay', 'calls', 'calls-short'] as Group[]) {
  const selected = rowsOf(g);
  if (selected.length === 0) continue;
  const cell = (errors: number[]) =>
    errors.length === 0 || errors.some((e) => !Number.isFinite(e))
      ? 'n/a'
      : `${fmt(max(errors))} / ${fmt(mean(errors))}`;
  const withResidualRows = selected.filter((r) => Number.isFinite(r.predResidual));
  md.push(
    `| ${GROUP_LABELS[g]} | ${cell(selected.map((r) => r.error))} | ${cell(selected.map((r) => Math.abs(r.predMm1m - r.sim)))} | ${withResidualRows.length === 0 ? 'n/a' : `${cell(withResidualRows.map((r) => Math.abs(r.predResidual - r.sim)))} (${withResidualRows.length} figures)`} |`,
  );
}
md.push('');

// Worst figures overall.
const WORST = 15;
md.push(
  `### The ${WORST} largest errors`,
  '',
  '| group | case | mode | class (k) | ρ₀ (bottleneck) | ρ an. | m (least) | delay | analysis | `mm1m` | residual | simulation | error |',
  '| :--- | :--- | :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
);
for (const r of [...rows].sort((a, b) => b.error - a.error).slice(0, WORST)) {
  md.push(
    `| ${r.c.group} | ${r.c.id} | ${r.mode} | ${r.cls} (${r.k}) | ${fmt(r.c.rho0, 2)} (${r.c.bottleneck}) | ${fmt(r.rhoBottleneck, 2)} | ${r.mMin} | ${delayOf(r.c)} | ${fmt(r.pred)} | ${fmt(r.predMm1m)} | ${fmt(r.predResidual)} | ${pm(r.sim, r.simCi95)} | **${fmt(r.error)}** |`,
  );
}
md.push('');

// Every case, by group.
md.push('## Every figure, by group', '');
for (const g of GROUPS) {
  const selected = rowsOf(g);
  if (selected.length === 0) continue;
  const extra =
    g === 'small-m' || g === 'near-1' ? ' `mm1m` |' : g === 'short-delay' ? ' residual |' : '';
  const extraAlign = extra === '' ? '' : ' ---: |';
  md.push(
    `### ${GROUP_LABELS[g]} (${casesOf(g).length} cases)`,
    '',
    `| case | services (over) | ρ₀ (bottleneck) | ρ an. | m (least) | delay | class (k) | analysis |${extra} simulation | error |`,
    `| :--- | ---: | ---: | ---: | ---: | ---: | :--- | ---: |${extraAlign} ---: | ---: |`,
  );
  for (const r of selected) {
    const extraCell =
      g === 'small-m' || g === 'near-1'
        ? ` ${fmt(r.predMm1m)} |`
        : g === 'short-delay'
          ? ` ${fmt(r.predResidual)} |`
          : '';
    const err = within(r) ? fmt(r.error) : `**${fmt(r.error)}**`;
    md.push(
      `| ${r.c.id} | ${r.services} (${r.overloaded}) | ${fmt(r.c.rho0, 2)} (${r.c.bottleneck}) | ${fmt(r.rhoBottleneck, 2)} | ${r.mMin} | ${delayOf(r.c)} | ${r.cls} (${r.k}) | ${fmt(r.pred)} |${extraCell} ${pm(r.sim, r.simCi95)} | ${err} |`,
    );
  }
  md.push('');
}
md.push(
  `Re-create with \`npm run validate:networks\` (this run: ${seconds.toFixed(0)} s wall clock, ` +
    `${cases.length} cases, ${cases.length * REPLICATIONS} simulation runs, ` +
    `${(events / 1e6).toFixed(0)} million events).`,
  '',
);
writeFileSync(new URL('../docs/validation-networks.md', import.meta.url), md.join('\n'));
process.stderr.write(
  `main set: ${mainSummary.figuresWithin} / ${mainSummary.figures} class figures within ${TARGET}, ` +
    `largest error ${fmt(mainSummary.maxError)}\n` +
    `wrote docs/validation-networks.md and docs/validation-networks.csv in ${seconds.toFixed(1)} s\n`,
);
