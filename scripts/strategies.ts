/**
 * Re-creates docs/strategies.csv, docs/strategies.svg and docs/strategies.md: the Figure 5
 * overload sweep (hotelReservation, routing form, frontend as the bottleneck; γ_high = 50, γ_low
 * from 50 to 250 in steps of 25) under every simulated retry strategy — DiffTry, uniform limits
 * and the five budgets — with a long random retry delay (mean 2 s, the paper's regime) and a
 * short exponential backoff (base 25 ms, full jitter), beside two references (DiffTry k = (5, 0)
 * and no retries). Run with `npx tsx scripts/strategies.ts` or `npm run strategies` (one to two
 * minutes on 2 cores).
 *
 * The written comparison in the Markdown reads its figures from the run, and `comparison()`
 * checks each qualitative statement it makes against them: a statement the run no longer
 * supports is warned about on stderr and flagged in docs/strategies.md.
 */
import { writeFileSync } from 'node:fs';
import {
  FIGURE5_GAMMA_HIGH,
  FIGURE5_GAMMA_LOWS,
  FIGURE5_HEAVIEST_GAMMA_LOW,
  type Figure5Limit,
  figure5Limits,
  modelAtFigure5Point,
} from '../src/experiments/figure5/figure5Sweep.js';
import type { BackoffDescription } from '../src/model/backoff/BackoffDescription.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { RATIO_BUDGET_DEFAULTS } from '../src/policy/budget/index.js';
import { csvLine } from '../src/report/csv.js';
import { fixed, percent, percentPlusMinus, plusMinus } from '../src/report/numberFormat.js';
import {
  type ChartPanel,
  type ChartSeries,
  niceAxis,
  panelChartSvg,
} from '../src/report/panelChart.js';
import { replicateNetwork } from '../src/sim/network/replicateNetwork.js';
import { NETWORK_STRATEGIES, type NetworkStrategy } from '../src/sim/network/strategy.js';
import { builtinExample, parseNetwork, toNetworkModel } from '../src/spec/index.js';

const REPLICATIONS = 10;
const DURATION = 150; // measured virtual seconds per replication
const WARMUP = 30; // virtual seconds before the window
const SEED = 6;
const GAMMA_HIGH = FIGURE5_GAMMA_HIGH;
const GAMMA_LOWS = FIGURE5_GAMMA_LOWS;
const HEADLINE_GAMMA_LOW = FIGURE5_HEAVIEST_GAMMA_LOW;
const [DIFFTRY_LIMIT, UNIFORM_LIMIT] = figure5Limits();
/** Retry limits (high, low): DiffTry's; every other strategy gives both classes the first. */
const RETRIES = (DIFFTRY_LIMIT as Figure5Limit).retries;
const UNIFORM_RETRIES = (UNIFORM_LIMIT as Figure5Limit).retries;
/**
 * References beside the strategies, simulated as `difftry` with other limits: no retries at all,
 * and DiffTry with the low class never retrying (the limit the class-aware budget approaches).
 */
const REFERENCES = {
  'difftry-5-0': { high: 5, low: 0 },
  'no-retries': { high: 0, low: 0 },
} as const;
type Reference = keyof typeof REFERENCES;
type Subject = NetworkStrategy | Reference;
const SUBJECTS: readonly Subject[] = [
  ...NETWORK_STRATEGIES,
  ...(Object.keys(REFERENCES) as Reference[]),
];
const isReference = (subject: Subject): subject is Reference => Object.hasOwn(REFERENCES, subject);
/** Budgets that ignore the class (uniform limits plus one of them). */
const CLASS_UNAWARE_BUDGETS = [
  'budget-finagle',
  'budget-grpc',
  'budget-envoy',
  'sre-throttle',
] as const satisfies readonly NetworkStrategy[];

interface Variant {
  readonly key: 'long' | 'short';
  readonly label: string;
  readonly short: string;
  readonly backoff: BackoffDescription;
}
const VARIANTS: readonly Variant[] = [
  {
    key: 'long',
    label: 'retry delay random (exponential), mean 2000 ms',
    short: 'delay 2 s',
    backoff: { kind: 'random', meanMs: 2000 },
  },
  {
    key: 'short',
    label: 'exponential backoff, base 25 ms, factor 2, full jitter',
    short: 'backoff 25 ms',
    backoff: { kind: 'exponential', baseMs: 25, factor: 2, jitter: 'full' },
  },
];

const STRATEGY_INFO: Readonly<Record<Subject, { readonly label: string; readonly how: string }>> = {
  difftry: {
    label: 'DiffTry',
    how: 'per-class limits k = (5, 1) at every hop, no budget',
  },
  uniform: {
    label: 'uniform',
    how: 'k = (5, 5) at every hop, no budget',
  },
  'budget-finagle': {
    label: 'Finagle budget',
    how:
      'k = (5, 5) plus a Finagle/Linkerd ratio budget per hop: ttl 10 s, 20 % of requests, ' +
      'reserve 10 retries/s',
  },
  'budget-grpc': {
    label: 'gRPC throttle',
    how:
      'k = (5, 5) plus gRPC retry throttling per hop: 10 tokens, −1 per failed attempt, +0.1 ' +
      'per success, retries only while tokens > 5',
  },
  'budget-envoy': {
    label: 'Envoy budget',
    how:
      'k = (5, 5) plus an Envoy retry budget per hop: retries in flight ≤ max(3, 20 % of ' +
      'active requests)',
  },
  'sre-throttle': {
    label: 'SRE throttle',
    how:
      'k = (5, 5) plus Google SRE adaptive throttling of retries per hop: K = 2, 2-minute ' +
      'window, a retry refused with probability max(0, (requests − 2·accepts)/(requests + 1))',
  },
  'class-budget': {
    label: 'class-aware budget',
    how:
      'k = (5, 5) plus a class-aware ratio budget per hop (Finagle accounting, as above): ' +
      'the low class may spend at most half of the window’s allowance, the high class all of it',
  },
  'difftry-5-0': {
    label: 'DiffTry (5, 0)',
    how: 'reference: `difftry` with k = (5, 0), the low class never retries',
  },
  'no-retries': {
    label: 'no retries',
    how: 'reference: k = (0, 0), every rejected attempt fails its request',
  },
};

