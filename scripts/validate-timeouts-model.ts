/**
 * Re-creates docs/validation-timeouts-model.md and docs/validation-timeouts-model.csv: the
 * analysis with per-try timeouts (src/model/queue/mm1mSojourn.ts: an accepted attempt whose
 * sojourn exceeds T is abandoned by its caller while the server still does the work) against the
 * simulator with the same fixed timeouts (`difftry simulate --timeout MS`).
 *
 * One service (μ = 100/s, m = 50 and 10, one class with k = 5 and 1) over ρ = 0.3 … 1.5 and
 * T = 2 … 20 mean service times; then call graphs: a two-level a → b with timeouts on the calls
 * into b, and hotelReservation's call-graph form with a timeout at every hop; then routing
 * networks with a timeout at every hop: a chain a → b, a cycle a ⇄ b and hotelReservation's
 * routing form. Where the analysis finds two equilibria, each simulated run (started idle) is
 * matched to the nearer one.
 *
 * Run with `npm run validate:timeouts-model` (`npx tsx scripts/validate-timeouts-model.ts`).
 * Fixed seeds: the same code gives the same files. Progress goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import type { NetworkReport } from '../src/model/network/NetworkReport.js';
import { orbitLawRefusal } from '../src/model/network/orbitLaw.js';
import { csvLine } from '../src/report/csv.js';
import { fixed, plusMinus } from '../src/report/numberFormat.js';
import {
  meanRunGap,
  nearestEquilibrium,
  type RunSet,
  runRejection,
  type StateMatch,
  simulateRuns,
  windowRejection,
} from './lib/simulateRuns.js';
import { sourceRevision } from './lib/sourceRevision.js';
import {
  hotelCallsWithTimeout,
  hotelRoutingWithTimeout,
  routingChain,
  routingCycle,
  simulatorTimeouts,
  TIMED_CAPACITY,
  TIMEOUT_VALIDATION,
  timedService,
  twoLevel,
} from './lib/timeoutCases.js';

// ---------------------------------------------------------------------------------------------
// Settings.

const {
  seed: SEED,
  backoff: BACKOFF,
  run: RUN,
  queues: QUEUES,
  retries: RETRIES,
  rhos: RHOS,
  timeouts: TIMEOUTS, // mean service times
} = TIMEOUT_VALIDATION;
const TARGET = 0.02;
/** A rejection this close to 0 or 1 in both analysis and simulation is a trivial agreement. */
const TRIVIAL = 0.01;

type Group =
  | 'single'
  | 'two-level'
  | 'hotel-calls'
  | 'routing-chain'
  | 'routing-cycle'
  | 'hotel-routing';
const GROUP_LABELS: Readonly<Record<Group, string>> = {
  single: 'one service (μ = 100/s), one class',
  'two-level': 'two-level a → b, timeouts on b',
  'hotel-calls': 'hotelReservation, call-graph form, a timeout at every hop',
  'routing-chain': 'routing chain a → b, a timeout at both hops',
  'routing-cycle': 'routing cycle a ⇄ b, a timeout at both hops',
  'hotel-routing': 'hotelReservation, routing form, a timeout at every hop',
};
/** The groups whose every point is listed in its own table (all but the single service). */
const NETWORK_GROUPS = [
  'two-level',
  'hotel-calls',
  'routing-chain',
  'routing-cycle',
  'hotel-routing',
] as const;

interface Case {
  readonly group: Group;
  readonly id: string;
  readonly network: NetworkModel;
  /** Single service: m, k, ρ, x = μT. */
  readonly params: Readonly<Record<string, number>>;
}

const cases: Case[] = [];
for (const queue of QUEUES) {
  for (const retries of RETRIES) {
    for (const rho of RHOS) {
      for (const x of TIMEOUTS) {
        cases.push({
          group: 'single',
          id: `m=${queue} k=${retries} ρ=${rho} T=${x}/μ`,
          network: timedService({ queue, retries, rho, timeoutServiceTimes: x }),
          params: { queue, retries, rho, x },
        });
      }
    }
  }
}
for (const queue of [50, 10] as const) {
  for (const rho of [0.5, 0.8, 1.1] as const) {
    for (const timeoutMs of [30, 50, 100] as const) {
      cases.push({
        group: 'two-level',
        id: `a→b m_b=${queue} ρ_b=${rho} T_b=${timeoutMs} ms`,
        network: twoLevel({ rho, timeoutMs, queue }),
        params: { queue, rho, timeoutMs },
      });
    }
  }
}
for (const gammaLow of [50, 93, 150, 250] as const) {
  for (const timeoutMs of [100, 250, 500] as const) {
    cases.push({
      group: 'hotel-calls',
      id: `hotel-calls γlow=${gammaLow} T=${timeoutMs} ms`,
      network: hotelCallsWithTimeout(gammaLow, timeoutMs),
      params: { gammaLow, timeoutMs, rho0: (50 + gammaLow) / 143 },
    });
  }
}

