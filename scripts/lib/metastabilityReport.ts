/**
 * Writes docs/metastability.* from a {@link MetastabilityResult}: the Markdown page, the CSV of
 * every simulated window and of the analysis's branches, and three charts. Pure: the same result
 * gives the same bytes. Every number in the text is read from the result, and every qualitative
 * sentence is chosen by the numbers it states (a run that no longer shows the storm staying is
 * not described as one that does).
 */

import { csvLine } from '../../src/report/csv.js';
import { fixed, percent, percentPlusMinus, plusMinus } from '../../src/report/numberFormat.js';
import {
  type ChartPanel,
  type ChartSeries,
  type PanelChart,
  panelChartSvg,
} from '../../src/report/panelChart.js';
import type { ChartPoint } from '../../src/report/seriesMarks.js';
import type { MeanWithCi95 } from '../../src/stats/confidence.js';
import {
  type Branches,
  CLASSES,
  type ClassName,
  type EquilibriumFigures,
  LIMITS,
  LIMITS_KEYS,
  type LimitsKey,
  type LoopRun,
  type MetastabilityConfig,
  type MetastabilityResult,
  type MonostableGrid,
  type PointAnalysis,
  type TriggeredRun,
} from './metastabilityExperiment.js';
import { HEALTHY_BELOW, STORM_ABOVE } from './stormWindows.js';

/** What the page says about how it was made. */
export interface ReportContext {
  /** Wall-clock seconds of the run. */
  readonly seconds: number;
  /** The command that re-creates the page. */
  readonly command: string;
}

/** File name (under docs/) → contents. */
export type ReportFiles = Readonly<Record<string, string>>;

const COLORS = { high: '#1f77b4', low: '#ff7f0e' } as const;
const LIMIT_COLORS: Record<LimitsKey, string> = { uniform: '#d62728', difftry: '#2ca02c' };

/** The page, its CSV files and its charts. */
export function renderMetastability(
  result: MetastabilityResult,
  config: MetastabilityConfig,
  context: ReportContext,
): ReportFiles {
  return {
    'metastability.md': markdown(result, config, context),
    'metastability.csv': windowsCsv(result),
    'metastability-branches.csv': branchesCsv(result),
    'metastability.svg': dropChart(result, config),
    'metastability-loop.svg': loopChart(result, config.replications, config.seed),
    'metastability-hotel.svg': hotelChart(result, config),
  };
}

// ---------------------------------------------------------------------------------------------
// Formatting.

const pmText = (m: MeanWithCi95, digits = 1) => plusMinus(m.mean, m.ci95, digits);
const pctPm = (m: MeanWithCi95) => percentPlusMinus(m.mean, m.ci95);
const rate = (x: number | undefined) => (x === undefined ? '—' : fixed(x, 1));
const kText = (limits: LimitsKey) => {
  const { high, low } = LIMITS[limits].retries;
  return `(${high}, ${low})`;
};

function equilibriumText(e: EquilibriumFigures): string {
  return `${e.kind} (high ${percent(e.rejection.high)}, low ${percent(e.rejection.low)}; ${fixed(e.attemptsPerRequest)} attempts per request, ρ = ${fixed(e.entryRho)})`;
}

/** The analysis at a load in a line: `bistable: healthy (…); storm (…)` or `one state: …`. */
function analysisText(a: PointAnalysis): string {
  return `${a.bistable ? 'bistable' : 'one state'}: ${a.equilibria.map(equilibriumText).join('; ')}`;
}

function verdict(a: PointAnalysis): string {
  if (a.bistable) return 'bistable';
  const [only] = a.equilibria;
  return only === undefined ? 'n/a' : `one state, ${only.kind}`;
}

const storm = (a: PointAnalysis) => a.equilibria.find((e) => e.kind === 'storm');
const healthy = (a: PointAnalysis) => a.equilibria.find((e) => e.kind === 'healthy');

/** Attempts per second a storm would offer (every attempt failing): Σ γ_p (1 + k_p). */
function stormAttempts(result: MetastabilityResult, limits: LimitsKey, total: number): number {
  const { high, low } = result.singleClassRates;
  const share = total / (high + low);
  const k = LIMITS[limits].retries;
  return share * (high * (1 + k.high) + low * (1 + k.low));
}

// ---------------------------------------------------------------------------------------------
// CSV.