const SERIES_STYLE: Readonly<Record<Subject, Omit<ChartSeries, 'key' | 'label'>>> = {
  difftry: { color: '#1f77b4', strokeWidth: 3, marker: 'circle' },
  uniform: { color: '#7f7f7f', marker: 'square' },
  'budget-finagle': { color: '#2ca02c', marker: 'diamond' },
  'budget-grpc': { color: '#9467bd', marker: 'triangle' },
  'budget-envoy': { color: '#8c564b', marker: 'square' },
  'sre-throttle': { color: '#e377c2', marker: 'diamond' },
  'class-budget': { color: '#ff7f0e', strokeWidth: 2.5, marker: 'circle' },
  'difftry-5-0': { color: '#17becf', dash: '6 3', strokeWidth: 1.5, marker: 'triangle' },
  'no-retries': { color: '#000000', dash: '8 4', strokeWidth: 1.2, marker: 'none' },
};

interface Row {
  readonly variant: Variant['key'];
  readonly strategy: Subject;
  readonly gammaLow: number;
  readonly highRejection: number;
  readonly highRejectionCi95: number;
  readonly lowRejection: number;
  readonly lowRejectionCi95: number;
  readonly attemptsPerRequest: number;
  readonly attemptsPerRequestCi95: number;
  readonly attemptsPerSuccess: number;
  readonly attemptsPerSuccessCi95: number;
  /** Retries per request at the frontend (the bottleneck), per class: attempts / arrivals − 1. */
  readonly highFrontendRetries: number;
  readonly lowFrontendRetries: number;
  readonly highLatencyP50: number;
  readonly highLatencyP99: number;
  readonly highLatencyP99Ci95: number;
  readonly lowLatencyP50: number;
  readonly lowLatencyP99: number;
  readonly lowLatencyP99Ci95: number;
  /** The analysis (`analyzeNetwork`), for `difftry` and `uniform` only; NaN otherwise. */
  readonly predHighRejection: number;
  readonly predLowRejection: number;
  readonly predAttemptsPerRequest: number;
}

function hotel(retries: Readonly<Record<string, number>>, gammaLow: number): NetworkModel {
  const { fileName, text } = builtinExample('hotel');
  const network = toNetworkModel(parseNetwork(text, fileName), { retries: { ...retries } });
  return modelAtFigure5Point(network, gammaLow);
}

// ---------------------------------------------------------------------------------------------
// Run. Every strategy and delay variant sees the same substreams at a given γ_low (common random
// numbers), so the differences between strategies are not blurred by different arrival draws.

const started = performance.now();
const rows: Row[] = [];
const predictions = new Map<string, ReturnType<typeof analyzeNetwork>>();
for (const [gammaIndex, gammaLow] of GAMMA_LOWS.entries()) {
  for (const [key, retries] of [
    ['difftry', RETRIES],
    ['uniform', UNIFORM_RETRIES],
  ] as const) {
    const report = analyzeNetwork(hotel(retries, gammaLow));
    if (!report.converged) {
      process.stderr.write(`warning: analysis did not converge (${key}, γ_low = ${gammaLow})\n`);
    }
    predictions.set(`${key}/${gammaLow}`, report);
  }
  const network = hotel(RETRIES, gammaLow);
  for (const variant of VARIANTS) {
    for (const strategy of SUBJECTS) {
      const pointStarted = performance.now();
      const sim = replicateNetwork(
        isReference(strategy) ? hotel(REFERENCES[strategy], gammaLow) : network,
        {
          duration: DURATION,
          warmup: WARMUP,
          seed: SEED,
          stream: gammaIndex * REPLICATIONS,
          backoff: variant.backoff,
          strategy: isReference(strategy) ? 'difftry' : strategy,
        },
        REPLICATIONS,
      );
      const high = sim.endToEnd.high;
      const low = sim.endToEnd.low;
      const frontend = sim.services.frontend?.classes;
      if (high === undefined || low === undefined || frontend === undefined) {
        throw new Error('hotel should have classes high and low and a service frontend');
      }
      const frontendRetries = (cls: string) =>
        (frontend[cls]?.attempts ?? Number.NaN) / (frontend[cls]?.in ?? Number.NaN) - 1;
      const predicted = predictions.get(`${strategy}/${gammaLow}`);
      rows.push({
        variant: variant.key,
        strategy,
        gammaLow,
        highRejection: high.rejection,
        highRejectionCi95: high.rejectionCi95,
        lowRejection: low.rejection,
        lowRejectionCi95: low.rejectionCi95,
        attemptsPerRequest: sim.load.attemptsPerRequest,
        attemptsPerRequestCi95: sim.load.attemptsPerRequestCi95,
        attemptsPerSuccess: sim.load.attemptsPerSuccess,
        attemptsPerSuccessCi95: sim.load.attemptsPerSuccessCi95,
        highFrontendRetries: frontendRetries('high'),
        lowFrontendRetries: frontendRetries('low'),
        highLatencyP50: high.latencyP50,
        highLatencyP99: high.latencyP99,
        highLatencyP99Ci95: high.latencyP99Ci95,
        lowLatencyP50: low.latencyP50,
        lowLatencyP99: low.latencyP99,
        lowLatencyP99Ci95: low.latencyP99Ci95,
        predHighRejection: predicted?.endToEnd.high?.rejection ?? Number.NaN,
        predLowRejection: predicted?.endToEnd.low?.rejection ?? Number.NaN,
        predAttemptsPerRequest: predicted?.load.attemptsPerRequest ?? Number.NaN,
      });
      process.stderr.write(
        `γ_low = ${gammaLow} ${variant.key} ${strategy}: ${((performance.now() - pointStarted) / 1000).toFixed(1)} s\n`,
      );
    }
  }
}
const seconds = (performance.now() - started) / 1000;

/** Rejection over both classes together, weighted by their arrival rates. */
function overallRejection(r: Row): number {
  return (GAMMA_HIGH * r.highRejection + r.gammaLow * r.lowRejection) / (GAMMA_HIGH + r.gammaLow);
}

