/**
 * Re-creates docs/validation-calls.md and docs/validation-calls.csv: the call-graph analysis
 * (`analyzeNetwork` in call-graph mode, with its equilibria) against the network simulator, per
 * class end to end, on 50 generated call graphs of 20–300 services (25 µBench-like, 25 composed
 * DGG-like; m ≥ 20, retry delays random with mean 2 s, bottleneck loads 0.7–2.5) and on chains of
 * 40 and 300 services at light, heavy and overloaded loads.
 *
 * Where the analysis finds two equilibria (healthy and storm) each simulated run, started idle,
 * is matched to the nearer one.
 *
 * Run with `npm run validate:calls` (`npx tsx scripts/validate-calls.ts`; about 20 minutes on two
 * cores). Fixed seeds: the same code gives the same files. Progress goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import { compileCallPlan } from '../src/model/network/callPlan.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import type { NetworkReport } from '../src/model/network/NetworkReport.js';
import { nominalBottleneck, nominalLoads } from '../src/model/network/nominalLoads.js';
import { solveCalls } from '../src/model/network/solveCalls.js';
import { csvLine } from '../src/report/csv.js';
import { fixed, plusMinus } from '../src/report/numberFormat.js';
import {
  CALL_VALIDATION_BACKOFF as BACKOFF,
  CHAIN_CAPACITY,
  CHAIN_RATES,
  callDepths,
  chainNetwork,
  DGG_RATE_PER_SERVICE,
  FAMILY_SIZE,
  GENERATED_RUN,
  generatedCallGraph,
  loadsAtS,
  MIN_QUEUE,
  RHO_RANGE,
  rejectionAtS,
  CALL_VALIDATION_SEED as SEED,
  SIZE_RANGE,
} from './lib/callCases.js';
import { followUpSection } from './lib/followUpSection.js';
import {
  nearestEquilibriumByServices,
  type RunSet,
  runRejection,
  runServiceS,
  type StateMatch,
  simulateRuns,
  windowRejection,
} from './lib/simulateRuns.js';
import { sourceRevision } from './lib/sourceRevision.js';

// ---------------------------------------------------------------------------------------------
// Settings.

const TARGET = 0.03;
/** Chains: fewer, shorter runs (a 300-chain at load 3 is half a million events per second). */
const CHAIN_RUN = { replications: 4, warmup: 40, duration: 40, window: 10 } as const;

type Group = 'mubench' | 'dgg' | 'chain';
const GROUP_LABELS: Readonly<Record<Group, string>> = {
  mubench: 'µBench-like call graphs (`generateMuBench`, form calls)',
  dgg: 'composed DGG-like call graphs (`composeDgg`)',
  chain: 'chains (μ = 1000/s, k = (5, 1))',
};

