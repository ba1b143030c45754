/** docs/strategies.svg: one row of panels per delay variant, one line per strategy. */
import {
  type ChartPanel,
  type ChartSeries,
  niceAxis,
  panelChartSvg,
} from '../../report/panelChart.js';
import type { Variant } from './delayVariants.js';
import { type StrategyRow, strategyRow } from './StrategyRow.js';
import {
  CLASS_UNAWARE_BUDGETS,
  isReference,
  STRATEGY_INFO,
  type Subject,
} from './strategySubjects.js';
import type { StrategySweepSetup } from './strategySweep.js';

/** Each strategy's colour, width and marker on the chart. */
export const SERIES_STYLE: Readonly<Record<Subject, Omit<ChartSeries, 'key' | 'label'>>> = {
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

/** Lines drawn last lie on top: DiffTry and the class-aware budget over the rest. */
const DRAW_ORDER: readonly Subject[] = [
  'no-retries',
  'uniform',
  ...CLASS_UNAWARE_BUDGETS,
  'class-budget',
  'difftry-5-0',
  'difftry',
];

/**
 * The chart of a run: per delay variant, high- and low-class rejection, attempts per request and
 * high-class p99 latency against γ_low, the analysis dotted beside DiffTry and uniform.
 */
export function strategiesSvg(
  rows: readonly StrategyRow[],
  setup: Readonly<StrategySweepSetup>,
): string {
  const { gammaHigh, gammaLows, replications, duration, warmup } = setup;
  const row = (variant: Variant['key'], strategy: Subject, gammaLow: number) =>
    strategyRow(rows, variant, strategy, gammaLow);
  const series: ChartSeries[] = [
    ...setup.subjects.map((strategy) => ({
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
  const panels: ChartPanel[] = setup.variants.flatMap((variant) => {
    const simulated = (value: (r: StrategyRow) => number, ci95: (r: StrategyRow) => number) =>
      DRAW_ORDER.filter((s) => setup.subjects.includes(s)).map((strategy) => ({
        series: strategy,
        points: gammaLows.map((g) => {
          const r = row(variant.key, strategy, g);
          return { x: g, y: value(r), ci95: ci95(r) };
        }),
      }));
    const predicted = (value: (r: StrategyRow) => number) =>
      (['difftry', 'uniform'] as const).map((strategy) => ({
        series: `${strategy}-pred`,
        points: gammaLows.map((g) => ({ x: g, y: value(row(variant.key, strategy, g)) })),
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
  return panelChartSvg({
    title:
      'Retry strategies under overload: hotelReservation (routing form), frontend bottleneck, ' +
      `γ_high = ${gammaHigh}`,
    xLabel: 'γ_low (requests/s)',
    xTicks: gammaLows,
    columns: 4,
    panels,
    series,
    notes: [
      `Top row: ${setup.variants[0]?.label}; bottom row: ${setup.variants[1]?.label}. Markers: simulated ` +
        `mean of ${replications} replications × ${duration} s (warm-up ${warmup} s), bars: 95 % ` +
        'CI; dotted: analysis (DiffTry and uniform only).',
      'DiffTry k = (5, 1); every other strategy k = (5, 5) per hop, the budgets with their ' +
        'default options, one budget per hop; references: DiffTry k = (5, 0) and no retries. ' +
        'Latency: completed requests only.',
    ],
  });
}
