/**
 * The three charts of docs/metastability.*: (a) and (b) the capacity drop (metastability.svg),
 * (c) the hysteresis loop (metastability-loop.svg) and (d) hotelReservation
 * (metastability-hotel.svg). Pure: the same result gives the same bytes.
 */

import {
  type ChartPanel,
  type ChartSeries,
  type PanelChart,
  panelChartSvg,
} from '../../report/panelChart.js';
import type { ChartPoint } from '../../report/seriesMarks.js';
import type { MetastabilityConfig } from './MetastabilityConfig.js';
import type { LoopRun, MetastabilityResult, TriggeredRun } from './MetastabilityResult.js';
import type { EquilibriumFigures } from './metastabilityAnalysis.js';
import { CLASSES, LIMITS, LIMITS_KEYS, type LimitsKey } from './metastabilityLimits.js';
import { healthy, kText, storm } from './metastabilityText.js';

const COLORS = { high: '#1f77b4', low: '#ff7f0e' } as const;
const LIMIT_COLORS: Record<LimitsKey, string> = { uniform: '#d62728', difftry: '#2ca02c' };

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

/** (a) and (b): the capacity drop, one panel per run (metastability.svg). */
export function dropChart(result: MetastabilityResult, config: MetastabilityConfig): string {
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

/** (c): the ramps beside the branches, one panel per choice of limits (metastability-loop.svg). */
export function loopChart(result: MetastabilityResult, replications: number, seed: number): string {
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

/** (d): hotelReservation, one panel per simulated timeout (metastability-hotel.svg). */
export function hotelChart(result: MetastabilityResult, config: MetastabilityConfig): string {
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