for (const queue of [50, 10] as const) {
  for (const rho of [0.5, 0.8, 1.1] as const) {
    for (const timeoutMs of [30, 50, 100] as const) {
      cases.push({
        group: 'routing-chain',
        id: `a→b routes m_b=${queue} ρ_b=${rho} T=${timeoutMs} ms`,
        network: routingChain({ rho, timeoutMs, queue }),
        params: { queue, rho, timeoutMs },
      });
    }
  }
}
for (const queue of [50, 10] as const) {
  for (const rho of [0.5, 0.8, 1.1] as const) {
    for (const timeoutMs of [30, 50, 100] as const) {
      cases.push({
        group: 'routing-cycle',
        id: `a⇄b routes m=${queue} ρ_a=${rho} T=${timeoutMs} ms`,
        network: routingCycle({ rho, timeoutMs, queue }),
        params: { queue, rho, timeoutMs },
      });
    }
  }
}
for (const gammaLow of [50, 93, 150, 250] as const) {
  for (const timeoutMs of [100, 250, 500] as const) {
    cases.push({
      group: 'hotel-routing',
      id: `hotel γlow=${gammaLow} T=${timeoutMs} ms`,
      network: hotelRoutingWithTimeout(gammaLow, timeoutMs),
      params: { gammaLow, timeoutMs, rho0: (50 + gammaLow) / 143 },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Running them.

interface Outcome {
  readonly c: Case;
  readonly report: NetworkReport;
  readonly simulated: RunSet;
  readonly matches: readonly { whole: StateMatch; first: StateMatch; last: StateMatch }[];
  /** The orbit law's analysis (`--law orbit`) where it covers the network, and its time. */
  readonly orbit?: { readonly report: NetworkReport; readonly seconds: number };
}

const revision = sourceRevision();
const loadAtStart = loadavg();
const started = performance.now();
const outcomes: Outcome[] = [];
let stream = 0;
let events = 0;
const firstMeasured = Math.round(RUN.warmup / RUN.window);
cases.forEach((c, index) => {
  const t0 = performance.now();
  const report = analyzeNetwork(c.network);
  const simulated = simulateRuns(
    c.network,
    {
      duration: RUN.duration,
      warmup: RUN.warmup,
      seed: SEED,
      backoff: BACKOFF,
      timeouts: simulatorTimeouts(c.network),
      windowSeconds: RUN.window,
    },
    RUN.replications,
    stream,
  );
  stream += RUN.replications;
  events += simulated.events;
  const classes = c.network.classes;
  const matches = simulated.runs.map((run) => ({
    whole: nearestEquilibrium(runRejection(run, classes), report.equilibria),
    first: nearestEquilibrium(windowRejection(run, firstMeasured, classes), report.equilibria),
    last: nearestEquilibrium(
      windowRejection(run, (run.windows?.length ?? 1) - 1, classes),
      report.equilibria,
    ),
  }));
  const orbitStarted = performance.now();
  const orbitReport =
    orbitLawRefusal(c.network) === undefined
      ? analyzeNetwork(c.network, { law: 'orbit' })
      : undefined;
  const orbit =
    orbitReport === undefined
      ? undefined
      : { report: orbitReport, seconds: (performance.now() - orbitStarted) / 1000 };
  outcomes.push({ c, report, simulated, matches, ...(orbit === undefined ? {} : { orbit }) });
  const gaps = classes.map((cls) =>
    Math.abs(
      (report.endToEnd[cls.name]?.rejection ?? Number.NaN) -
        (simulated.rejection[cls.name]?.mean ?? Number.NaN),
    ),
  );
  process.stderr.write(
    `[${index + 1}/${cases.length}] ${c.id}: ${report.equilibria.map((e) => e.kind).join('+')}` +
      `${report.tippedAt === undefined ? '' : ` (tipped at ${report.tippedAt.toFixed(3)})`}` +
      `${report.converged ? '' : ', NOT converged'}, largest gap ${Math.max(...gaps).toFixed(4)} ` +
      `(${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
  );
});
const seconds = (performance.now() - started) / 1000;
const loadAtEnd = loadavg();

interface Row {
  readonly o: Outcome;
  readonly cls: string;
  readonly k: number;
  readonly unique: boolean;
  readonly pred: number;
  readonly predHealthy: number;
  readonly predStorm: number;
  /** The state the analysis reached raising the load from zero (healthy, or where it tipped). */
  readonly predRising: number;
  readonly sim: number;
  readonly simCi95: number;
  readonly gap: number;
  /** Both analysis and simulation within 0.01 of 0 or of 1. */
  readonly trivial: boolean;
  /**
   * The mean over the runs of |a run's rejection − the nearer equilibrium's| for the mean-field
   * analysis, and for the orbit law's (NaN where it does not cover the network).
   */
  readonly meanFieldRunGap: number;
  readonly orbitRunGap: number;
  /** The orbit law's rejection in each of its states, `/`-separated ('' where not covered). */
  readonly orbitStates: string;
}

/**
 * Which equilibrium the load raised from zero reached: the first (the analysis lists it first,
 * healthy or the storm it tipped into; the state from saturation second).
 */
function risingIndex(_o: Outcome): number {
  return 0;
}

/** The equilibrium of a bistable point that the rising load did not reach. */
function otherIndex(o: Outcome): number {
  return risingIndex(o) === 0 ? 1 : 0;
}

/** An equilibrium's kind, with where it was reached from when two share a kind. */
function stateLabel(o: Outcome, index: number): string {
  const kind = o.report.equilibria[index]?.kind ?? '?';
  const twins = o.report.equilibria.filter((e) => e.kind === kind).length > 1;
  if (!twins) return kind;
  return `${kind} (${index === risingIndex(o) ? 'from idle' : 'from saturation'})`;
}

function rowsOf(o: Outcome): Row[] {
  const healthy = o.report.equilibria.find((e) => e.kind === 'healthy');
  const storm = o.report.equilibria.find((e) => e.kind === 'storm');
  return o.c.network.classes.map((cls, p) => {
    const pred = o.report.endToEnd[cls.name]?.rejection ?? Number.NaN;
    const sim = o.simulated.rejection[cls.name]?.mean ?? Number.NaN;
    const edge = (x: number) => x <= TRIVIAL || x >= 1 - TRIVIAL;
    return {
      o,
      cls: cls.name,
      k: o.c.network.services[0]?.retryLimits[p] ?? cls.retryLimit,
      unique: o.report.equilibria.length === 1,
      pred,
      predHealthy: healthy?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predStorm: storm?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predRising: o.report.equilibria[risingIndex(o)]?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      sim,
      simCi95: o.simulated.rejection[cls.name]?.ci95 ?? Number.NaN,
      gap: Math.abs(pred - sim),
      trivial: edge(pred) && edge(sim) && Math.abs(pred - sim) <= TRIVIAL,
      meanFieldRunGap: meanRunGap(o.simulated.runs, o.report.equilibria, cls.name),
      orbitRunGap:
        o.orbit === undefined
          ? Number.NaN
          : meanRunGap(o.simulated.runs, o.orbit.report.equilibria, cls.name),
      orbitStates:
        o.orbit === undefined
          ? ''
          : o.orbit.report.equilibria
              .map((e) => fixed(e.endToEnd[cls.name]?.rejection ?? Number.NaN, 4))
              .join('/'),
    };
  });
}
const rows = outcomes.flatMap(rowsOf);

// ---------------------------------------------------------------------------------------------
// Summaries.

const fmt = (x: number, d = 4) => fixed(x, d);
const pm = (x: number, h: number) => plusMinus(x, h, 4);
const within = (r: Row) => r.gap <= TARGET;
const max = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : Math.max(...xs));
const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
const GROUPS = Object.keys(GROUP_LABELS) as Group[];
const stateList = (o: Outcome) => o.report.equilibria.map((e) => e.kind).join('+');
const matchCounts = (o: Outcome, pick: (m: Outcome['matches'][number]) => StateMatch) =>
  o.report.equilibria
    .map(
      (_, index) =>
        `${stateLabel(o, index)} ${o.matches.filter((m) => pick(m).index === index).length}`,
    )
    .join(', ');

interface Summary {
  readonly points: number;
  readonly unique: number;
  readonly bistable: number;
  readonly converged: number;
  readonly uniqueFigures: number;
  readonly uniqueWithin: number;
  readonly nonTrivial: number;
  readonly nonTrivialWithin: number;
  readonly maxGap: number;
  readonly meanGap: number;
  readonly worst: Row | undefined;
}

function summarise(selected: readonly Outcome[]): Summary {
  const unique = selected.filter((o) => o.report.equilibria.length === 1);
  const uniqueRows = unique.flatMap(rowsOf);
  const nonTrivial = uniqueRows.filter((r) => !r.trivial);
  return {
    points: selected.length,
    unique: unique.length,
    bistable: selected.length - unique.length,
    converged: selected.filter((o) => o.report.converged).length,
    uniqueFigures: uniqueRows.length,
    uniqueWithin: uniqueRows.filter(within).length,
    nonTrivial: nonTrivial.length,
    nonTrivialWithin: nonTrivial.filter(within).length,
    maxGap: max(uniqueRows.map((r) => r.gap)),
    meanGap: mean(uniqueRows.map((r) => r.gap)),
    worst: [...uniqueRows].sort((a, b) => b.gap - a.gap)[0],
  };
}
const byGroup = (g: Group) => outcomes.filter((o) => o.c.group === g);
const single = summarise(byGroup('single'));

// ---------------------------------------------------------------------------------------------
// CSV.

const csv = [
  csvLine([
    'group',
    'case',
    'queue',
    'retries',
    'rho',
    'timeoutServiceTimes',
    'timeoutMs',
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
    'within002',
    'trivial',
    'runsMatchedHealthy',
    'runsMatchedStorm',
    'runsTipped',
    'meanFieldRunGap',
    'orbitLaw',
    'orbitRunGap',
    'orbitSeconds',
  ]),
  ...rows.map((r) => {
    const p = r.o.c.params;
    const count = (kind: string) =>
      r.o.matches.filter((m) => r.o.report.equilibria[m.whole.index]?.kind === kind).length;
    return csvLine([
      r.o.c.group,
      r.o.c.id,
      p.queue ?? '',
      p.retries ?? '',
      p.rho ?? p.rho0 ?? '',
      p.x ?? '',
      p.timeoutMs ?? (p.x === undefined ? '' : (1000 * p.x) / TIMED_CAPACITY),
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
      r.trivial ? 'yes' : 'no',
      count('healthy'),
      count('storm'),
      r.o.matches.filter((m) => m.first.index !== m.last.index).length,
      r.meanFieldRunGap,
      r.orbitStates,
      Number.isNaN(r.orbitRunGap) ? '' : r.orbitRunGap,
      r.o.orbit?.seconds ?? '',
    ]);
  }),
];
writeFileSync(
  new URL('../docs/validation-timeouts-model.csv', import.meta.url),
  `${csv.join('\n')}\n`,
);

// ---------------------------------------------------------------------------------------------
// Markdown.

const md: string[] = [];
md.push(
  '# Per-try timeouts: analysis against simulation',
  '',
  'Generated by `npm run validate:timeouts-model` (scripts/validate-timeouts-model.ts); do not ' +
    'edit by hand. Every figure is also in ' +
    '[validation-timeouts-model.csv](validation-timeouts-model.csv). See ' +
    '[validation.md](validation.md) for what they show.',
  '',
  '## Setup',
  '',
  `- **Code measured**: revision ${revision}.`,
  '- **Analysis**: `analyzeNetwork` with per-try timeouts (`NetworkService.timeouts`): an ' +
    'accepted attempt whose sojourn in its M/M/1/m queue (by PASTA, from the stationary queue ' +
    'at the offered load ρ, every attempt counted) exceeds T is abandoned by its caller, a ' +
    'failure its hop may retry, while the server still does the work; in a call graph a call ' +
    "takes the child's mean sojourn plus its own calls' mean times. It reports every " +
    'equilibrium it finds: `healthy` (the load raised from zero) and `storm` (from saturation, ' +
    'or where the rising load tipped).',
  `- **Simulation**: \`simulateNetwork\` started idle with a fixed per-try timeout at the timed ` +
    `hops (what \`difftry simulate --timeout MS\` runs), ${RUN.replications} replications × ` +
    `${RUN.duration} s (warm-up ${RUN.warmup} s), seed ${SEED}, a fresh substream per run, ` +
    'exponential service; retry delays random (exponential) with mean ' +
    `${BACKOFF.kind === 'random' ? BACKOFF.meanMs : '?'} ms, 200 service times of the single ` +
    'service (long against the service time, as the model assumes independent attempts; the ' +
    'default backoff, mean 100 ms, is 10 service times). Figures are means over runs ± 95 % ' +
    'half-widths.',
  `- **Target**: |analysis − simulation| ≤ ${TARGET} per class end to end where the analysis ` +
    'finds one state. A point is *trivial* when analysis and simulation are both within ' +
    `${TRIVIAL} of 0 or both of 1 (and within ${TRIVIAL} of each other): nothing or everything ` +
    'rejected, which any law would match. Where the analysis finds two states, each run is ' +
    'matched to the nearer one (largest per-class difference of end-to-end rejection) over its ' +
    `whole measured window, and over its first and last ${RUN.window} s windows ("tipped": they ` +
    'differ).',
  '- **One service**: μ = 100/s (mean service 10 ms), `mm1m`, m ∈ {50, 10}, one class with ' +
    `k ∈ {5, 1}, ρ = γ/μ ∈ {${RHOS.join(', ')}}, T ∈ {${TIMEOUTS.join(', ')}} mean service ` +
    `times (${TIMEOUTS.map((x) => (1000 * x) / TIMED_CAPACITY).join(', ')} ms).`,
  '- **Two-level a → b**: a (μ = 1000/s, m = 50) calls b (μ = 100/s, m = 50 or 10) once; ' +
    'classes high and low, k = (5, 1) at both hops, γ = ρ_b · 100/s at a, split 1 : 5; calls ' +
    'into b time out after T_b = 30, 50 or 100 ms, calls into a never; `mm1m`.',
  "- **hotelReservation** (`hotel-calls`, the file's `mixed` law): k = (5, 1), γ_high = 50, " +
    'γ_low = 50, 93, 150, 250 (frontend ρ₀ = 0.70, 1.0, 1.40, 2.10), a timeout of 100, 250 or ' +
    '500 ms on ' +
    'every call at every hop, both classes (`toNetworkModel(spec, { timeoutMs })`).',
  '- **Routing chain a → b**: a (μ = 200/s, m = 50) passes 80 % of what gets through to b ' +
    '(μ = 100/s, m = 50 or 10); high and low, k = (5, 1) at both hops, split 1 : 5, γ = ' +
    'ρ_b · 100/0.8 at a; every attempt at a and at b times out after T = 30, 50 or 100 ms ' +
    '(a timeout covers the attempt at its own service: after success the request moves on by ' +
    'its routes); `mm1m`.',
  '- **Routing cycle a ⇄ b**: a and b (μ = 100/s, m = 50 or 10); a passes 60 % on to b, b 30 % ' +
    'back to a; high and low, k = (5, 1), split 1 : 5, γ at a such that a’s nominal load is ' +
    'ρ_a = 0.5, 0.8 or 1.1; every attempt at either times out after T = 30, 50 or 100 ms; `mm1m`.',
  "- **hotelReservation, routing form** (`hotel`, the file's `mixed` law): k = (5, 1), " +
    'γ_high = 50, γ_low = 50, 93, 150, 250, a timeout of 100, 250 or 500 ms on every attempt ' +
    'at every service.',
  '',
  '## Summary',
  '',
  `**One service: ${single.points} points, ${single.unique} with one state and ${single.bistable} ` +
    `bistable; every analysis converged: ${single.converged === single.points ? 'yes' : `no (${single.points - single.converged} did not)`}. ` +
    `Where the state is unique, ${single.uniqueWithin} of ${single.uniqueFigures} within ${TARGET} ` +
    `(${single.nonTrivialWithin} of the ${single.nonTrivial} non-trivial ones); largest gap ` +
    `${fmt(single.maxGap)}${single.worst ? ` (${single.worst.o.c.id})` : ''}.**`,
  '',
  '| group | points | one state | bistable | unique: figures within 0.02 | non-trivial: within 0.02 | largest gap (unique) | mean gap (unique) | worst |',
  '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |',
);
for (const g of GROUPS) {
  const s = summarise(byGroup(g));
  md.push(
    `| ${GROUP_LABELS[g]} | ${s.points} | ${s.unique} | ${s.bistable} | ${s.uniqueWithin} / ${s.uniqueFigures} | ${s.nonTrivialWithin} / ${s.nonTrivial} | ${fmt(s.maxGap)} | ${fmt(s.meanGap)} | ${s.worst ? `${s.worst.o.c.id} (${s.worst.cls})` : 'n/a'} |`,
  );
}
md.push('');

// The orbit law beside the mean field, on the groups it covers, by the per-run measure.
const median = (xs: readonly number[]) => {
  const sorted = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[(sorted.length - 1) >> 1] as number);
};
md.push(
  '### The orbit law beside the mean field',
  '',
  'Every figure (class at a point, bistable points included) of the groups the orbit law covers ' +
    '(`analyze --law orbit`: M/M/1/m services standing alone or routing; hotelReservation uses ' +
    'the `mixed` law, and call graphs are not covered yet). A gap here is the mean over the runs ' +
    'of |a run’s rejection − the nearer state’s| of each analysis, so a bistable point counts ' +
    'too. docs/model.md, "The orbit law", says what the law is and which solver `auto` takes.',
  '',
  '| group | figures | mean field within 0.02 | orbit law within 0.02 | mean field worst / median | orbit law worst / median | orbit law time worst / median | orbit law worst point |',
  '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | :--- |',
);
for (const g of GROUPS) {
  const covered = rows.filter((r) => r.o.c.group === g && !Number.isNaN(r.orbitRunGap));
  if (covered.length === 0) continue;
  const mf = covered.map((r) => r.meanFieldRunGap);
  const ob = covered.map((r) => r.orbitRunGap);
  const times = byGroup(g).flatMap((o) => (o.orbit === undefined ? [] : [o.orbit.seconds]));
  const worst = covered.reduce((a, b) => (b.orbitRunGap > a.orbitRunGap ? b : a));
  md.push(
    `| ${GROUP_LABELS[g]} | ${covered.length} | ${mf.filter((x) => x <= TARGET).length} | ${ob.filter((x) => x <= TARGET).length} | ${fmt(max(mf))} / ${fmt(median(mf))} | ${fmt(max(ob))} / ${fmt(median(ob))} | ${max(times).toFixed(2)} s / ${median(times).toFixed(2)} s | ${worst.o.c.id} (${worst.cls}): ${worst.orbitStates} against ${fmt(worst.sim)} |`,
  );
}
md.push('');

// The single-service grid as tables of T against ρ, one per (m, k).
md.push(
  '### One service, by m and k',
  '',
  'Each cell: the analysis, then the simulation ± its half-width; a bistable cell gives both ' +
    'states and how many of the runs matched each; **bold** marks a unique-state gap above ' +
    `${TARGET}. h and s are the analysis's labels, healthy and storm: how it reached the state ` +
    '(raising the load from zero without a fold; from saturation, or past a fold), not how much ' +
    'it rejects — an h state can reject everything.',
  '',
);
for (const queue of QUEUES) {
  for (const retries of RETRIES) {
    md.push(
      `#### m = ${queue}, k = ${retries}`,
      '',
      `| ρ | ${TIMEOUTS.map((x) => `T = ${x}/μ (${(1000 * x) / TIMED_CAPACITY} ms)`).join(' | ')} |`,
      `| ---: | ${TIMEOUTS.map(() => ':---').join(' | ')} |`,
    );
    for (const rho of RHOS) {
      const cells = TIMEOUTS.map((x) => {
        const o = outcomes.find(
          (o) =>
            o.c.group === 'single' &&
            o.c.params.queue === queue &&
            o.c.params.retries === retries &&
            o.c.params.rho === rho &&
            o.c.params.x === x,
        );
        if (o === undefined) return 'n/a';
        const r = rowsOf(o)[0] as Row;
        const sim = pm(r.sim, r.simCi95);
        if (r.unique) {
          const gap = within(r) ? fmt(r.gap) : `**${fmt(r.gap)}**`;
          const tip =
            o.report.tippedAt === undefined ? '' : ` (tipped at ${fmt(o.report.tippedAt, 2)})`;
          return `${o.report.equilibria[0]?.kind[0]} ${fmt(r.pred)}${tip} · ${sim} · gap ${gap}`;
        }
        return `h ${fmt(r.predHealthy)} / s ${fmt(r.predStorm)} · ${sim} · runs ${matchCounts(o, (m) => m.whole)}`;
      });
      md.push(`| ${rho} | ${cells.join(' | ')} |`);
    }
    md.push('');
  }
}

// Bistable points in detail.
const bistable = outcomes.filter((o) => o.report.equilibria.length > 1);
md.push(
  '### Bistable points: where the simulated runs ended',
  '',
  'Per point: both states, the one the analysis reached raising the load from zero first; the runs matched to each over the whole measured window and over ' +
    'the last window; runs whose first and last windows matched different states (tipped ' +
    'during the measurement); the simulated mean over all runs.',
  '',
);
if (bistable.length === 0) md.push('None.', '');
else {
  md.push(
    '| case | class | from idle | the other | runs matched (whole window) | runs matched (last window) | tipped during the window | simulation, all runs |',
    '| :--- | :--- | ---: | ---: | :--- | :--- | ---: | ---: |',
  );
  for (const o of bistable) {
    for (const r of rowsOf(o)) {
      md.push(
        `| ${o.c.id} | ${r.cls} | ${stateLabel(o, risingIndex(o))} ${fmt(r.predRising)} | ${stateLabel(o, otherIndex(o))} ${fmt(o.report.equilibria[otherIndex(o)]?.endToEnd[r.cls]?.rejection ?? Number.NaN)} | ${matchCounts(o, (m) => m.whole)} | ${matchCounts(o, (m) => m.last)} | ${o.matches.filter((m) => m.first.index !== m.last.index).length} | ${pm(r.sim, r.simCi95)} |`,
      );
    }
  }
  md.push('');
}

// The networks in full.
for (const g of NETWORK_GROUPS) {
  md.push(
    `### ${GROUP_LABELS[g]}`,
    '',
    'Where the analysis finds two states, the analysis column and the gap are those of the ' +
      'state it reached raising the load from zero (healthy, or the one it tipped into), which ' +
      'a run started idle should meet.',
    '',
    '| case | equilibria | tipped at | class (k) | analysis | simulation | gap | runs matched |',
    '| :--- | :--- | ---: | :--- | ---: | ---: | ---: | :--- |',
  );
  for (const o of byGroup(g)) {
    for (const r of rowsOf(o)) {
      const gapValue = r.unique ? r.gap : Math.abs(r.predRising - r.sim);
      const gap = !r.unique || gapValue <= TARGET ? fmt(gapValue) : `**${fmt(gapValue)}**`;
      const states = r.unique
        ? stateList(o)
        : o.report.equilibria
            .map(
              (e, index) =>
                `${stateLabel(o, index)} ${fmt(e.endToEnd[r.cls]?.rejection ?? Number.NaN)}`,
            )
            .join(' / ');
      md.push(
        `| ${o.c.id} | ${states} | ${o.report.tippedAt === undefined ? '–' : fmt(o.report.tippedAt, 3)} | ${r.cls} (${r.k}) | ${fmt(r.unique ? r.pred : r.predRising)} | ${pm(r.sim, r.simCi95)} | ${gap} | ${r.unique ? '–' : matchCounts(o, (m) => m.whole)} |`,
      );
    }
  }
  md.push('');
}

const loadText = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
md.push(
  `Re-create with \`npm run validate:timeouts-model\` (this run: ${seconds.toFixed(0)} s wall ` +
    `clock, ${cases.length} points, ${cases.length * RUN.replications} simulation runs, ` +
    `${(events / 1e6).toFixed(0)} million events; load average ${loadText(loadAtStart)} at the ` +
    `start and ${loadText(loadAtEnd)} at the end, on a machine shared with other work).`,
  '',
);
writeFileSync(new URL('../docs/validation-timeouts-model.md', import.meta.url), md.join('\n'));
for (const g of GROUPS) {
  const sg = summarise(byGroup(g));
  process.stderr.write(
    `${g}: ${sg.points} points (${sg.unique} one state, ${sg.bistable} bistable, ${sg.converged} converged); ` +
      `${sg.uniqueWithin} / ${sg.uniqueFigures} unique-state figures within ${TARGET}, largest gap ${fmt(sg.maxGap)}` +
      `${sg.worst ? ` (${sg.worst.o.c.id}, ${sg.worst.cls})` : ''}\n`,
  );
}
process.stderr.write(
  `one service: ${single.uniqueWithin} / ${single.uniqueFigures} unique-state figures within ${TARGET} ` +
    `(${single.nonTrivialWithin} / ${single.nonTrivial} non-trivial), ${single.bistable} bistable points\n` +
    `wrote docs/validation-timeouts-model.md and .csv in ${seconds.toFixed(1)} s\n`,
);