function windowsCsv(result: MetastabilityResult): string {
  const header = [
    'panel',
    'run',
    'k',
    'timeoutMs',
    'trigger',
    'start',
    'end',
    'offeredRate',
    'class',
    'rejection',
    'rejectionCi95',
    'attemptsPerRequest',
    'attemptsPerRequestCi95',
    'timeouts',
    'timeoutsCi95',
  ];
  const lines = [header.join(',')];
  const add = (
    panel: string,
    run: string,
    limits: LimitsKey,
    timeoutMs: number,
    trigger: string,
    windows: TriggeredRun['simulated']['windows'],
    offered: readonly number[],
  ) => {
    windows.forEach((w, i) => {
      for (const c of CLASSES) {
        const f = w.classes[c];
        if (f === undefined) continue;
        lines.push(
          csvLine([
            panel,
            run,
            kText(limits),
            timeoutMs,
            trigger,
            w.start,
            w.end,
            offered[i] ?? Number.NaN,
            c,
            f.rejection,
            f.rejectionCi95,
            f.attemptsPerRequest,
            f.attemptsPerRequestCi95,
            f.timeouts,
            f.timeoutsCi95,
          ]),
        );
      }
    });
  };
  const triggerText = (run: TriggeredRun) =>
    run.trigger === undefined
      ? 'none'
      : `${run.trigger.service} x ${run.trigger.factor} from ${run.trigger.at} to ${run.trigger.until} s`;
  for (const [key, run] of Object.entries(result.drops)) {
    add(
      run.limits === 'uniform' ? 'a' : 'b',
      key,
      run.limits,
      run.timeoutMs,
      triggerText(run),
      run.simulated.windows,
      run.offeredRates,
    );
  }
  for (const loop of result.loops) {
    add(
      'c',
      `loop-${loop.limits}`,
      loop.limits,
      100,
      'ramp',
      loop.simulated.windows,
      loop.offeredRates,
    );
  }
  for (const { trigger, control } of result.hotelRuns) {
    for (const [name, run] of [
      ['trigger', trigger],
      ['control', control],
    ] as const) {
      add(
        'd',
        `hotel-T${run.timeoutMs}-${run.limits}-${name}`,
        run.limits,
        run.timeoutMs,
        triggerText(run),
        run.simulated.windows,
        run.offeredRates,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function branchesCsv(result: MetastabilityResult): string {
  const lines = ['network,k,timeoutMs,parameter,value,branch,class,rejection,tipping,recovery'];
  const add = (
    network: string,
    limits: LimitsKey,
    timeoutMs: number,
    parameter: string,
    b: Branches,
  ) => {
    for (const point of b.points) {
      for (const branch of ['healthy', 'storm'] as const) {
        const values = point[branch];
        if (values === undefined) continue;
        for (const c of CLASSES) {
          lines.push(
            csvLine([
              network,
              kText(limits),
              timeoutMs,
              parameter,
              point.value,
              branch,
              c,
              values[c],
              b.tipping ?? Number.NaN,
              b.recovery ?? Number.NaN,
            ]),
          );
        }
      }
    }
  };
  for (const loop of result.loops)
    add('metastable-classes', loop.limits, 100, 'offeredRate', loop.branches);
  for (const h of result.hotelAnalyses)
    add('hotel-calls', h.limits, h.timeoutMs, 'frontend.low', h.branches);
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Charts.

function timeTicks(duration: number): number[] {
  const step = duration <= 120 ? 20 : 50;
  return Array.from({ length: Math.floor(duration / step) + 1 }, (_, i) => i * step);
}

const classSeries: ChartSeries[] = [
  { key: 'high', label: 'high class, simulated (95 % bars)', color: COLORS.high, marker: 'none' },
  {
    key: 'low',
    label: 'low class, simulated (95 % bars)',
    color: COLORS.low,
    dash: '5 3',
    marker: 'none',
  },
  {
    key: 'healthy',
    label: 'analysis: healthy equilibrium (high class)',
    color: '#2ca02c',
    dash: '2 3',
    strokeWidth: 1.5,
    marker: 'none',
  },
  {
    key: 'storm',
    label: 'analysis: storm equilibrium (high class)',
    color: '#d62728',
    dash: '2 3',
    strokeWidth: 1.5,
    marker: 'none',
  },
];

/** Window rejection of each class over time, the trigger shaded, the analysis's levels dotted. */
function runPanel(title: string, run: TriggeredRun, duration: number): ChartPanel {
  const level = (e: EquilibriumFigures | undefined, key: string) =>
    e === undefined
      ? []
      : [
          {
            series: key,
            points: [
              { x: 0, y: e.rejection.high },
              { x: duration, y: e.rejection.high },
            ],
          },
        ];
  return {
    title,
    xLabel: 't (s)',
    yLabel: 'window rejection',
    yMax: 1,
    xTicks: timeTicks(duration),
    bands:
      run.trigger === undefined
        ? []
        : [{ from: run.trigger.at, to: run.trigger.until, label: `μ × ${run.trigger.factor}` }],
    lines: [
      ...level(healthy(run.analysis), 'healthy'),
      ...level(storm(run.analysis), 'storm'),
      ...CLASSES.map((c) => ({
        series: c,
        points: run.simulated.windows.map(
          (w): ChartPoint => ({
            x: (w.start + w.end) / 2,
            y: w.classes[c]?.rejection ?? Number.NaN,
            ci95: w.classes[c]?.rejectionCi95 ?? Number.NaN,
          }),
        ),
      })),
    ],
  };
}

function dropChart(result: MetastabilityResult, config: MetastabilityConfig): string {
  const d = result.drops;
  const duration = config.dropRun.duration;
  return rejectionChartSvg({
    title: 'One service, per-try timeout 100 ms: a ten-second capacity drop',
    columns: 3,
    series: classSeries,
    panels: [
      runPanel(
        `(a) uniform ${kText('uniform')}, ${d.uniform.analysis.offeredRate} requests/s`,
        d.uniform,
        duration,
      ),
      runPanel(
        `(a) uniform ${kText('uniform')}, ${d['uniform-light'].analysis.offeredRate} requests/s`,
        d['uniform-light'],
        duration,
      ),
      runPanel(
        `(b) DiffTry ${kText('difftry')}, ${d.difftry.analysis.offeredRate} requests/s`,
        d.difftry,
        duration,
      ),
    ],
    notes: [
      `examples/metastable-classes.yaml (μ = ${result.singleCapacity}, m = 50, γ high : low = ${result.singleClassRates.high} : ${result.singleClassRates.low}); shaded: capacity × ${d.uniform.trigger?.factor ?? 'n/a'} (examples/capacity-drop.yaml).`,
      `${config.replications} replications × ${duration} s, windows of ${config.dropRun.windowSeconds} s, seed ${config.seed}; lines: the mean over replications, bars: its 95 % half-width.`,
    ],
  });
}

/**
 * The page's charts: fractions on every y axis, each panel with its own time or load axis, the
 * markers smaller and the x axis unruled so that the shaded trigger and the dense windows read.
 */
function rejectionChartSvg(chart: Omit<PanelChart, 'layout'>): string {
  return panelChartSvg({
    ...chart,
    layout: {
      panelWidth: 300,
      legendColumns: Math.max(1, Math.min(2, chart.columns)),
      legendEntryWidth: 330,
      marker: { radius: 3, outline: 1.5 },
      errorBarWidth: 1,
      xGrid: false,
    },
  });
}

function loopPanel(loop: LoopRun, turn: number, windows: readonly { end: number }[]): ChartPanel {
  const pts = loop.branches.points;
  const healthyLine = pts
    .filter((p) => p.healthy !== undefined)
    .map((p) => ({ x: p.value, y: p.healthy?.high ?? Number.NaN }));
  const stormLine = pts
    .filter((p) => p.storm !== undefined)
    .map((p) => ({ x: p.value, y: p.storm?.high ?? Number.NaN }));
  const folds: { series: string; points: ChartPoint[] }[] = [];
  const lastHealthy = healthyLine[healthyLine.length - 1];
  const firstStorm = stormLine[0];
  if (loop.branches.tipping !== undefined && lastHealthy !== undefined) {
    const above = stormLine.find((p) => p.x >= (loop.branches.tipping ?? 0));
    folds.push({
      series: 'fold',
      points: [
        { x: loop.branches.tipping, y: lastHealthy.y },
        { x: loop.branches.tipping, y: above?.y ?? 1 },
      ],
    });
  }
  if (loop.branches.recovery !== undefined && firstStorm !== undefined) {
    const below = healthyLine.filter((p) => p.x <= (loop.branches.recovery ?? 0)).pop();
    folds.push({
      series: 'fold',
      points: [
        { x: loop.branches.recovery, y: firstStorm.y },
        { x: loop.branches.recovery, y: below?.y ?? 0 },
      ],
    });
  }
  const simulated = (up: boolean) =>
    loop.simulated.windows
      .map((w, i) => ({ w, i }))
      .filter(({ i }) => (windows[i]?.end ?? 0) <= turn === up)
      .map(
        ({ w, i }): ChartPoint => ({
          x: loop.offeredRates[i] ?? Number.NaN,
          y: w.classes.high?.rejection ?? Number.NaN,
          ci95: w.classes.high?.rejectionCi95 ?? Number.NaN,
        }),
      );
  return {
    title: `(c) ${LIMITS[loop.limits].label}`,
    xLabel: 'offered load (requests/s, all classes)',
    yLabel: 'high-class rejection',
    yMax: 1,
    xTicks: [10, 20, 30, 40, 50, 60, 70, 80],
    lines: [
      { series: 'healthy-branch', points: healthyLine },
      { series: 'storm-branch', points: stormLine },
      ...folds,
      { series: 'up', points: simulated(true), connect: false },
      { series: 'down', points: simulated(false), connect: false },
    ],
  };
}

function loopChart(result: MetastabilityResult, replications: number, seed: number): string {
  const [first] = result.loops;
  const turn = first === undefined ? 0 : turnOf(first);
  return rejectionChartSvg({
    title: 'The hysteresis loop: a ramp up then down beside the two branches',
    columns: 2,
    series: [
      {
        key: 'healthy-branch',
        label: 'analysis: healthy branch',
        color: '#2ca02c',
        marker: 'none',
      },
      { key: 'storm-branch', label: 'analysis: storm branch', color: '#d62728', marker: 'none' },
      {
        key: 'fold',
        label: 'analysis: end of a branch (tipping, recovery)',
        color: '#777777',
        dash: '3 3',
        strokeWidth: 1.2,
        marker: 'none',
      },
      { key: 'up', label: 'simulated window, load rising', color: COLORS.high, marker: 'triangle' },
      { key: 'down', label: 'simulated window, load falling', color: COLORS.low, marker: 'square' },
    ],
    panels: result.loops.map((loop) => loopPanel(loop, turn, loop.simulated.windows)),
    notes: [
      'examples/metastable-classes.yaml under examples/load-loop.yaml: arrivals × 0.25 → × 2 → × 0.25 over 600 s.',
      `Markers: the mean over ${replications} replications (seed ${seed}) of a window at its offered load; bars: its 95 % half-width.`,
      'Lines: sweepEquilibria along the total offered rate, the class mix fixed.',
    ],
  });
}

/** When a loop's ramp turns: the end of the window with the highest offered rate. */
function turnOf(loop: LoopRun): number {
  let best = 0;
  loop.offeredRates.forEach((r, i) => {
    if (r > (loop.offeredRates[best] ?? -1)) best = i;
  });
  return loop.simulated.windows[best]?.end ?? 0;
}

function hotelChart(result: MetastabilityResult, config: MetastabilityConfig): string {
  const duration = config.hotelRun.duration;
  const series: ChartSeries[] = LIMITS_KEYS.flatMap((limits): ChartSeries[] => [
    {
      key: `${limits}-sim`,
      label: `${LIMITS[limits].label}: high class, simulated`,
      color: LIMIT_COLORS[limits],
      marker: 'none',
    },
    {
      key: `${limits}-storm`,
      label: `${LIMITS[limits].label}: analysis's storm (high class)`,
      color: LIMIT_COLORS[limits],
      dash: '2 3',
      strokeWidth: 1.5,
      marker: 'none',
    },
  ]);
  const panels = config.hotelSimulatedTimeoutsMs.map((timeoutMs): ChartPanel => {
    const runs = result.hotelRuns.filter((r) => r.trigger.timeoutMs === timeoutMs);
    const trigger = runs[0]?.trigger.trigger;
    return {
      title: `(d) per-try timeout ${timeoutMs} ms`,
      xLabel: 't (s)',
      yLabel: 'high-class window rejection',
      yMax: 1,
      xTicks: timeTicks(duration),
      bands:
        trigger === undefined
          ? []
          : [{ from: trigger.at, to: trigger.until, label: `frontend μ × ${trigger.factor}` }],
      lines: runs.flatMap(({ trigger: run }) => {
        const s = storm(run.analysis);
        return [
          ...(s === undefined
            ? []
            : [
                {
                  series: `${run.limits}-storm`,
                  points: [
                    { x: 0, y: s.rejection.high },
                    { x: duration, y: s.rejection.high },
                  ],
                },
              ]),
          {
            series: `${run.limits}-sim`,
            points: run.simulated.windows.map(
              (w): ChartPoint => ({
                x: (w.start + w.end) / 2,
                y: w.classes.high?.rejection ?? Number.NaN,
                ci95: w.classes.high?.rejectionCi95 ?? Number.NaN,
              }),
            ),
          },
        ];
      }),
    };
  });
  return rejectionChartSvg({
    title: `hotelReservation (call graph), γ = (${result.hotelRates.high}, ${result.hotelRates.low}), per-try timeouts at every hop`,
    columns: panels.length,
    series,
    panels,
    notes: [
      `builtinExample('hotel-calls') under examples/hotel-frontend-drop.yaml (low × 0.1; frontend capacity × 0.3 on the shaded stretch); ${config.replications} replications × ${duration} s,`,
      `windows of ${config.hotelRun.windowSeconds} s, seed ${config.seed}; lines: the mean over replications, bars: its 95 % half-width; dotted: the storm equilibrium's rejection.`,
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// Markdown.

function recoveryText(run: TriggeredRun, c: ClassName): string {
  const s = run.summary[c];
  if (s.stormAtEnd === s.replications) {
    return `in the storm at the end of all ${s.replications} replications`;
  }
  if (s.recovered === s.replications) {
    return `recovered in all ${s.replications} replications, ${pmText(s.recoverySeconds)} s after capacity returned`;
  }
  return `recovered in ${s.recovered} of ${s.replications} replications (${pmText(s.recoverySeconds)} s after capacity returned, of those), in the storm at the end in ${s.stormAtEnd}`;
}

/** What both classes did after the trigger, in one clause when they did the same. */
function bothClasses(run: TriggeredRun): string {
  const [high, low] = [recoveryText(run, 'high'), recoveryText(run, 'low')];
  return high === low
    ? `both classes ${verb(high)}`
    : `the high class ${verb(high)}, the low class ${verb(low)}`;
}

/** `in the storm …` reads as `are/is in the storm …`; `recovered …` as is. */
function verb(text: string): string {
  return text.startsWith('in ') ? `were ${text}` : text;
}

function lastWindowFigures(run: TriggeredRun, service: string): string {
  const w = run.simulated.windows[run.simulated.windows.length - 1];
  if (w === undefined) return 'n/a';
  const high = w.classes.high;
  const svc = w.services[service];
  return `${fixed(high?.attemptsPerRequest ?? Number.NaN)} attempts per request, ${service} ρ = ${fixed(svc?.rho ?? Number.NaN)}, ${fixed(svc?.timeouts ?? Number.NaN, 0)} timeouts/s, ${fixed(svc?.inSystem ?? Number.NaN, 0)} requests in ${service}`;
}

function gridTable(grid: MonostableGrid): string[] {
  const size = grid.storms.length;
  const lines = [
    `| k_high \\ k_low | ${Array.from({ length: size }, (_, i) => i).join(' | ')} |`,
    `| :--- | ${Array.from({ length: size }, () => ':---:').join(' | ')} |`,
  ];
  grid.storms.forEach((row, high) => {
    lines.push(
      `| ${high} | ${row.map((storms) => (Number.isFinite(storms) ? (storms > 0 ? 'storm' : '·') : 'n/a')).join(' | ')} |`,
    );
  });
  return lines;
}

/** Where a grid gains a storm with fewer retries: a storm at (h, l) but none at (h, l + 1) or (h + 1, l). */
function nonMonotoneCells(grid: MonostableGrid): string[] {
  const out: string[] = [];
  grid.storms.forEach((row, high) => {
    row.forEach((storms, low) => {
      if (!(storms > 0)) return;
      const more = [
        [high, low + 1],
        [high + 1, low],
      ].filter(([h, l]) => grid.storms[h as number]?.[l as number] === 0);
      for (const [h, l] of more) out.push(`a storm at (${high}, ${low}), none at (${h}, ${l})`);
    });
  });
  return out;
}

/** The cells of a grid without a storm, as `(k_high, k_low)` pairs. */
function monostableCells(grid: MonostableGrid): string {
  const cells: string[] = [];
  grid.storms.forEach((row, high) => {
    row.forEach((storms, low) => {
      if (storms === 0) cells.push(`(${high}, ${low})`);
    });
  });
  return cells.join(', ');
}

function markdown(
  result: MetastabilityResult,
  config: MetastabilityConfig,
  context: ReportContext,
): string {
  const d = result.drops;
  const loop = (limits: LimitsKey) => result.loops.find((l) => l.limits === limits);
  const uLoop = loop('uniform');
  const dLoop = loop('difftry');
  const R = config.replications;
  const mu = result.singleCapacity;
  const uStorm = storm(d.uniform.analysis);
  const md: string[] = [];
  const p = (...lines: string[]) => md.push(lines.join(' '), '');

  md.push('# Metastable failures: the simulator shows the hysteresis', '');
  p(
    `Generated by \`${context.command}\` (scripts/metastability.ts); do not edit by hand.`,
    'Charts: [metastability.svg](metastability.svg) (a, b), [metastability-loop.svg](metastability-loop.svg) (c),',
    '[metastability-hotel.svg](metastability-hotel.svg) (d); every simulated window is in',
    "[metastability.csv](metastability.csv) and every point of the analysis's branches in",
    '[metastability-branches.csv](metastability-branches.csv).',
  );

  md.push('## The mechanism', '');
  p(
    'A metastable failure is a bad state that a trigger starts and that keeps itself going after the',
    'trigger is gone (Bronson et al., "Metastable Failures in Distributed Systems", HotOS 2021; Huang',
    'et al., "Metastable Failures in the Wild", OSDI 2022, where retries are among the most common',
    'sustaining effects). Here the sustaining effect is a per-try timeout with retries. A client abandons an',
    'attempt after T and retries it, but the server does not know: the abandoned attempt keeps its',
    'place in the queue and is served, for nobody. While the queue is short, waits stay under T, hardly',
    'any attempt times out and a request costs one attempt. Once the queue is long enough that the wait',
    'exceeds T, every attempt times out, every request makes all its 1 + k attempts, and the work',
    'offered is Σ γ_p (1 + k_p) attempts per second; while that exceeds the capacity μ the queue stays',
    'full, the waits stay above T, and almost nothing completes, even at a load the service carries',
    'easily when healthy. So one load has **two stable states**, a healthy one and a retry storm, and',
    'which one the service is in depends on its history: a trigger (here a ten-second capacity drop)',
    'moves it from the first to the second, and removing the trigger does not move it back.',
  );
  p(
    'The analysis (the per-try timeout law of [model.md](model.md); `analyzeNetwork` and',
    '`sweepEquilibria`) finds both states: the healthy one from an idle start with the load raised',
    'from zero, the storm from saturation. Followed along the load, the healthy branch ends at the',
    '**tipping** load and the storm branch at the **recovery** load; between them the configuration is',
    'bistable. The simulator (`simulateNetwork` with a load schedule and windows, per-try timeouts',
    "through the runtime's own retry policy) shows what a service does there.",
  );

  md.push('## The network and what the analysis predicts', '');
  const { high: gh, low: gl } = result.singleClassRates;
  p(
    `[examples/metastable-classes.yaml](../examples/metastable-classes.yaml): one service, μ = ${mu}`,
    `requests/s, m = 50, a high class at ${gh} and a low class at ${gl} requests/s (ρ =`,
    `${fixed(result.singleRate / mu)}), a per-try timeout of ${d.uniform.timeoutMs} ms and five retries for both classes (uniform, k =`,
    `${kText('uniform')}); DiffTry is the same file with \`--retries low=1\`, k = ${kText('difftry')}. Retry`,
    "delays are the simulator's default (random, mean 100 ms). The trigger is",
    '[examples/capacity-drop.yaml](../examples/capacity-drop.yaml): the capacity × 0.3 on [100 s, 110 s).',
  );
  md.push(
    '| k | load (requests/s) | the analysis at this load | tipping (requests/s) | recovery (requests/s) |',
    '| :--- | ---: | :--- | ---: | ---: |',
  );
  for (const [key, run] of Object.entries(d) as [keyof typeof d, TriggeredRun][]) {
    const l = loop(run.limits);
    md.push(
      `| ${LIMITS[run.limits].label}${key === 'uniform-light' ? ' (a, light)' : ''} | ${run.analysis.offeredRate} | ${analysisText(run.analysis)} | ${rate(l?.branches.tipping)} | ${rate(l?.branches.recovery)} |`,
    );
  }
  md.push('');
  const uRecovery = uLoop?.branches.recovery ?? Number.NaN;
  const dRecovery = dLoop?.branches.recovery ?? Number.NaN;
  p(
    'Tipping and recovery are the ends of the two branches along the total offered rate with the',
    `class mix fixed (${gh} : ${gl}). A storm offers Σ γ_p (1 + k_p) attempts per second: at ${result.singleRate} requests/s`,
    `that is ${fixed(stormAttempts(result, 'uniform', result.singleRate), 0)}/s under uniform retries (ρ = ${fixed(uStorm?.entryRho ?? Number.NaN)} in the storm) but`,
    `${fixed(stormAttempts(result, 'difftry', result.singleRate), 0)}/s under DiffTry, not enough to keep the queue full, so DiffTry has no storm here. Both storms end`,
    `where that work falls to about 1.1 μ: ${fixed(stormAttempts(result, 'uniform', uRecovery), 0)}/s at the uniform recovery point (${rate(uRecovery)} requests/s),`,
    `${fixed(stormAttempts(result, 'difftry', dRecovery), 0)}/s at DiffTry's (${rate(dRecovery)} requests/s). DiffTry moves the recovery point up by`,
    `${fixed(dRecovery - uRecovery, 1)} requests/s and leaves the tipping point where it was (${rate(uLoop?.branches.tipping)} → ${rate(dLoop?.branches.tipping)}): retries`,
    'hardly happen in the healthy state, so limits do not move its end; they set how much work a storm',
    'can feed itself.',
  );
  const single = result.monostable[0];
  if (single !== undefined) {
    p(
      `Which limits leave no storm at ${result.singleRate} requests/s (\`tuneRetryLimits\` with the constraint`,
      '`monostable`, i.e. `difftry tune examples/metastable-classes.yaml --constraint monostable`); · is',
      'monostable, storm means the analysis finds a retry-storm equilibrium:',
    );
    md.push(...gridTable(single), '');
  }

  md.push('## (a) Uniform retries: the drop tips the service into a storm that stays', '');
  md.push('![(a) and (b): a capacity drop](metastability.svg)', '');
  const u = d.uniform;
  const light = d['uniform-light'];
  p(
    `Simulated, ${R} replications × ${config.dropRun.duration} s, windows of ${config.dropRun.windowSeconds} s, seed ${config.seed}.`,
    ownTipsText(u, R),
    `**At ${u.analysis.offeredRate} requests/s** (bistable) ${bothClasses(u)}; the rejection over the last ${config.dropRun.tailSeconds} s is ${pctPm(u.summary.high.tailRejection)}`,
    `(high) and ${pctPm(u.summary.low.tailRejection)} (low), against the analysis's storm at`,
    `${percent(uStorm?.rejection.high ?? Number.NaN)}. In the last window: ${lastWindowFigures(u, 'api')}`,
    `(the analysis's storm: ${fixed(uStorm?.attemptsPerRequest ?? Number.NaN)} attempts per request, ρ = ${fixed(uStorm?.entryRho ?? Number.NaN)}): the`,
    'queue is full of work nobody waits for.',
  );
  p(
    `**At ${light.analysis.offeredRate} requests/s**, below the recovery point (${rate(uRecovery)}), the analysis finds`,
    `${verdict(light.analysis)}, and the same drop does not last: ${bothClasses(light)} (a window counts as recovered when its rejection is`,
    `below ${HEALTHY_BELOW}; the time is to the end of that window, so it has the window's resolution).`,
  );

  md.push('## (b) DiffTry: the same trigger, and the service recovers', '');
  const b = d.difftry;
  p(
    `With k = ${kText('difftry')} at the same ${b.analysis.offeredRate} requests/s the analysis finds ${analysisText(b.analysis)}.`,
    'The same drop throws the service into',
    `a storm while it lasts (every replication had a window above ${STORM_ABOVE} rejection: ${b.summary.high.tipped} of`,
    `${R}), and after it ${bothClasses(b)}. Over the last ${config.dropRun.tailSeconds} s: high ${pctPm(b.summary.high.tailRejection)}, low`,
    `${pctPm(b.summary.low.tailRejection)} rejection. DiffTry changes the outcome of the trigger, not the trigger: the`,
    'high class keeps its five retries and the low class, 7/8 of the traffic, retries once, so the',
    'storm cannot feed itself.',
  );

  md.push('## (c) A ramp up then down traces the hysteresis loop', '');
  md.push('![(c) the hysteresis loop](metastability-loop.svg)', '');
  p(
    "[examples/load-loop.yaml](../examples/load-loop.yaml) ramps every class's arrivals from × 0.25 to × 2",
    `and back (${fixed(result.singleRate * 0.25, 0)} → ${fixed(result.singleRate * 2, 0)} → ${fixed(result.singleRate * 0.25, 0)} requests/s) over ${config.loopRun.duration} s;`,
    `${R} replications, windows of ${config.loopRun.windowSeconds} s. On the way up the service stays on the healthy branch and`,
    'jumps to the storm; on the way down it stays in the storm well below the load at which it tipped',
    'and drops back to the healthy branch only near the recovery point. Per replication, the load of',
    `the first window in the storm on the way up (high-class rejection above ${STORM_ABOVE}) and of the first`,
    'window out of it on the way down, mean ± 95 % half-width over the replications:',
  );
  md.push(
    '| k | tipping: analysis | simulated | recovery: analysis | simulated | loop width, simulated |',
    '| :--- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const l of result.loops) {
    md.push(
      `| ${LIMITS[l.limits].label} | ${rate(l.branches.tipping)} | ${pmText(l.tippedAt)} (${countFinite(l.crossings.map((c) => c.tippedAt))} of ${R}) | ${rate(l.branches.recovery)} | ${pmText(l.recoveredAt)} (${countFinite(l.crossings.map((c) => c.recoveredAt))} of ${R}) | ${fixed(l.tippedAt.mean - l.recoveredAt.mean, 1)} |`,
    );
  }
  md.push('');
  if (uLoop !== undefined && dLoop !== undefined) {
    const recoveryAgrees = (l: LoopRun) =>
      Math.abs(l.recoveredAt.mean - (l.branches.recovery ?? Number.NaN)) <=
      l.recoveredAt.ci95 + config.loopRun.windowSeconds * rampSlope(l);
    const early = (l: LoopRun) =>
      l.tippedAt.mean + (Number.isFinite(l.tippedAt.ci95) ? l.tippedAt.ci95 : 0) <
      (l.branches.tipping ?? Number.NaN);
    p(
      `The recovery points agree with the analysis${recoveryAgrees(uLoop) && recoveryAgrees(dLoop) ? " within their intervals and a window's change of load" : ' only roughly (see the table)'}:`,
      'the storm is a deep, stable state and the service leaves it where the analysis says it stops',
      'existing.',
      early(uLoop) && early(dLoop)
        ? [
            `The tipping points come earlier than the fold (${pmText(uLoop.tippedAt)} and ${pmText(dLoop.tippedAt)} against`,
            `${rate(uLoop.branches.tipping)} and ${rate(dLoop.branches.tipping)}): near the fold the healthy state's basin is shallow, and a burst of`,
            'arrivals that makes a few dozen attempts wait longer than T is enough to start the retries that',
            "finish the job. The analysis's tipping point is where the healthy state stops existing, an upper",
            'bound on where a noisy service leaves it, so the simulated loop is narrower than the one between',
            "the folds; DiffTry's is narrower still because its recovery point is higher.",
          ].join(' ')
        : `The tipping points: ${pmText(uLoop.tippedAt)} and ${pmText(dLoop.tippedAt)} simulated against ${rate(uLoop.branches.tipping)} and ${rate(dLoop.branches.tipping)} by the analysis.`,
    );
  }

  md.push('## (d) hotelReservation with per-try timeouts', '');
  const hr = result.hotelRates;
  p(
    `The call-graph form (\`builtinExample('hotel-calls')\`, frontend μ = 143, m = 50) at γ = (${hr.high}, ${hr.low}) requests/s`,
    `(examples/hotel-frontend-drop.yaml multiplies the file's low rate by 0.1; frontend ρ ≈ ${fixed(result.hotelAnalyses[0]?.atLoad.equilibria[0]?.entryRho ?? Number.NaN)}), with the`,
    'same per-try timeout T at every hop (`--timeout`): a frontend attempt that waits for its calls',
    'longer than T is abandoned and retried while search, geo, rate, … finish its work. The analysis',
    `at this load, and along a sweep of γ_low from ${config.hotelSweep[0]} to ${config.hotelSweep[config.hotelSweep.length - 1]} requests/s (\`difftry analyze --example hotel-calls`,
    `--timeout T --retries low=K --sweep 'frontend.low=${config.hotelSweep[0]}:${config.hotelSweep[config.hotelSweep.length - 1]}:${(config.hotelSweep[1] ?? 0) - (config.hotelSweep[0] ?? 0)}'\`):`,
  );
  md.push(
    '| T (ms) | k | at γ_low = ' +
      hr.low +
      ' | storm: high, low rejection | storm attempts/request (frontend ρ) | tipping γ_low | recovery γ_low |',
    '| ---: | :--- | :--- | ---: | ---: | ---: | ---: |',
  );
  for (const h of result.hotelAnalyses) {
    const s = storm(h.atLoad);
    const lowest = h.branches.points[0];
    const recovery =
      h.branches.recovery !== undefined
        ? rate(h.branches.recovery)
        : lowest?.storm !== undefined
          ? `none: a storm down to ${lowest.value}`
          : '—';
    md.push(
      `| ${h.timeoutMs} | ${kText(h.limits)} | ${verdict(h.atLoad)} | ${s === undefined ? '—' : `${percent(s.rejection.high)}, ${percent(s.rejection.low)}`} | ${s === undefined ? '—' : `${fixed(s.attemptsPerRequest)} (${fixed(s.entryRho)})`} | ${rate(h.branches.tipping)} | ${recovery} |`,
    );
  }
  md.push('');
  md.push(...hotelAnswer(result), '');
  md.push('![(d) hotelReservation](metastability-hotel.svg)', '');
  p(
    `Simulated: ${R} replications × ${config.hotelRun.duration} s at γ = (${hr.high}, ${hr.low}), windows of ${config.hotelRun.windowSeconds} s, with the trigger`,
    "(frontend capacity × 0.3 on [100 s, 110 s)) and without it (the control); the high class's",
    "figures (metastability.csv has both classes'):",
  );
  md.push(
    '| T (ms) | k | analysis | control: replications that tipped on their own | trigger: in the storm at the end | recovered (s after the drop) | high rejection, last ' +
      config.hotelRun.tailSeconds +
      ' s |',
    '| ---: | :--- | :--- | ---: | ---: | :--- | ---: |',
  );
  for (const { trigger, control } of result.hotelRuns) {
    const t = trigger.summary.high;
    md.push(
      `| ${trigger.timeoutMs} | ${kText(trigger.limits)} | ${verdict(trigger.analysis)} | ${control.summary.high.tipped} of ${R} | ${t.stormAtEnd} of ${R} | ${t.recovered} of ${R}${t.recovered > 0 ? ` (${pmText(t.recoverySeconds)})` : ''} | ${pctPm(t.tailRejection)} |`,
    );
  }
  md.push('');
  md.push(...hotelSimulatedText(result, config), '');
  const hotelGrid = result.monostable[1];
  if (hotelGrid !== undefined) {
    const rows = hotelGrid.storms;
    const highest = LIMITS.difftry.retries.high;
    const rowAllStorm = (rows[highest] ?? []).every((x) => x > 0);
    const monostableHighs = rows.flatMap((row, high) => (row.some((x) => x === 0) ? [high] : []));
    p(
      `Which limits leave no storm in hotelReservation at γ = (${hr.high}, ${hr.low}) with T = ${config.hotelTuneTimeoutMs} ms (\`tuneRetryLimits\`,`,
      `constraint \`monostable\`): ${monostableCells(hotelGrid) || 'none'}.`,
      rowAllStorm
        ? `With k_high = ${highest} every k_low leaves a storm: it is fed by the high class's own retries (${hr.high} requests/s × ${highest + 1} attempts against a frontend of 143/s), so limiting the low class alone cannot remove it${monostableHighs.length > 0 ? `; only k_high ≤ ${Math.max(...monostableHighs)} can` : ''}.`
        : '',
    );
    md.push(...gridTable(hotelGrid), '');
    const odd = nonMonotoneCells(hotelGrid);
    if (odd.length > 0) {
      p(
        `The grid is not monotone in the limits (${odd.join('; ')}), though more retries can only add work`,
        'to a storm: the storm found from saturation at such a cell may be a different state (for',
        'example one confined to a service deep in the call graph) from the one the neighbours have. It',
        'is shown as the tuner reports it; these cells are not simulated here.',
      );
    }
  }

  md.push('## What DiffTry changes, measured', '');
  md.push(...summaryBullets(result, config), '');

  md.push('## Re-create', '');
  md.push(
    '```sh',
    context.command,
    '# or one figure at a time (the same seeds and streams; `node dist/cli/main.js` after `npm run build`):',
    'difftry analyze examples/metastable-classes.yaml [--retries low=1]',
    `difftry simulate examples/metastable-classes.yaml --schedule examples/capacity-drop.yaml --window ${config.dropRun.windowSeconds} --duration ${config.dropRun.duration} --warmup 0 --seed ${config.seed} --replications ${R} [--retries low=1]`,
    `difftry simulate examples/metastable-classes.yaml --schedule examples/capacity-drop-light.yaml --window ${config.dropRun.windowSeconds} --duration ${config.dropRun.duration} --warmup 0 --seed ${config.seed} --replications ${R}`,
    `difftry simulate examples/metastable-classes.yaml --schedule examples/load-loop.yaml --window ${config.loopRun.windowSeconds} --duration ${config.loopRun.duration} --warmup 0 --seed ${config.seed} --replications ${R} [--retries low=1]`,
    `difftry simulate --example hotel-calls --schedule examples/hotel-frontend-drop.yaml --timeout 200 --retries low=5 --window ${config.hotelRun.windowSeconds} --duration ${config.hotelRun.duration} --warmup 0 --seed ${config.seed} --replications ${R}`,
    '```',
    '',
  );
  p(
    `This run: ${context.seconds.toFixed(0)} s wall clock, ${(result.events / 1e6).toFixed(1)} M simulated events.`,
  );
  return `${md.join('\n').trimEnd()}\n`;
}

/** What the replications did before the trigger: stayed healthy, or some tipped on their own. */
function ownTipsText(run: TriggeredRun, R: number): string {
  const own = run.summary.high.tippedOnTheirOwn;
  const before = `the high class's mean window rejection before the drop is ${percent(meanBefore(run, 'high'))}`;
  if (own.length === 0) {
    return `Before the drop no replication left the healthy state (${before}: a timeout almost never fires).`;
  }
  return [
    `Before the drop ${own.length} of ${R} replication${own.length === 1 ? '' : 's'} had already tipped into the storm on ${own.length === 1 ? 'its' : 'their'} own`,
    `(first storm window at t = ${own.map((t) => `${t}`).join(', ')} s), which is why ${before}: the healthy state is`,
    'stable, but a burst of arrivals that queues more than T of work can start the storm without any',
    'trigger, and the storm then stays.',
  ].join(' ');
}

/** The high class's mean window rejection before the trigger (or over the run without one). */
function meanBefore(run: TriggeredRun, c: ClassName): number {
  const until = run.trigger?.at ?? Number.POSITIVE_INFINITY;
  const values = run.simulated.windows
    .filter((w) => w.end <= until)
    .map((w) => w.classes[c]?.rejection ?? Number.NaN)
    .filter(Number.isFinite);
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** The change of offered load per second of a loop's ramp, requests/s². */
function rampSlope(loop: LoopRun): number {
  const [a, b] = loop.offeredRates;
  const [wa, wb] = loop.simulated.windows;
  if (a === undefined || b === undefined || wa === undefined || wb === undefined) return 0;
  return Math.abs(b - a) / (wb.start - wa.start || 1);
}

const countFinite = (xs: readonly number[]) => xs.filter(Number.isFinite).length;

function hotelAnswer(result: MetastabilityResult): string[] {
  const timeouts = [...new Set(result.hotelAnalyses.map((h) => h.timeoutMs))];
  const at = (t: number, k: LimitsKey) =>
    result.hotelAnalyses.find((h) => h.timeoutMs === t && h.limits === k)?.atLoad;
  const bistableAt = (k: LimitsKey) => timeouts.filter((t) => at(t, k)?.bistable === true);
  const list = (xs: readonly number[]) =>
    xs.length === 0 ? 'at none of the timeouts' : `at T = ${xs.join(', ')} ms`;
  const uniform = bistableAt('uniform');
  const difftry = bistableAt('difftry');
  const monostableAt = timeouts.filter((t) => !uniform.includes(t) && !difftry.includes(t));
  const fewer = uniform.filter((t) => {
    const u = at(t, 'uniform');
    const d = at(t, 'difftry');
    const us = u === undefined ? undefined : storm(u);
    const ds = d === undefined ? undefined : storm(d);
    return us !== undefined && ds !== undefined && ds.attemptsPerRequest < us.attemptsPerRequest;
  });
  const out = [
    `**Is it bistable under uniform k = ${kText('uniform')}?** By the analysis at γ_low = ${result.hotelRates.low}, ${list(uniform)}.`,
    `**Under DiffTry k = ${kText('difftry')}?** ${list(difftry).replace(/^a/, 'A')}${difftry.length > 0 && uniform.every((t) => difftry.includes(t)) ? ' too: DiffTry removes none of the storms.' : '.'}`,
  ];
  if (fewer.length > 0) {
    out.push(
      `DiffTry's storm carries fewer attempts per request (${list(fewer)}; the low class retries once) but the high`,
      "class's own retries keep the frontend saturated.",
    );
  }
  if (monostableAt.length > 0) {
    out.push(
      `At ${list(monostableAt).replace(/^at /, '')} neither is bistable at this load: an attempt that may wait for the`,
      "whole frontend queue (50 / 143 s ≈ 0.35 s) rarely times out; the sweep's folds there are in the table.",
    );
  }
  return [out.join(' ')];
}

function hotelSimulatedText(result: MetastabilityResult, config: MetastabilityConfig): string[] {
  const R = config.replications;
  const lines: string[] = [];
  for (const t of config.hotelSimulatedTimeoutsMs) {
    const runs = result.hotelRuns.filter((r) => r.trigger.timeoutMs === t);
    const parts = runs.map(({ trigger, control }) => {
      const s = trigger.summary.high;
      const c = control.summary.high;
      const spontaneous =
        c.tipped > 0
          ? `${c.tipped} of ${R} tipped with no trigger at all`
          : 'none tipped without the trigger';
      const after =
        s.stormAtEnd === R
          ? `all ${R} stay in the storm after the drop`
          : s.recovered === R
            ? `all ${R} recover after the drop, ${pmText(s.recoverySeconds)} s after it`
            : `${s.recovered} of ${R} recover after the drop (${pmText(s.recoverySeconds)} s after it), ${s.stormAtEnd} ${s.stormAtEnd === 1 ? 'is' : 'are'} in the storm at the end`;
      return `${kText(trigger.limits)}: ${spontaneous}; ${after}`;
    });
    lines.push(`- T = ${t} ms — ${parts.join('; ')}.`);
  }
  const depth = result.hotelRuns
    .filter(({ trigger }) => trigger.summary.high.stormRejection.mean > 0)
    .map(({ trigger }) => {
      const s = storm(trigger.analysis);
      return `T = ${trigger.timeoutMs} ms ${kText(trigger.limits)}: ${pctPm(trigger.summary.high.stormRejection)} (analysis ${percent(s?.rejection.high ?? Number.NaN)})`;
    });
  lines.push(
    '',
    `How deep a simulated storm is while it lasts — the high class's mean rejection over each replication's storm windows after the drop, mean over the replications — beside the analysis's storm: ${depth.join('; ')}.`,
  );
  const shallow = result.hotelRuns.filter(
    ({ trigger }) =>
      (storm(trigger.analysis)?.rejection.high ?? 1) < 0.99 && trigger.summary.high.recovered > 0,
  );
  if (shallow.length > 0) {
    lines.push(
      '',
      `Where the analysis's storm lets some requests through (${[...new Set(shallow.map((r) => `T = ${r.trigger.timeoutMs} ms`))].join(', ')}), the simulated storm is itself only metastable and ends by chance — the analysis calls the storm stable, and in the mean it is, but a run of completions can drain the queue below T.`,
    );
  }
  const fragile = result.hotelRuns.filter(({ control }) => control.summary.high.tipped > 0);
  if (fragile.length > 0) {
    lines.push(
      '',
      `Without any trigger, ${fragile.map(({ control }) => `${control.summary.high.tipped} of ${R} replications with T = ${control.timeoutMs} ms ${kText(control.limits)}`).join(', ')} tipped into the storm on their own: the healthy state the analysis finds stable there is so shallow that the ordinary fluctuations of a frontend at ρ ≈ 0.5 are a trigger.`,
    );
  }
  return lines;
}

function summaryBullets(result: MetastabilityResult, config: MetastabilityConfig): string[] {
  const d = result.drops;
  const R = config.replications;
  const uLoop = result.loops.find((l) => l.limits === 'uniform');
  const dLoop = result.loops.find((l) => l.limits === 'difftry');
  return [
    `- One service at ${d.uniform.analysis.offeredRate} requests/s: uniform retries are bistable by the analysis and the ten-second drop leaves ${d.uniform.summary.high.stormAtEnd} of ${R} simulated replications in the storm (high-class rejection ${pctPm(d.uniform.summary.high.tailRejection)} at the end); with DiffTry the analysis finds ${verdict(d.difftry.analysis)} and ${d.difftry.summary.high.recovered} of ${R} replications recover, ${pmText(d.difftry.summary.high.recoverySeconds)} s after the capacity returns.`,
    `- The recovery point moves from ${rate(uLoop?.branches.recovery)} to ${rate(dLoop?.branches.recovery)} requests/s by the analysis, from ${pmText(uLoop?.recoveredAt ?? { mean: Number.NaN, ci95: Number.NaN })} to ${pmText(dLoop?.recoveredAt ?? { mean: Number.NaN, ci95: Number.NaN })} in the simulated ramps; the tipping point does not move (${rate(uLoop?.branches.tipping)} → ${rate(dLoop?.branches.tipping)}; simulated ${pmText(uLoop?.tippedAt ?? { mean: Number.NaN, ci95: Number.NaN })} → ${pmText(dLoop?.tippedAt ?? { mean: Number.NaN, ci95: Number.NaN })}).`,
    hotelBullet(result, config),
  ];
}

function hotelBullet(result: MetastabilityResult, config: MetastabilityConfig): string {
  const R = config.replications;
  const parts = config.hotelSimulatedTimeoutsMs.map((t) => {
    const of = (k: LimitsKey) =>
      result.hotelRuns.find((r) => r.trigger.timeoutMs === t && r.trigger.limits === k)?.trigger;
    const u = of('uniform');
    const d = of('difftry');
    if (u === undefined || d === undefined) return '';
    return `T = ${t} ms: ${u.summary.high.stormAtEnd} of ${R} (uniform) and ${d.summary.high.stormAtEnd} of ${R} (DiffTry) in the storm at the end`;
  });
  const analysis = result.hotelAnalyses
    .filter((h) => h.limits === 'difftry' && config.hotelSimulatedTimeoutsMs.includes(h.timeoutMs))
    .map((h) => `${h.timeoutMs} ms: ${verdict(h.atLoad)}`);
  return `- hotelReservation at γ = (${result.hotelRates.high}, ${result.hotelRates.low}) with DiffTry, by the analysis: ${analysis.join(', ')}; simulated after the drop, ${parts.filter((x) => x !== '').join('; ')}.`;
}
