/** docs/figure5.svg: end-to-end rejection against γ_low, predicted lines and simulated markers. */
import { fractionChartSvg } from '../../report/fractionChart.js';
import { FIGURE5_GAMMA_HIGH, FIGURE5_GAMMA_LOWS } from './figure5Sweep.js';
import {
  type Figure5Class,
  type Figure5Row,
  findFigure5Row,
  type SimulatedFigure5Setup,
} from './simulateFigure5.js';

/**
 * The chart of one form of a run (default the routing form): both classes under both retry
 * configurations, the analysis as lines, the simulation as markers with 95 % bars.
 */
export function figure5Svg(
  rows: readonly Figure5Row[],
  setup: Readonly<SimulatedFigure5Setup>,
  form = 'hotel',
  title = 'Figure 5: hotelReservation (routing form), frontend bottleneck',
): string {
  const { replications, duration, warmup, backoff } = setup;
  const find = (f: string, k: string, gammaLow: number, cls: Figure5Class) =>
    findFigure5Row(rows, f, k, gammaLow, cls);
  // DiffTry solid with round markers, uniform dashed with square ones, set apart by 6 px.
  const difftry = { dx: -3 } as const;
  const uniform = { dash: '6 4', marker: 'square', dx: 3 } as const;
  const series = [
    { k: '5/1', cls: 'high', label: 'high, k = (5, 1)', color: '#1f77b4', ...difftry },
    { k: '5/1', cls: 'low', label: 'low, k = (5, 1)', color: '#ff7f0e', ...difftry },
    { k: '5/5', cls: 'high', label: 'high, k = (5, 5)', color: '#1f77b4', ...uniform },
    { k: '5/5', cls: 'low', label: 'low, k = (5, 5)', color: '#ff7f0e', ...uniform },
  ] as const;
  const note = (text: string, dy: number) => ({ text, dy, color: '#444444' });
  const smallNote = (text: string, dy: number) => ({ text, dy, color: '#666666', fontSize: 11 });
  return fractionChartSvg({
    title,
    xLabel: `γ_low (requests/s); γ_high = ${FIGURE5_GAMMA_HIGH}`,
    yLabel: 'end-to-end rejection',
    width: 720,
    height: 440,
    legendWidth: 190,
    xTicks: FIGURE5_GAMMA_LOWS,
    tickMarks: true,
    barCap: 3,
    series: series.map(({ k, cls, ...style }) => {
      const own = FIGURE5_GAMMA_LOWS.map((g) => find(form, k, g, cls)).filter(
        (r): r is Figure5Row => r !== undefined,
      );
      return {
        ...style,
        lines: [{ points: own.map((r) => ({ x: r.gammaLow, y: r.predRejection })) }],
        points: own.map((r) => ({ x: r.gammaLow, y: r.simRejection, ci95: r.simRejectionCi95 })),
      };
    }),
    notes: [
      note('lines: predicted', 10),
      note('markers: simulated,', 18),
      note('bars: 95 % CI', 16),
      smallNote(`${replications} × ${duration} s each,`, 24),
      smallNote(`warm-up ${warmup} s, retry delay`, 15),
      smallNote(`random, mean ${backoff.meanMs} ms`, 15),
      smallNote('frontend μ = 143,', 24),
      smallNote('ρ = 0.7 … 2.1', 15),
    ],
  });
}