interface Case {
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

const cases: Case[] = [];
for (let i = 0; i < 2 * FAMILY_SIZE; i++) {
  const g = generatedCallGraph(i);
  cases.push(makeCase(g.family, g.id, g.seed, g.network, GENERATED_RUN));
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

// ---------------------------------------------------------------------------------------------
// Running them.

/** The largest |φ_j(ρ_j(s)) − s_j|: how far the model's load equations are from holding at s. */
function closureAt(network: NetworkModel, s: readonly number[]): number {
  const plan = compileCallPlan(network);
  const rho = loadsAtS(network, s);
  let most = 0;
  for (let j = 0; j < plan.serviceCount; j++) {
    const phi = (plan.phi[j] as (r: number) => number)(rho[j] as number);
    most = Math.max(most, Math.abs(phi - (Number.isFinite(s[j]) ? (s[j] as number) : 0)));
  }
  return most;
}

/** Per class name: end-to-end rejection of a solved state (external calls that fail). */
function endToEndOf(
  network: NetworkModel,
  solution: ReturnType<typeof solveCalls>,
): Record<string, number> {
  return Object.fromEntries(
    network.classes.map((cls, p) => {
      let offered = 0;
      let failed = 0;
      network.services.forEach((service, j) => {
        const gamma = service.arrivals[p] ?? 0;
        offered += gamma;
        failed += gamma * (1 - (solution.callSuccess[j]?.[p] ?? 1));
      });
      return [cls.name, offered > 0 ? failed / offered : Number.NaN];
    }),
  );
}

/** The same network with the law `model` at every service. */
function withLaw(network: NetworkModel, model: 'mm1m'): NetworkModel {
  return { ...network, services: network.services.map((s) => ({ ...s, model })) };
}

interface Outcome {
  readonly c: Case;
  readonly report: NetworkReport;
  readonly analysisSeconds: number;
  readonly simulated: RunSet;
  readonly simulationSeconds: number;
  /** Per class: the analysis's equations evaluated at the simulated s (see `rejectionAtS`). */
  readonly atSimulatedS: Readonly<Record<string, number>>;
  /**
   * The model's load equations at the simulated s: the largest |φ_j(ρ_j) − s_j| over the
   * services, ρ_j the offered load the equations give at that s (0 where the simulated state
   * is a fixed point of the model).
   */
  readonly closureAtSimulatedS: number;
  /** Per class: the rejection of the state the solver relaxes to started from the simulated s. */
  readonly fromSimulatedS: Readonly<Record<string, number>>;
  /** Whether that relaxation converged (else its figures are the last iterate's). */
  readonly fromSimulatedSConverged: boolean;
  /** Chains: the main figures with the `mm1m` law at every hop instead of `mixed`. */
  readonly mm1m?: NetworkReport;
  /** Generated networks: the analysis with follow-up calls, and its seconds. */
  readonly followUps?: { readonly report: NetworkReport; readonly seconds: number };
  /** Per run: the equilibrium its measured window matched, and its first and last windows'. */
  readonly matches: readonly {
    readonly whole: StateMatch;
    readonly first: StateMatch;
    readonly last: StateMatch;
  }[];
}

interface Row {
  readonly o: Outcome;
  readonly cls: string;
  readonly k: number;
  /** The analysis's main figure (its first equilibrium). */
  readonly pred: number;
  readonly predHealthy: number;
  readonly predStorm: number;
  readonly sim: number;
  readonly simCi95: number;
  readonly gap: number;
  /** |gap| against the equilibrium most runs matched (the main one when the state is unique). */
  readonly gapMatched: number;
  /** The analysis's equations at the simulated s, and its |gap| to the simulation. */
  readonly atSimulatedS: number;
  readonly gapAtSimulatedS: number;
}

const revision = sourceRevision();
const loadAtStart = loadavg();
const started = performance.now();
const outcomes: Outcome[] = [];
let stream = 0;
let events = 0;
cases.forEach((c, index) => {
  const t0 = performance.now();
  const report = analyzeNetwork(c.network);
  const t1 = performance.now();
  const simulated = simulateRuns(
    c.network,
    {
      duration: c.run.duration,
      warmup: c.run.warmup,
      seed: SEED,
      backoff: BACKOFF,
      windowSeconds: c.run.window,
    },
    c.run.replications,
    stream,
  );
  const t2 = performance.now();
  stream += c.run.replications;
  events += simulated.events;
  const firstMeasured = Math.round(c.run.warmup / c.run.window);
  const { classes, services } = c.network;
  const matchAt = (run: RunSet['runs'][number], window?: number) =>
    nearestEquilibriumByServices(
      runServiceS(run, services, window),
      window === undefined ? runRejection(run, classes) : windowRejection(run, window, classes),
      report.equilibria,
    );
  const matches = simulated.runs.map((run) => ({
    whole: matchAt(run),
    first: matchAt(run, firstMeasured),
    last: matchAt(run, (run.windows?.length ?? 1) - 1),
  }));
  const atSimulatedS = rejectionAtS(
    c.network,
    services.map((s) => simulated.services[s.name]?.s.mean ?? Number.NaN),
  );
  const simulatedS = services.map((s) => simulated.services[s.name]?.s.mean ?? Number.NaN);
  const outcome: Outcome = {
    c,
    report,
    closureAtSimulatedS: closureAt(c.network, simulatedS),
    ...(() => {
      const relaxed = solveCalls(c.network, { initialS: simulatedS });
      return {
        fromSimulatedS: endToEndOf(c.network, relaxed),
        fromSimulatedSConverged: relaxed.converged,
      };
    })(),
    ...(c.group === 'chain' ? { mm1m: analyzeNetwork(withLaw(c.network, 'mm1m')) } : {}),
    ...(c.group === 'chain'
      ? {}
      : (() => {
          const start = performance.now();
          const followed = analyzeNetwork({ ...c.network, followUps: true });
          return { followUps: { report: followed, seconds: (performance.now() - start) / 1000 } };
        })()),
    analysisSeconds: (t1 - t0) / 1000,
    simulated,
    simulationSeconds: (t2 - t1) / 1000,
    atSimulatedS,
    matches,
  };
  outcomes.push(outcome);
  const worst = Math.max(...rowsOf(outcome).map((r) => r.gap));
  process.stderr.write(
    `[${index + 1}/${cases.length}] ${c.id}: ${c.network.services.length} services, ρ₀ = ${c.rho0.toFixed(2)}, ` +
      `${report.converged ? 'converged' : 'NOT converged'}, ${report.equilibria.map((e) => e.kind).join('+')}` +
      `${report.tippedAt === undefined ? '' : ` (tipped at ${report.tippedAt.toFixed(3)})`}, ` +
      `largest gap ${worst.toFixed(4)} (analysis ${((t1 - t0) / 1000).toFixed(1)} s, simulation ${((t2 - t1) / 1000).toFixed(1)} s)\n`,
  );
});
const seconds = (performance.now() - started) / 1000;
const loadAtEnd = loadavg();

/** The equilibrium most runs matched (ties: the first), over the whole measured window. */
function matchedIndex(o: Outcome): number {
  const counts = o.report.equilibria.map(
    (_, index) => o.matches.filter((m) => m.whole.index === index).length,
  );
  return counts.indexOf(Math.max(...counts));
}

function rowsOf(o: Outcome): Row[] {
  const { c, report, simulated } = o;
  const healthy = report.equilibria.find((e) => e.kind === 'healthy');
  const storm = report.equilibria.find((e) => e.kind === 'storm');
  const matched = report.equilibria[matchedIndex(o)] ?? report.equilibria[0];
  return c.network.classes.map((cls, p) => {
    const pred = report.endToEnd[cls.name]?.rejection ?? Number.NaN;
    const sim = simulated.rejection[cls.name]?.mean ?? Number.NaN;
    return {
      o,
      cls: cls.name,
      k: c.network.services[0]?.retryLimits[p] ?? cls.retryLimit,
      pred,
      predHealthy: healthy?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predStorm: storm?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      sim,
      simCi95: simulated.rejection[cls.name]?.ci95 ?? Number.NaN,
      gap: Math.abs(pred - sim),
      gapMatched: Math.abs((matched?.endToEnd[cls.name]?.rejection ?? Number.NaN) - sim),
      atSimulatedS: o.atSimulatedS[cls.name] ?? Number.NaN,
      gapAtSimulatedS: Math.abs((o.atSimulatedS[cls.name] ?? Number.NaN) - sim),
    };
  });
}

const rows = outcomes.flatMap(rowsOf);

// ---------------------------------------------------------------------------------------------
// Summaries.

const fmt = (x: number, d = 4) => fixed(x, d);
const pm = (x: number, h: number) => plusMinus(x, h, 4);
const within = (r: Row) => r.gap <= TARGET;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const max = (xs: readonly number[]) => Math.max(...xs);
const GROUPS = Object.keys(GROUP_LABELS) as Group[];

interface Summary {
  readonly cases: number;
  readonly converged: number;
  readonly bistable: number;
  readonly casesWithin: number;
  readonly figures: number;
  readonly figuresWithin: number;
  readonly maxGap: number;
  readonly meanGap: number;
  readonly maxCi95: number;
  readonly worst: Row | undefined;
  /** Class figures within the target when the analysis's equations take the simulated s. */
  readonly figuresWithinAtS: number;
  readonly maxGapAtS: number;
}

function summarise(selected: readonly Outcome[]): Summary {
  const selectedRows = selected.flatMap(rowsOf);
  const gaps = selectedRows.map((r) => r.gap);
  return {
    cases: selected.length,
    converged: selected.filter((o) => o.report.converged).length,
    bistable: selected.filter((o) => o.report.equilibria.length > 1).length,
    casesWithin: selected.filter((o) => rowsOf(o).every(within)).length,
    figures: selectedRows.length,
    figuresWithin: selectedRows.filter(within).length,
    maxGap: max(gaps),
    meanGap: mean(gaps),
    maxCi95: max(selectedRows.map((r) => r.simCi95).filter(Number.isFinite)),
    worst: [...selectedRows].sort((a, b) => b.gap - a.gap)[0],
    figuresWithinAtS: selectedRows.filter((r) => r.gapAtSimulatedS <= TARGET).length,
    maxGapAtS: max(selectedRows.map((r) => r.gapAtSimulatedS)),
  };
}

const byGroup = (g: Group) => outcomes.filter((o) => o.c.group === g);
const generatedOutcomes = outcomes.filter((o) => o.c.group !== 'chain');
const generatedSummary = summarise(generatedOutcomes);
const chainSummary = summarise(byGroup('chain'));

// ---------------------------------------------------------------------------------------------
// CSV: every figure.

const stateList = (o: Outcome) => o.report.equilibria.map((e) => e.kind).join('+');
/**
 * An equilibrium's name on the page: its kind, and its place in the list where two share a kind
 * (a rising load that tipped into one storm beside another from saturation: "storm 1", "storm 2").
 */
const stateName = (o: Outcome, index: number, short = false): string => {
  const kind = o.report.equilibria[index]?.kind ?? '?';
  const shared = o.report.equilibria.filter((e) => e.kind === kind).length > 1;
  const name = short ? kind[0] : kind;
  return shared ? `${name}${short ? '' : ' '}${index + 1}` : name;
};
const matchList = (o: Outcome) => o.matches.map((m) => stateName(o, m.whole.index)).join('+');
const csv = [
  csvLine([
    'group',
    'case',
    'seed',
    'services',
    'overloadedServices',
    'minQueue',
    'bottleneck',
    'rho0',
    'converged',
    'equilibria',
    'tippedAt',
    'class',
    'k',
    'analysis',
    'analysisHealthy',
    'analysisStorm',
    'simulation',
    'simulationCi95',
    'absGap',
    'within003',
    'runsMatched',
    'absGapToMatchedState',
    'analysisAtSimulatedS',
    'absGapAtSimulatedS',
    'closureAtSimulatedS',
    'relaxedFromSimulatedS',
    'relaxedFromSimulatedSConverged',
    'analysisMm1m',
    'analysisFollowUps',
    'replications',
    'warmupS',
    'durationS',
    'analysisSeconds',
    'simulationSeconds',
  ]),
  ...rows.map((r) =>
    csvLine([
      r.o.c.group,
      r.o.c.id,
      r.o.c.seed ?? '',
      r.o.c.network.services.length,
      r.o.c.overloaded,
      Math.min(...r.o.c.network.services.map((s) => s.queue)),
      r.o.c.bottleneck,
      r.o.c.rho0,
      r.o.report.converged ? 'yes' : 'no',
      stateList(r.o),
      r.o.report.tippedAt ?? '',
      r.cls,
      r.k,
      r.pred,
      r.predHealthy,
      r.predStorm,
      r.sim,
      r.simCi95,
      r.gap,
      within(r) ? 'yes' : 'no',
      matchList(r.o),
      r.gapMatched,
      r.atSimulatedS,
      r.gapAtSimulatedS,
      r.o.closureAtSimulatedS,
      r.o.fromSimulatedS[r.cls] ?? '',
      r.o.fromSimulatedSConverged ? 'yes' : 'no',
      r.o.mm1m?.endToEnd[r.cls]?.rejection ?? '',
      r.o.followUps?.report.endToEnd[r.cls]?.rejection ?? '',
      r.o.c.run.replications,
      r.o.c.run.warmup,
      r.o.c.run.duration,
      r.o.analysisSeconds,
      r.o.simulationSeconds,
    ]),
  ),
];
writeFileSync(new URL('../docs/validation-calls.csv', import.meta.url), `${csv.join('\n')}\n`);

// ---------------------------------------------------------------------------------------------
// Markdown.

const md: string[] = [];
const runLine = (r: Case['run']) =>
  `${r.replications} replications × ${r.duration} s (warm-up ${r.warmup} s)`;
md.push(
  '# Call-graph analysis against simulation',
  '',
  'Generated by `npm run validate:calls` (scripts/validate-calls.ts); do not edit by hand. ' +
    'Every figure is also in [validation-calls.csv](validation-calls.csv). ' +
    'See [validation.md](validation.md) for what they show.',
  '',
  '## Setup',
  '',
  `- **Code measured**: revision ${revision}.`,
  '- **Analysis**: `analyzeNetwork` in call-graph mode, `mixed` law at every service; it reports ' +
    'whether its fixed point converged, every equilibrium it finds (`healthy`: the state reached ' +
    'by raising the load from zero; `storm`: the state reached from saturation, or the one the ' +
    'rising load tipped into) and where the rising load tipped. The figure compared is its main ' +
    'one, the first equilibrium: the state the load raised from zero reached (`healthy`, or ' +
    '`storm` where it tipped on the way), the state an idle network settles in.',
  `- **Simulation**: \`simulateNetwork\` started idle, seed ${SEED}, a fresh substream per run; ` +
    'exponential service; every retry delay random (exponential) with mean ' +
    `${BACKOFF.kind === 'random' ? BACKOFF.meanMs : '?'} ms. Generated networks: ` +
    `${runLine(GENERATED_RUN)}; chains: ${runLine(CHAIN_RUN)}. Each figure is the mean over ` +
    'runs ± its 95 % half-width.',
  `- **Figure compared**: per-class end-to-end rejection; gap = |analysis − simulation|; target ${TARGET}.`,
  '- **Bistable networks** (two equilibria): each run is matched to the equilibrium nearest to ' +
    'it by the attempt rejection s of the services where the two states differ (by more than ' +
    '0.02; the largest |s_run − s_state| over them), over its whole measured window and over its ' +
    `first and last ${GENERATED_RUN.window} s windows (a run that tipped during the window ` +
    'changes match). Two states of a large network often differ in one subtree only, by less ' +
    "end to end than the runs' noise.",
  "- **Analysis at the simulated s**: the analysis's own equations (a call succeeds with " +
    "1 − (1 − q)^(k+1), q = (1 − s) × the product of its calls' successes) evaluated at the " +
    'simulated attempt rejections s instead of its solved ones (scripts/lib/callCases.ts, ' +
    '`rejectionAtS`; at its own s it gives its figures to 1e-10). Where this is close to the ' +
    'simulation but the analysis is not, the product form holds and the analysis missed the ' +
    'state: which services are saturated.',
  `- **µBench-like** (${FAMILY_SIZE} networks, seeds 300, 302, …, 348): \`generateMuBench\` in ` +
    '`calls` form (a service tree by preferential attachment plus shared databases; every ' +
    'request runs the whole tree, its calls sequential, 15 % of them made twice). ' +
    `**Composed DGG-like** (${FAMILY_SIZE} networks, seeds 301, 303, …, 349): \`generateDgg\` ` +
    'makes 2–7 services only (the call graph of one kind of request in the Alibaba traces), so ' +
    'larger networks are composed as an application serves many kinds of request: an entry ' +
    '`frontend` with one branch per kind, each calling its own DGG graph of 2–7 services ' +
    '(scripts/lib/composedDgg.ts); a request touches 2–8 services. Their external rate is ' +
    `${DGG_RATE_PER_SERVICE} requests/s per service (the capacities follow it), so that services ` +
    'are not a few requests per second each, too slow for 2 s retry delays. Sizes run evenly over ' +
    `${SIZE_RANGE[0]}–${SIZE_RANGE[1]} services in each family, and the loads evenly over ` +
    `ρ₀ = ${RHO_RANGE[0]}–${RHO_RANGE[1]} (all external rates scaled so the most loaded service ` +
    'has that nominal load: no rejection, no retries), in permuted orders. Queues: the ' +
    `generators draw m from {10, 20, 50, 100}; 10 is raised to ${MIN_QUEUE}. Classes: high and ` +
    'low, k = (5, 1), arrivals 1 : 5.',
  `- **Chains** s0 → s1 → …: μ = ${CHAIN_CAPACITY}/s at every hop, m = 10 (and 20), ` +
    `γ = load × (${CHAIN_RATES.join(', ')}) requests/s at s0, k = (5, 1). Every hop carries the ` +
    'whole flow, nominal load 0.3 × load: light (load 1, ρ₀ = 0.3), heavy (load 3, ρ₀ = 0.9, ' +
    'about 0.98 with retries; load 3.2 with m = 20) and overloaded (load 4, ρ₀ = 1.2).',
  '',
  '## Summary',
  '',
  `**Generated call graphs: ${generatedSummary.converged} of ${generatedSummary.cases} converged; ` +
    `${generatedSummary.casesWithin} of ${generatedSummary.cases} have every class within ${TARGET} ` +
    `(${generatedSummary.figuresWithin} of ${generatedSummary.figures} class figures); largest gap ` +
    `${fmt(generatedSummary.maxGap)}, mean ${fmt(generatedSummary.meanGap)}. Chains: ` +
    `${chainSummary.converged} of ${chainSummary.cases} converged, ${chainSummary.figuresWithin} of ` +
    `${chainSummary.figures} class figures within, largest gap ${fmt(chainSummary.maxGap)}.** ` +
    'With the simulated s in its equations the analysis has ' +
    `${generatedSummary.figuresWithinAtS} of the generated networks' ${generatedSummary.figures} ` +
    `class figures within ${TARGET} (largest gap ${fmt(generatedSummary.maxGapAtS)}).`,
  '',
  '| group | networks | converged | bistable | all classes within 0.03 | class figures within 0.03 | largest gap | mean gap | largest 95 % half-width | worst (class) | within 0.03 at the simulated s |',
  '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- | ---: |',
);
for (const g of GROUPS) {
  const s = summarise(byGroup(g));
  md.push(
    `| ${GROUP_LABELS[g]} | ${s.cases} | ${s.converged} | ${s.bistable} | ${s.casesWithin} | ${s.figuresWithin} / ${s.figures} | ${fmt(s.maxGap)} | ${fmt(s.meanGap)} | ${fmt(s.maxCi95)} | ${s.worst ? `${s.worst.o.c.id} (${s.worst.cls})` : 'n/a'} | ${s.figuresWithinAtS} / ${s.figures} |`,
  );
}
md.push('');

// Gap against the bottleneck load, generated networks.
const BANDS = [
  { label: 'ρ₀ < 1', test: (rho: number) => rho < 1 },
  { label: '1 ≤ ρ₀ < 1.5', test: (rho: number) => rho >= 1 && rho < 1.5 },
  { label: '1.5 ≤ ρ₀ < 2', test: (rho: number) => rho >= 1.5 && rho < 2 },
  { label: '2 ≤ ρ₀ ≤ 2.5', test: (rho: number) => rho >= 2 },
] as const;
md.push(
  '### Gap against the bottleneck load (generated networks)',
  '',
  '| bottleneck load | family | networks | class figures within 0.03 | largest gap | mean gap |',
  '| :--- | :--- | ---: | ---: | ---: | ---: |',
);
for (const band of BANDS) {
  for (const family of ['mubench', 'dgg'] as const) {
    const selected = byGroup(family).filter((o) => band.test(o.c.rho0));
    if (selected.length === 0) continue;
    const s = summarise(selected);
    md.push(
      `| ${band.label} | ${family} | ${s.cases} | ${s.figuresWithin} / ${s.figures} | ${fmt(s.maxGap)} | ${fmt(s.meanGap)} |`,
    );
  }
}
md.push('');

// Where the analysis did not converge, or found two states.
const notConverged = outcomes.filter((o) => !o.report.converged);
md.push('### Networks the analysis did not converge on', '');
if (notConverged.length === 0) md.push('None.', '');
else {
  md.push(
    '| case | services | ρ₀ | iterations | residual | swinging services (low – high s) | main figures reported | simulation |',
    '| :--- | ---: | ---: | ---: | ---: | :--- | :--- | :--- |',
  );
  for (const o of notConverged) {
    const swings = (o.report.swinging ?? [])
      .map((s) => `${s.service} (${s.low.toFixed(3)} – ${s.high.toFixed(3)})`)
      .join(', ');
    const classes = o.c.network.classes.map((c) => c.name);
    md.push(
      `| ${o.c.id} | ${o.c.network.services.length} | ${fmt(o.c.rho0, 2)} | ${o.report.iterations} | ${o.report.residual.toExponential(2)} | ${swings || 'n/a'} | ${classes.map((n) => `${n} ${fmt(o.report.endToEnd[n]?.rejection ?? Number.NaN)}`).join(', ')} | ${classes.map((n) => `${n} ${pm(o.simulated.rejection[n]?.mean ?? Number.NaN, o.simulated.rejection[n]?.ci95 ?? Number.NaN)}`).join(', ')} |`,
    );
  }
  md.push('');
}

const bistable = outcomes.filter((o) => o.report.equilibria.length > 1);
md.push(
  '### Bistable networks: which state the simulated runs matched',
  '',
  'Per run (in stream order): the equilibrium nearest its whole measured window, then its first ' +
    '→ last window (h: healthy, s: storm; the first state is the one the load raised from zero ' +
    'reached, and where both are storms they are numbered s1, s2), matched by the services where the states differ ' +
    '("services apart": how many, and the largest difference of s between the states); ' +
    '"distance" is the largest |s_run − s_state| of the matched state over those services and ' +
    'runs. "End to end apart": the largest per-class difference of rejection between the two ' +
    'states.',
  '',
);
if (bistable.length === 0) md.push('None.', '');
else {
  md.push(
    '| case | ρ₀ | first state (high / low) | second state (high / low) | stable? | end to end apart | services apart | simulation (high / low) | runs matched (whole window) | first → last window | largest distance |',
    '| :--- | ---: | :--- | :--- | :--- | ---: | :--- | :--- | :--- | :--- | ---: |',
  );
  for (const o of bistable) {
    const classes = o.c.network.classes.map((c) => c.name);
    const state = (index: number) => {
      const e = o.report.equilibria[index];
      return e === undefined
        ? 'n/a'
        : `${stateName(o, index)}: ${classes.map((n) => fmt(e.endToEnd[n]?.rejection ?? Number.NaN)).join(' / ')}`;
    };
    const stable = o.report.equilibria
      .map((e, index) => `${stateName(o, index)} ${e.stable ? 'yes' : 'no'}`)
      .join(', ');
    const sim = classes
      .map((n) => pm(o.simulated.rejection[n]?.mean ?? Number.NaN, Number.NaN))
      .join(' / ');
    const [first, second] = o.report.equilibria;
    const apartEndToEnd = max(
      classes.map((n) =>
        Math.abs(
          (first?.endToEnd[n]?.rejection ?? Number.NaN) -
            (second?.endToEnd[n]?.rejection ?? Number.NaN),
        ),
      ),
    );
    const serviceGaps = o.c.network.services.map((sv) =>
      Math.abs((first?.services[sv.name]?.s ?? 0) - (second?.services[sv.name]?.s ?? 0)),
    );
    const apartServices = serviceGaps.filter((d) => d > 0.02).length;
    md.push(
      `| ${o.c.id} | ${fmt(o.c.rho0, 2)} | ${state(0)} | ${state(1)} | ${stable} | ${fmt(apartEndToEnd)} | ${apartServices} (${fmt(max(serviceGaps), 3)}) | ${sim} | ${matchList(o)} | ${o.matches.map((m) => `${stateName(o, m.first.index, true)}→${stateName(o, m.last.index, true)}`).join(' ')} | ${fmt(max(o.matches.map((m) => m.whole.distance)), 3)} |`,
    );
  }
  md.push('');
}

// Every network that misses the target: where analysis and simulation part, service by service.
const worstOutcomes = [...outcomes]
  .filter((o) => !rowsOf(o).every(within))
  .sort((a, b) => max(rowsOf(b).map((r) => r.gap)) - max(rowsOf(a).map((r) => r.gap)));
md.push(
  `### Every network with a gap above ${TARGET}, service by service (largest first)`,
  '',
  'For each, the six services whose attempt rejection s differs most between the analysis (its ' +
    'main state) and the simulation; depth counts calls from the entry; ρ is attempts / μ, ' +
    'retries included; ρ₀ the nominal load.',
  '',
);
for (const o of worstOutcomes) {
  const depths = callDepths(o.c.network);
  const loads = nominalLoads(o.c.network);
  const main = o.report.services;
  const worstRow = [...rowsOf(o)].sort((a, b) => b.gap - a.gap)[0];
  md.push(
    `**${o.c.id}** (${o.c.network.services.length} services, ρ₀ = ${fmt(o.c.rho0, 2)} at ${o.c.bottleneck}, ` +
      `${o.c.overloaded} services with ρ₀ > 1): ${worstRow?.cls} class, analysis ${fmt(worstRow?.pred ?? Number.NaN)}, ` +
      `simulation ${pm(worstRow?.sim ?? Number.NaN, worstRow?.simCi95 ?? Number.NaN)}, analysis at the ` +
      `simulated s ${fmt(worstRow?.atSimulatedS ?? Number.NaN)}; attempts per request ` +
      `${fmt(o.report.load.attemptsPerRequest, 1)} analysed, ${fmt(o.simulated.attemptsPerRequest.mean, 1)} simulated. ` +
      `At the simulated s the model's load equations are off by up to ${fmt(o.closureAtSimulatedS, 3)} in s ` +
      '(largest |φ(ρ(s)) − s|), and the relaxation started there ' +
      (o.fromSimulatedSConverged ? 'settles at ' : 'does not settle (its last iterate: ') +
      `${fmt(o.fromSimulatedS[worstRow?.cls ?? ''] ?? Number.NaN)}${o.fromSimulatedSConverged ? '' : ')'} (${worstRow?.cls} class).`,
    '',
    '| service | depth | μ | m | ρ₀ | analysis s | analysis ρ | simulated s | simulated ρ |',
    '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  const differing = o.c.network.services
    .map((s, i) => ({
      s,
      i,
      diff: Math.abs((main[s.name]?.s ?? 0) - (o.simulated.services[s.name]?.s.mean ?? 0)),
    }))
    .sort((a, b) => b.diff - a.diff)
    .slice(0, 6);
  for (const { s, i } of differing) {
    const sim = o.simulated.services[s.name];
    md.push(
      `| ${s.name} | ${depths[i]} | ${s.capacity} | ${s.queue} | ${fmt(loads[i] ?? Number.NaN, 2)} | ${fmt(main[s.name]?.s ?? Number.NaN, 3)} | ${fmt(main[s.name]?.rho ?? Number.NaN, 2)} | ${pm(sim?.s.mean ?? Number.NaN, sim?.s.ci95 ?? Number.NaN)} | ${fmt(sim?.rho.mean ?? Number.NaN, 2)} |`,
    );
  }
  md.push('');
}

// The chains hop by hop: where the flow's head and its tail stand.
md.push(
  '### The chains, hop by hop',
  '',
  'Attempt rejection s and offered load ρ (retries included) at the head s0, the next hop s1, ' +
    'the middle and the last hop, analysed and simulated.',
  '',
  '| chain | hop | analysis s | analysis ρ | simulated s | simulated ρ |',
  '| :--- | :--- | ---: | ---: | ---: | ---: |',
);
for (const o of byGroup('chain')) {
  const n = o.c.network.services.length;
  for (const hop of [0, 1, Math.floor(n / 2), n - 1]) {
    const name = `s${hop}`;
    const analysed = o.report.services[name];
    const simulatedHop = o.simulated.services[name];
    md.push(
      `| ${o.c.id} (${o.c.note}) | ${name} | ${fmt(analysed?.s ?? Number.NaN)} | ${fmt(analysed?.rho ?? Number.NaN, 3)} | ${pm(simulatedHop?.s.mean ?? Number.NaN, simulatedHop?.s.ci95 ?? Number.NaN)} | ${fmt(simulatedHop?.rho.mean ?? Number.NaN, 3)} |`,
    );
  }
}
md.push('');

// The chains with mm1m at every hop: the law for small queues above saturation.
md.push(
  '### The chains with `mm1m` at every hop',
  '',
  'The same chains analysed with the `mm1m` law (M/M/1/m blocking at every load) instead of ' +
    '`mixed` (which above ρ = 1 takes max(1 − 1/ρ, 1/(m + 1)), the fluid law with a floor); the ' +
    'simulation is the same.',
  '',
  '| chain | class | analysis, mixed | analysis, mm1m | simulation | gap, mixed | gap, mm1m | mm1m converged |',
  '| :--- | :--- | ---: | ---: | ---: | ---: | ---: | :--- |',
);
for (const o of byGroup('chain')) {
  for (const r of rowsOf(o)) {
    const other = o.mm1m?.endToEnd[r.cls]?.rejection ?? Number.NaN;
    md.push(
      `| ${o.c.id} (${o.c.note}) | ${r.cls} | ${fmt(r.pred)} | ${fmt(other)} | ${pm(r.sim, r.simCi95)} | ${fmt(r.gap)} | ${fmt(Math.abs(other - r.sim))} | ${o.mm1m?.converged ? 'yes' : 'no'} |`,
    );
  }
}
md.push('');

md.push(
  ...followUpSection(
    outcomes.flatMap((o) =>
      o.followUps === undefined
        ? []
        : [
            {
              id: o.c.id,
              classes: o.c.network.classes.map((cls) => cls.name),
              report: o.report,
              followUps: o.followUps.report,
              followUpSeconds: o.followUps.seconds,
              simulated: o.simulated.rejection,
            },
          ],
    ),
    TARGET,
  ),
);

// Every figure.
md.push('## Every figure, by group', '');
for (const g of GROUPS) {
  const selected = byGroup(g);
  md.push(
    `### ${GROUP_LABELS[g]} (${selected.length})`,
    '',
    '| case | services (over) | ρ₀ (bottleneck) | converged | equilibria | tipped at | class (k) | analysis | simulation | gap | within | analysis at the simulated s |',
    '| :--- | ---: | ---: | :--- | :--- | ---: | :--- | ---: | ---: | ---: | :--- | ---: |',
  );
  for (const o of selected) {
    for (const r of rowsOf(o)) {
      const name = o.c.note === '' ? o.c.id : `${o.c.id} (${o.c.note})`;
      md.push(
        `| ${name} | ${o.c.network.services.length} (${o.c.overloaded}) | ${fmt(o.c.rho0, 2)} (${o.c.bottleneck}) | ${o.report.converged ? 'yes' : '**no**'} | ${stateList(o)} | ${o.report.tippedAt === undefined ? '–' : fmt(o.report.tippedAt, 3)} | ${r.cls} (${r.k}) | ${fmt(r.pred)} | ${pm(r.sim, r.simCi95)} | ${within(r) ? fmt(r.gap) : `**${fmt(r.gap)}**`} | ${within(r) ? 'yes' : 'no'} | ${fmt(r.atSimulatedS)} |`,
      );
    }
  }
  md.push('');
}
const loadText = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
md.push(
  `Re-create with \`npm run validate:calls\` (this run: ${seconds.toFixed(0)} s wall clock, ` +
    `${cases.length} networks, ${outcomes.reduce((n, o) => n + o.c.run.replications, 0)} simulation runs, ` +
    `${(events / 1e6).toFixed(0)} million events; analysis ${outcomes.reduce((t, o) => t + o.analysisSeconds, 0).toFixed(1)} s in all; ` +
    `load average ${loadText(loadAtStart)} at the start and ${loadText(loadAtEnd)} at the end, on a machine shared with other work).`,
  '',
);
writeFileSync(new URL('../docs/validation-calls.md', import.meta.url), md.join('\n'));
process.stderr.write(
  `generated: ${generatedSummary.converged} / ${generatedSummary.cases} converged, ` +
    `${generatedSummary.figuresWithin} / ${generatedSummary.figures} class figures within ${TARGET}, ` +
    `largest gap ${fmt(generatedSummary.maxGap)}; chains: ${chainSummary.figuresWithin} / ${chainSummary.figures}\n` +
    `wrote docs/validation-calls.md and docs/validation-calls.csv in ${seconds.toFixed(1)} s\n`,
);