function row(variant: Variant['key'], strategy: Subject, gammaLow: number): Row {
  const found = rows.find(
    (r) => r.variant === variant && r.strategy === strategy && r.gammaLow === gammaLow,
  );
  if (found === undefined) throw new Error(`no row ${variant} ${strategy} ${gammaLow}`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// CSV: one line per delay variant × strategy × γ_low.

const CSV_FIELDS = [
  'highRejection',
  'highRejectionCi95',
  'lowRejection',
  'lowRejectionCi95',
  'attemptsPerRequest',
  'attemptsPerRequestCi95',
  'attemptsPerSuccess',
  'attemptsPerSuccessCi95',
  'highFrontendRetries',
  'lowFrontendRetries',
  'highLatencyP50',
  'highLatencyP99',
  'highLatencyP99Ci95',
  'lowLatencyP50',
  'lowLatencyP99',
  'lowLatencyP99Ci95',
  'predHighRejection',
  'predLowRejection',
  'predAttemptsPerRequest',
] as const;
const csv = [
  csvLine(['backoff', 'strategy', 'gammaHigh', 'gammaLow', ...CSV_FIELDS]),
  ...rows.map((r) =>
    csvLine([
      r.variant,
      r.strategy,
      GAMMA_HIGH,
      r.gammaLow,
      ...CSV_FIELDS.map((field) => r[field]),
    ]),
  ),
];
writeFileSync(new URL('../docs/strategies.csv', import.meta.url), `${csv.join('\n')}\n`);

// ---------------------------------------------------------------------------------------------
// SVG: one row of panels per delay variant.

/** Lines drawn last lie on top: DiffTry and the class-aware budget over the rest. */
const DRAW_ORDER: readonly Subject[] = [
  'no-retries',
  'uniform',
  ...CLASS_UNAWARE_BUDGETS,
  'class-budget',
  'difftry-5-0',
  'difftry',
];
const series: ChartSeries[] = [
  ...SUBJECTS.map((strategy) => ({
    key: strategy,
    label: isReference(strategy)
      ? `${STRATEGY_INFO[strategy].label} (reference)`
      : `${STRATEGY_INFO[strategy].label} (${strategy})`,
    ...SERIES_STYLE[strategy],
  })),
  {
    key: 'difftry-pred',
    label: 'DiffTry, analysis',
    color: SERIES_STYLE.difftry.color,
    dash: '3 3',
    strokeWidth: 1.5,
    marker: 'none',
  },
  {
    key: 'uniform-pred',
    label: 'uniform, analysis',
    color: SERIES_STYLE.uniform.color,
    dash: '3 3',
    strokeWidth: 1.5,
    marker: 'none',
  },
];
const rejectionMax = niceAxis(
  Math.max(
    ...rows.map((r) =>
      Math.max(r.highRejection + r.highRejectionCi95, r.lowRejection + r.lowRejectionCi95),
    ),
  ),
).max;
const panels: ChartPanel[] = VARIANTS.flatMap((variant) => {
  const simulated = (value: (r: Row) => number, ci95: (r: Row) => number) =>
    DRAW_ORDER.map((strategy) => ({
      series: strategy,
      points: GAMMA_LOWS.map((g) => {
        const r = row(variant.key, strategy, g);
        return { x: g, y: value(r), ci95: ci95(r) };
      }),
    }));
  const predicted = (value: (r: Row) => number) =>
    (['difftry', 'uniform'] as const).map((strategy) => ({
      series: `${strategy}-pred`,
      points: GAMMA_LOWS.map((g) => ({ x: g, y: value(row(variant.key, strategy, g)) })),
    }));
  return [
    {
      title: `High-class rejection (${variant.short})`,
      yLabel: 'end-to-end rejection',
      yMax: rejectionMax,
      lines: [
        ...predicted((r) => r.predHighRejection),
        ...simulated(
          (r) => r.highRejection,
          (r) => r.highRejectionCi95,
        ),
      ],
    },
    {
      title: `Low-class rejection (${variant.short})`,
      yLabel: 'end-to-end rejection',
      yMax: rejectionMax,
      lines: [
        ...predicted((r) => r.predLowRejection),
        ...simulated(
          (r) => r.lowRejection,
          (r) => r.lowRejectionCi95,
        ),
      ],
    },
    {
      title: `Attempts per request (${variant.short})`,
      yLabel: 'attempts per external request',
      lines: [
        ...predicted((r) => r.predAttemptsPerRequest),
        ...simulated(
          (r) => r.attemptsPerRequest,
          (r) => r.attemptsPerRequestCi95,
        ),
      ],
    },
    {
      title: `High-class p99 latency (${variant.short})`,
      yLabel: 'p99 end-to-end latency (s)',
      lines: simulated(
        (r) => r.highLatencyP99,
        (r) => r.highLatencyP99Ci95,
      ),
    },
  ];
});
writeFileSync(
  new URL('../docs/strategies.svg', import.meta.url),
  panelChartSvg({
    title:
      'Retry strategies under overload: hotelReservation (routing form), frontend bottleneck, ' +
      `γ_high = ${GAMMA_HIGH}`,
    xLabel: 'γ_low (requests/s)',
    xTicks: GAMMA_LOWS,
    columns: 4,
    panels,
    series,
    notes: [
      `Top row: ${VARIANTS[0]?.label}; bottom row: ${VARIANTS[1]?.label}. Markers: simulated ` +
        `mean of ${REPLICATIONS} replications × ${DURATION} s (warm-up ${WARMUP} s), bars: 95 % ` +
        'CI; dotted: analysis (DiffTry and uniform only).',
      'DiffTry k = (5, 1); every other strategy k = (5, 5) per hop, the budgets with their ' +
        'default options, one budget per hop; references: DiffTry k = (5, 0) and no retries. ' +
        'Latency: completed requests only.',
    ],
  }),
);

// ---------------------------------------------------------------------------------------------
// Markdown.

const md: string[] = [];
const headline = (variant: Variant['key'], strategy: Subject) =>
  row(variant, strategy, HEADLINE_GAMMA_LOW);

md.push(
  '# Retry strategies under overload: DiffTry against uniform limits and retry budgets',
  '',
  'Generated by `npm run strategies` (`npx tsx scripts/strategies.ts`); do not edit by hand. ' +
    'Every figure is also in [strategies.csv](strategies.csv).',
  '',
  `The overload sweep of [Figure 5](figure5.md) — hotelReservation, frontend as the bottleneck, ` +
    `γ_high = ${GAMMA_HIGH}, γ_low = 50 … 250 — run under every retry strategy the simulator ` +
    'knows, with two retry delays. The question: what does each strategy do to the high class, ' +
    'to the low class, to the load on the network and to the tail latency?',
  '',
  '## Setup',
  '',
  '- Network: `examples/hotel.yaml` (routing form): frontend μ = 143 requests/s, room m = 50, ' +
    'then search → geo → rate → reservation → profile, recommendation → profile, user → ' +
    'reservation (≈ 3.8 internal visits per request, so ≈ 4.8 attempts per request with no ' +
    `rejection). γ_high = ${GAMMA_HIGH}, γ_low = ${GAMMA_LOWS[0]} … ${HEADLINE_GAMMA_LOW} in ` +
    'steps of 25: offered load at the frontend ρ ≈ 0.7 … 2.1.',
  `- Simulation: \`replicateNetwork\`, ${REPLICATIONS} replications × ${DURATION} s virtual ` +
    `(warm-up ${WARMUP} s), seed ${SEED}; each strategy and delay sees the same substreams at a ` +
    'given γ_low. Figures are the mean over replications ± the 95 % half-width. Every hop retries ' +
    'a rejected attempt (503) through the runtime’s own `RetryPolicy`; a request that exhausts ' +
    'its retries at a hop is rejected end to end.',
  '- Retry delays: ' +
    VARIANTS.map((v) => `**${v.short}** — ${v.label}`).join('; ') +
    '. With 5 retries the short backoff waits at most 25, 50, 100, 200 and 400 ms.',
  '- Analysis: `analyzeNetwork` for DiffTry k = (5, 1) and uniform k = (5, 5) (the analysis ' +
    'has no budgets). It assumes retries independent of the queue state, the regime of the long ' +
    'delay; it is shown beside both delays.',
  '- Latency: external arrival to completion of the **completed** requests only (a rejected ' +
    'request has no latency), so a strategy that rejects the requests that would have waited ' +
    'longest looks faster; read p99 together with the rejection.',
  '',
  'Strategies (`simulateNetwork(model, { strategy })`, `difftry simulate --strategy`; the ' +
    'budgets with the defaults of `src/policy/budget/`, one budget per hop shared by both ' +
    'classes), and two references simulated as `difftry` with other limits:',
  '',
  '| strategy | what it does |',
  '| :--- | :--- |',
  ...SUBJECTS.map((s) => `| \`${s}\` | ${STRATEGY_INFO[s].how} |`),
  '',
  '![Retry strategies under overload](strategies.svg)',
  '',
);

for (const variant of VARIANTS) {
  md.push(
    `## At the heaviest point, γ = (${GAMMA_HIGH}, ${HEADLINE_GAMMA_LOW}), ${variant.short} ` +
      `(${variant.label})`,
    '',
    '| strategy | high rejection | low rejection | both classes | attempts/request | ' +
      'attempts/success | frontend retries/request, high / low | high p99 (s) | low p99 (s) |',
    '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const strategy of SUBJECTS) {
    const r = headline(variant.key, strategy);
    md.push(
      `| ${STRATEGY_INFO[strategy].label} (\`${strategy}\`) | ` +
        `${percentPlusMinus(r.highRejection, r.highRejectionCi95)} | ` +
        `${percentPlusMinus(r.lowRejection, r.lowRejectionCi95)} | ` +
        `${percent(overallRejection(r))} | ` +
        `${plusMinus(r.attemptsPerRequest, r.attemptsPerRequestCi95)} | ` +
        `${plusMinus(r.attemptsPerSuccess, r.attemptsPerSuccessCi95)} | ` +
        `${fixed(r.highFrontendRetries)} / ${fixed(r.lowFrontendRetries)} | ` +
        `${plusMinus(r.highLatencyP99, r.highLatencyP99Ci95)} | ` +
        `${plusMinus(r.lowLatencyP99, r.lowLatencyP99Ci95)} |`,
    );
  }
  for (const strategy of ['difftry', 'uniform'] as const) {
    const r = headline(variant.key, strategy);
    md.push(
      `| ${STRATEGY_INFO[strategy].label}, analysis | ${percent(r.predHighRejection)} | ` +
        `${percent(r.predLowRejection)} | ` +
        `${percent((GAMMA_HIGH * r.predHighRejection + r.gammaLow * r.predLowRejection) / (GAMMA_HIGH + r.gammaLow))} | ` +
        `${fixed(r.predAttemptsPerRequest)} | | | | |`,
    );
  }
  md.push('');
}

md.push(...comparison());

for (const variant of VARIANTS) {
  md.push(`## The whole sweep, ${variant.short} (${variant.label})`, '');
  const table = (
    title: string,
    cell: (r: Row) => string,
    pred?: { readonly label: string; readonly cell: (r: Row) => string },
  ) => {
    md.push(
      `${title}:`,
      '',
      `| γ_low | ${SUBJECTS.map((s) => STRATEGY_INFO[s].label).join(' | ')}${pred ? ` | ${pred.label}` : ''} |`,
      `| ---: |${' ---: |'.repeat(SUBJECTS.length + (pred ? 1 : 0))}`,
    );
    for (const g of GAMMA_LOWS) {
      const cells = SUBJECTS.map((s) => cell(row(variant.key, s, g)));
      if (pred) cells.push(pred.cell(row(variant.key, 'difftry', g)));
      md.push(`| ${g} | ${cells.join(' | ')} |`);
    }
    md.push('');
  };
  const predBoth = (value: (r: Row) => number, format: (x: number) => string) => ({
    label: 'analysis DiffTry / uniform',
    cell: (r: Row) =>
      `${format(value(r))} / ${format(value(row(r.variant, 'uniform', r.gammaLow)))}`,
  });
  table(
    'High-class end-to-end rejection (%)',
    (r) => plusMinus(100 * r.highRejection, 100 * r.highRejectionCi95, 1),
    predBoth(
      (r) => r.predHighRejection,
      (x) => fixed(100 * x, 1),
    ),
  );
  table(
    'Low-class end-to-end rejection (%)',
    (r) => plusMinus(100 * r.lowRejection, 100 * r.lowRejectionCi95, 1),
    predBoth(
      (r) => r.predLowRejection,
      (x) => fixed(100 * x, 1),
    ),
  );
  table(
    'Attempts per external request, both classes',
    (r) => plusMinus(r.attemptsPerRequest, r.attemptsPerRequestCi95),
    predBoth(
      (r) => r.predAttemptsPerRequest,
      (x) => fixed(x),
    ),
  );
  table('High-class p99 latency (s)', (r) => plusMinus(r.highLatencyP99, r.highLatencyP99Ci95));
  table('Low-class p99 latency (s)', (r) => plusMinus(r.lowLatencyP99, r.lowLatencyP99Ci95));
}

md.push(
  '## Re-creating it',
  '',
  '`npm run strategies` (or `npx tsx scripts/strategies.ts`) rewrites docs/strategies.csv, ' +
    'docs/strategies.svg and this file; progress goes to stderr. The constants at the top of ' +
    'scripts/strategies.ts set the replications, window, seed, sweep and delays. The CLI runs ' +
    'one point of the same network: `difftry simulate --example hotel --strategy class-budget` ' +
    'simulates γ = (50, 250), but with the retry delay of the file (none is set there, so the ' +
    'default: random, mean 100 ms), so its figures need not match either table.',
  '',
  `This run: ${seconds.toFixed(0)} s, ${rows.length * REPLICATIONS} simulation runs ` +
    `(${VARIANTS.length} delays × (${NETWORK_STRATEGIES.length} strategies + ` +
    `${Object.keys(REFERENCES).length} references) × ` +
    `${GAMMA_LOWS.length} loads × ${REPLICATIONS} replications).`,
  '',
);
writeFileSync(new URL('../docs/strategies.md', import.meta.url), md.join('\n'));
process.stderr.write(
  `wrote docs/strategies.csv, docs/strategies.svg and docs/strategies.md in ${seconds.toFixed(1)} s\n`,
);

// ---------------------------------------------------------------------------------------------
// The written comparison: its figures are read from this run.

function comparison(): string[] {
  const G = HEADLINE_GAMMA_LOW;
  const at = (v: Variant['key'], s: Subject, g: number = G) => row(v, s, g);
  const pct = (x: number) => percent(x);
  const span = (xs: readonly number[], scale = 100, digits = 1, unit = ' %') => {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    const f = (x: number) => (scale * x).toFixed(digits);
    return f(lo) === f(hi) ? `${f(lo)}${unit}` : `${f(lo)}–${f(hi)}${unit}`;
  };
  const points = (pick: (g: number) => boolean): readonly number[] => GAMMA_LOWS.filter(pick);
  /** The loads where uniform limits reject more than 1 % of the high class: the overload. */
  const overloaded = points((g) => at('long', 'uniform', g).highRejection > 0.01);
  const range = (gs: readonly number[]) =>
    gs.length === 0
      ? 'no load'
      : gs.length === 1
        ? `γ_low = ${gs[0]}`
        : `γ_low = ${gs[0]}–${gs[gs.length - 1]}`;
  const both = ['long', 'short'] as const;
  const failed: string[] = [];
  const claim = (holds: boolean, what: string) => {
    if (!holds) failed.push(what);
  };
  const everywhere = (test: (v: Variant['key'], g: number) => boolean) =>
    both.every((v) => overloaded.every((g) => test(v, g)));
  /** Share of the frontend's attempts (high class), and of the completions, at `g`. */
  const shares = (v: Variant['key'], s: Subject, g: number = G) => {
    const r = at(v, s, g);
    const highAttempts = GAMMA_HIGH * (1 + r.highFrontendRetries);
    const lowAttempts = g * (1 + r.lowFrontendRetries);
    const highDone = GAMMA_HIGH * (1 - r.highRejection);
    const lowDone = g * (1 - r.lowRejection);
    return {
      attempts: highAttempts / (highAttempts + lowAttempts),
      completions: highDone / (highDone + lowDone),
    };
  };

  const d = (s: Subject, v: Variant['key'] = 'long') => at(v, s);
  const unaware = CLASS_UNAWARE_BUDGETS.map((s) => d(s));
  const allOverall = both.flatMap((v) => SUBJECTS.map((s) => overallRejection(at(v, s))));
  claim(
    Math.max(...allOverall) - Math.min(...allOverall) < 0.01,
    'every strategy rejects the same share of all requests at the heaviest point',
  );
  const shareGap = Math.max(
    ...both.flatMap((v) =>
      SUBJECTS.map((s) => Math.abs(shares(v, s).attempts - shares(v, s).completions)),
    ),
  );
  claim(shareGap < 0.02, 'each class completes its share of the frontend’s attempts');
  claim(
    everywhere((v, g) =>
      [...CLASS_UNAWARE_BUDGETS, 'uniform' as const, 'no-retries' as const].every(
        (s) => at(v, 'difftry', g).highRejection < at(v, s, g).highRejection,
      ),
    ),
    'DiffTry rejects fewer high-class requests than every class-unaware strategy at every overload',
  );
  const unawareGap = Math.max(
    ...both.flatMap((v) =>
      overloaded.flatMap((g) =>
        CLASS_UNAWARE_BUDGETS.flatMap((s) => {
          const r = at(v, s, g);
          const u = at(v, 'uniform', g);
          return [
            Math.abs(r.highRejection - r.lowRejection),
            Math.abs(r.highRejection - u.highRejection),
          ];
        }),
      ),
    ),
  );
  claim(unawareGap < 0.02, 'the class-unaware budgets treat both classes alike, as uniform does');
  const predictionGapOf = (v: Variant['key']) =>
    Math.max(
      ...GAMMA_LOWS.flatMap((g) =>
        (['difftry', 'uniform'] as const).flatMap((s) => {
          const r = at(v, s, g);
          return [
            Math.abs(r.highRejection - r.predHighRejection),
            Math.abs(r.lowRejection - r.predLowRejection),
          ];
        }),
      ),
    );
  const predictionGapLong = predictionGapOf('long');
  const predictionGapShort = predictionGapOf('short');
  claim(predictionGapLong < 0.015, 'the analysis predicts DiffTry and uniform');

  // Mild overload: the first overloaded point.
  const mild = overloaded[0] ?? GAMMA_LOWS[0];
  const mildOverall = (v: Variant['key'], s: Subject) => overallRejection(at(v, s, mild));
  claim(
    mildOverall('long', 'uniform') < mildOverall('long', 'difftry') &&
      mildOverall('long', 'difftry') < mildOverall('long', 'no-retries'),
    'at mild overload with the long delay, uniform limits lose fewest requests overall',
  );
  claim(
    Math.abs(mildOverall('short', 'uniform') - mildOverall('short', 'no-retries')) < 0.005,
    'at mild overload with the short backoff, retries recover nothing overall',
  );

  const budgets = [...CLASS_UNAWARE_BUDGETS, 'class-budget' as const];
  claim(
    both.every((v) =>
      budgets.every((s) => at(v, s).attemptsPerRequest < at(v, 'difftry').attemptsPerRequest),
    ),
    'every budget sends fewer attempts than DiffTry at the heaviest point',
  );
  const sreAbove = points((g) =>
    overloaded.includes(g)
      ? at('long', 'sre-throttle', g).attemptsPerRequest >
        at('long', 'difftry', g).attemptsPerRequest
      : false,
  );
  const steadyBudgets = ['budget-finagle', 'budget-grpc', 'budget-envoy', 'class-budget'] as const;
  const steadyExceptions = both.flatMap((v) =>
    overloaded.flatMap((g) =>
      steadyBudgets
        .filter((s) => at(v, s, g).attemptsPerRequest >= at(v, 'difftry', g).attemptsPerRequest)
        .map(
          (s) =>
            `${STRATEGY_INFO[s].label} at γ_low = ${g}, ${VARIANTS.find((x) => x.key === v)?.short} ` +
            `(${fixed(at(v, s, g).attemptsPerRequest)} against ${fixed(at(v, 'difftry', g).attemptsPerRequest)})`,
        ),
    ),
  );
  claim(
    steadyExceptions.length <= 2,
    'the Finagle, gRPC, Envoy and class-aware budgets send fewer attempts than DiffTry nearly everywhere',
  );
  claim(
    d('budget-grpc').highFrontendRetries < 0.005 && d('budget-grpc').lowFrontendRetries < 0.005,
    'the gRPC throttle is closed at the saturated frontend',
  );
  claim(
    both.every(
      (v) =>
        Math.abs(at(v, 'budget-grpc').attemptsPerRequest - at(v, 'no-retries').attemptsPerRequest) <
          0.02 &&
        Math.abs(at(v, 'budget-grpc').highLatencyP99 - at(v, 'no-retries').highLatencyP99) < 0.05,
    ),
    'the gRPC throttle comes down to no retries at the heaviest point',
  );
  claim(
    both.every((v) =>
      CLASS_UNAWARE_BUDGETS.every((s) => at(v, s).highLatencyP99 < at(v, 'difftry').highLatencyP99),
    ),
    'the class-unaware budgets have a shorter high-class p99 than DiffTry at the heaviest point',
  );
  claim(
    everywhere((v, g) =>
      CLASS_UNAWARE_BUDGETS.every(
        (s) => at(v, s, g).lowRejection < at(v, 'difftry', g).lowRejection,
      ),
    ),
    'the low class fares better under every class-unaware budget than under DiffTry',
  );
  claim(
    everywhere(
      (v, g) => at(v, 'class-budget', g).highRejection <= at(v, 'difftry', g).highRejection,
    ),
    'the class-aware budget protects the high class at least as well as DiffTry (5, 1)',
  );
  claim(
    everywhere(
      (v, g) =>
        at(v, 'class-budget', g).attemptsPerRequest < at(v, 'difftry', g).attemptsPerRequest,
    ),
    'the class-aware budget sends fewer attempts than DiffTry (5, 1) at every overload',
  );
  claim(
    both.every((v) => at(v, 'class-budget').lowFrontendRetries < 0.05),
    'the class-aware budget stops low-class retries at the saturated frontend',
  );
  claim(
    both.every((v) => at(v, 'difftry-5-0').highRejection < at(v, 'class-budget').highRejection),
    'DiffTry (5, 0) protects the high class better than the class-aware budget',
  );
  claim(
    at('short', 'class-budget').highRejection > at('long', 'class-budget').highRejection &&
      at('short', 'difftry-5-0').highFrontendRetries >
        at('long', 'difftry-5-0').highFrontendRetries &&
      Math.abs(
        at('short', 'class-budget').highFrontendRetries -
          at('long', 'class-budget').highFrontendRetries,
      ) < 0.1,
    'the class-aware budget caps the high class’s retries whatever the delay',
  );
  claim(
    Math.abs(
      at('long', 'class-budget', mild).lowRejection - at('long', 'difftry-5-0', mild).lowRejection,
    ) <
      at('long', 'class-budget', mild).lowRejectionCi95 +
        at('long', 'difftry-5-0', mild).lowRejectionCi95,
    'at mild overload the class-aware budget’s low-class retries buy nothing measurable',
  );

  const allowance =
    RATIO_BUDGET_DEFAULTS.minRetriesPerSec +
    RATIO_BUDGET_DEFAULTS.percentCanRetry * (GAMMA_HIGH + G);
  const cb = d('class-budget');
  const cbShort = at('short', 'class-budget');
  const dt = d('difftry');
  const dtShort = at('short', 'difftry');
  const d50 = d('difftry-5-0');
  const d50Short = at('short', 'difftry-5-0');
  const none = d('no-retries');
  const uni = d('uniform');
  const sh = (s: Subject) => shares('long', s);
  const sec = (x: number) => `${fixed(x)} s`;
  const budgetList = (value: (r: Row) => string, v: Variant['key'] = 'long') =>
    CLASS_UNAWARE_BUDGETS.map((s) => `${STRATEGY_INFO[s].label} ${value(at(v, s))}`).join(', ');

  const out: string[] = [
    '## Where DiffTry wins and where a budget does better',
    '',
    'Figures at the heaviest point (γ_low = 250, long delay) unless said otherwise; the tables ' +
      'above and below hold the rest.',
    '',
    '**What no strategy changes.** At γ_low = 250 the frontend is offered 300 requests/s for a ' +
      'capacity of 143. Whatever the clients do, it stays busy and completes about 143 requests/s, ' +
      `so over both classes together every strategy and both references reject ${span(allOverall)} ` +
      'of the requests, with either delay. Retries cannot add capacity: a strategy decides only ' +
      '*whose* requests are among the rejected, and how many wasted attempts and how much waiting ' +
      'it takes. Which class wins is set by the attempt stream: the frontend admits an attempt ' +
      'whatever its class, so each class completes about its share of the attempts that reach the ' +
      `frontend. The high class sends ${pct(sh('no-retries').attempts)} of them with no retries, ` +
      `${pct(sh('uniform').attempts)} under uniform limits, ${pct(sh('difftry').attempts)} under ` +
      `DiffTry and ${pct(sh('class-budget').attempts)} under the class-aware budget, and ` +
      `completes ${pct(sh('no-retries').completions)}, ${pct(sh('uniform').completions)}, ` +
      `${pct(sh('difftry').completions)} and ${pct(sh('class-budget').completions)} of the ` +
      `completions (for every strategy and delay the two shares agree within ` +
      `${(100 * shareGap).toFixed(1)} points).`,
    '',
    '**DiffTry wins: the high class, against uniform limits and every class-unaware budget.** ' +
      `DiffTry rejects ${pct(dt.highRejection)} of the high class, against ` +
      `${pct(uni.highRejection)} under uniform limits and ` +
      `${span(unaware.map((r) => r.highRejection))} under the Finagle, gRPC, Envoy and SRE ` +
      `budgets (the analysis predicts ${pct(dt.predHighRejection)}). Over the sweep its ` +
      'high-class rejection is lower than under uniform limits, every class-unaware budget and ' +
      `no retries at every overloaded point (${range(overloaded)}), with both delays. The four ` +
      'class-unaware budgets do nothing ' +
      'for the high class at any load: at every overloaded point their high- and low-class ' +
      `rejections lie within ${(100 * unawareGap).toFixed(1)} points of each other and of ` +
      `uniform’s, and at γ_low = 250 they equal no retries at all (${pct(none.highRejection)}). ` +
      'The reason: a budget limits how many retries go, not whose. The retries it lets through ' +
      'come from both classes in proportion to their failures, so each class keeps its share of ' +
      'the attempts and with it its share of the completions. DiffTry gives the low class one ' +
      'retry per hop against the high class’s five, so the high class’s share of the attempts ' +
      'rises, and its share of the capacity with it. DiffTry does this with no shared state ' +
      '(fixed limits per class, decided per request), and its outcome can be predicted: the ' +
      'analysis lies within ' +
      `${(100 * predictionGapLong).toFixed(1)} points of the simulated rejections of DiffTry and ` +
      `uniform at every point with the long delay, and within ` +
      `${(100 * predictionGapShort).toFixed(1)} with the short backoff, whose retries it does ` +
      'not model. The budgets have no such model.',
    '',
    '**DiffTry against uniform limits: less load as well.** With the high class’s limit ' +
      `unchanged, DiffTry sends ${fixed(dt.attemptsPerRequest)} attempts per request against ` +
      `${fixed(uni.attemptsPerRequest)}: the low class retries up to once per hop instead of five ` +
      'times. Besides the low class’s fate (below), uniform limits do better than DiffTry at one ' +
      `point: at mild overload with the long delay (γ_low = ${mild}, ρ ≈ 1.05) they lose the ` +
      'fewest requests over both classes ' +
      `(${pct(mildOverall('long', 'uniform'))}, against ${pct(mildOverall('long', 'difftry'))} ` +
      `under DiffTry and ${pct(mildOverall('long', 'no-retries'))} with no retries): a retry ` +
      '2 s later usually outlives the burst that rejected it and finds room. DiffTry gives that ' +
      'up for the low ' +
      `class (${pct(at('long', 'difftry', mild).lowRejection)} against ` +
      `${pct(at('long', 'uniform', mild).lowRejection)}). With the 25 ms backoff the retry lands ` +
      `in the same burst and the gain is gone (${pct(mildOverall('short', 'uniform'))} against ` +
      `${pct(mildOverall('short', 'no-retries'))} with no retries).`,
    '',
    '**A budget does better: load.** At γ_low = 250 every budget sends fewer attempts per ' +
      `request than DiffTry’s ${fixed(dt.attemptsPerRequest)}: ` +
      `${budgetList((r) => fixed(r.attemptsPerRequest))}, class-aware ` +
      `${fixed(cb.attemptsPerRequest)} (no retries: ${fixed(none.attemptsPerRequest)}). At the ` +
      `frontend DiffTry still retries ${fixed(dt.highFrontendRetries)} times per high-class and ` +
      `${fixed(dt.lowFrontendRetries)} per low-class request, because its limits are fixed: ` +
      'however overloaded, each request may use its k retries at every hop. The budgets tie ' +
      'retries to what they see. Finagle allows 20 % of the last 10 s’s requests plus 10 ' +
      `retries/s, ${fixed(d('budget-finagle').highFrontendRetries)} retries per request at the ` +
      'frontend. The gRPC throttle loses a token per failed attempt and regains 0.1 per success, ' +
      'and retries only above half its tokens, so at a frontend that rejects about half the ' +
      `attempts it stays closed (${fixed(d('budget-grpc').highFrontendRetries)} retries per ` +
      'request): there the gRPC throttle is the same as no retries, in rejection, attempts and ' +
      'latency. Envoy limits retries in flight to max(3, 20 % of active requests); a retry is in ' +
      'flight for its whole delay, so with 2 s delays few fit ' +
      `(${fixed(d('budget-envoy').highFrontendRetries)} per request), with the 25 ms backoff ` +
      `more (${fixed(at('short', 'budget-envoy').highFrontendRetries)}). The SRE throttle (K = 2) ` +
      'refuses retries only once fewer than half the attempts are accepted, so it lets ' +
      `${fixed(d('sre-throttle').highFrontendRetries)} retries per request through at the ` +
      'frontend and, at moderate overload, more attempts than DiffTry ' +
      `(${sreAbove.length > 0 ? range(sreAbove) : 'nowhere'} with the long delay). The Finagle, ` +
      'gRPC, Envoy and class-aware budgets send fewer attempts than DiffTry at every overloaded ' +
      'point with both delays' +
      (steadyExceptions.length === 0 ? '.' : `, except ${steadyExceptions.join(' and ')}.`),
    '',
    '**A budget does better: the tail latency of what completes.** The high class’s p99 under ' +
      `DiffTry is ${sec(dt.highLatencyP99)}, against ${budgetList((r) => sec(r.highLatencyP99))} ` +
      `and ${sec(none.highLatencyP99)} with no retries (uniform: ${sec(uni.highLatencyP99)}). ` +
      'Read it with the rejections: only completed requests have a latency, and a completed ' +
      'high-class request under DiffTry is often one that waited through several 2 s retry ' +
      'delays — the very requests a budget rejects instead. Fewer retries buy a shorter tail ' +
      'with more rejections. With the 25 ms backoff the gap is small: ' +
      `${sec(dtShort.highLatencyP99)} for DiffTry against ` +
      `${span(
        CLASS_UNAWARE_BUDGETS.map((s) => at('short', s).highLatencyP99),
        1,
        2,
        ' s',
      )} for the class-unaware budgets.`,
    '',
    '**A budget does better: the low class.** The frontend’s capacity is fixed, so what the high ' +
      'class gains the low class loses: the low class is rejected ' +
      `${pct(dt.lowRejection)} under DiffTry against ` +
      `${span(unaware.map((r) => r.lowRejection))} under the class-unaware budgets, and more ` +
      'under DiffTry at every overloaded point with both delays. If the classes are not of ' +
      'different value, a budget is the better choice on these figures: the same total ' +
      'rejection, fewer attempts, a shorter tail.',
    '',
    '**The class-aware budget beats DiffTry (5, 1) at its own game here.** It rejects ' +
      `${pct(cb.highRejection)} of the high class (${pct(cbShort.highRejection)} with the short ` +
      `backoff) against DiffTry’s ${pct(dt.highRejection)} (${pct(dtShort.highRejection)}), ` +
      `with ${fixed(cb.attemptsPerRequest)} attempts per request against ` +
      `${fixed(dt.attemptsPerRequest)}; its low class pays a little more ` +
      `(${pct(cb.lowRejection)} against ${pct(dt.lowRejection)}). At every overloaded point and ` +
      'with both delays it protects the high class at least as well as DiffTry, with fewer ' +
      'attempts. The mechanism: one allowance per hop, of which the low class may spend only ' +
      `the first half. At the frontend the allowance is ${fixed(allowance, 0)} retries/s ` +
      `(${RATIO_BUDGET_DEFAULTS.minRetriesPerSec}/s plus ` +
      `${100 * RATIO_BUDGET_DEFAULTS.percentCanRetry} % of ${GAMMA_HIGH + G} requests/s), ` +
      `${fixed(allowance / GAMMA_HIGH)} per high-class request; the high class’s retries ` +
      `(${fixed(cb.highFrontendRetries)} per request) spend nearly all of it, so the low class ` +
      `retries ${fixed(cb.lowFrontendRetries)} times per request there: under saturation the ` +
      'budget switches low-class retries off, where DiffTry (5, 1) still allows one ' +
      `(${fixed(dt.lowFrontendRetries)} per request). The high class retries less than under ` +
      `DiffTry (${fixed(cb.highFrontendRetries)} against ${fixed(dt.highFrontendRetries)} per ` +
      'request) but competes with far fewer low-class attempts.',
    '',
    '**…and DiffTry (5, 0) beats the class-aware budget.** The edge comes from the low class’s ' +
      'limit, not from the budget: DiffTry with k = (5, 0), the reference row, rejects ' +
      `${pct(d50.highRejection)} of the high class (${pct(d50Short.highRejection)} with the ` +
      `short backoff) and ${pct(d50.lowRejection)} of the low, with ` +
      `${fixed(d50.attemptsPerRequest)} attempts per request and no shared state. The budget ` +
      'caps the high class’s retries too, at its allowance: with the short backoff it retries ' +
      `about as often as with the long delay (${fixed(cbShort.highFrontendRetries)} against ` +
      `${fixed(cb.highFrontendRetries)} per request at the frontend) but rejects more ` +
      `(${pct(cbShort.highRejection)} against ${pct(cb.highRejection)}), while DiffTry (5, 0) ` +
      `retries more (${fixed(d50Short.highFrontendRetries)} against ` +
      `${fixed(d50.highFrontendRetries)}) and loses less; fast retries likely land while the ` +
      'queue that rejected them is still full, and the budget cannot make up for them. What ' +
      'k = (5, 0) gives up is every low-class retry. The class-aware budget lets some through as ' +
      `the overload eases (${fixed(at('long', 'class-budget', mild).lowFrontendRetries)} per ` +
      `request at γ_low = ${mild}), but on these figures that buys the low class nothing ` +
      `measurable: ${pct(at('long', 'class-budget', mild).lowRejection)} against ` +
      `${pct(at('long', 'difftry-5-0', mild).lowRejection)} under DiffTry (5, 0) there ` +
      `(${pct(at('long', 'difftry', mild).lowRejection)} under DiffTry (5, 1)).`,
    '',
    '**In short.** DiffTry wins on the high class’s rejection against uniform limits and against ' +
      'every class-unaware budget (Finagle, gRPC, Envoy, SRE), at every overloaded point and with both ' +
      'delays, and it is the one strategy here whose figures the analysis predicts. The budgets ' +
      'win on load (attempts per request), on the tail latency of completed requests and on the ' +
      'low class’s fate; at saturation the gRPC throttle comes down to no retries at all, and ' +
      'Envoy’s budget with the long delay nearly so. The class-aware budget takes the best of ' +
      'both on these ' +
      'figures — more protection for the high class than DiffTry (5, 1), with fewer attempts — ' +
      'and DiffTry does better still only by turning the low class’s retries off, k = (5, 0).',
    '',
    '**What these figures do not show.** One budget per hop stands for a single client instance ' +
      'per service; with n instances each has its own reserve (Finagle’s 10 retries/s, Envoy’s 3 ' +
      'retries in flight), so the budgets get looser as a service scales out, while DiffTry’s ' +
      'limits do not depend on it. The budgets run with their default options; other options ' +
      'move them along the load/latency trade-off. The overload here is steady Poisson traffic ' +
      'at one bottleneck; retry budgets were designed against retry storms after transient ' +
      'failures, which this sweep does not test. Latencies are dominated by the retry delays.',
    '',
  ];
  if (failed.length > 0) {
    process.stderr.write(
      `warning: the written comparison claims what this run does not show:\n  ${failed.join('\n  ')}\n` +
        'revise comparison() in scripts/strategies.ts\n',
    );
    out.push(
      '> **Check failed on this run** — the text above claims what these figures do not show: ' +
        `${failed.join('; ')}. Revise \`comparison()\` in scripts/strategies.ts.`,
      '',
    );
  }
  return out;
}
