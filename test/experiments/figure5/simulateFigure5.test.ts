// The simulated Figure 5 (src/experiments/figure5/) on a small seeded run: the figures it prints
// today at γ = (50, 250), 2 replications × 20 s (warm-up 5 s), seed 5, as the report formats them.
import { describe, expect, it } from 'vitest';
import { FIGURE5_CSV_FIELDS, figure5Csv } from '../../../src/experiments/figure5/figure5Csv.js';
import {
  findFigure5Row,
  runSimulatedFigure5,
  SIMULATED_FIGURE5_DEFAULTS,
} from '../../../src/experiments/figure5/simulateFigure5.js';
import { fixed, percent } from '../../../src/report/numberFormat.js';

describe('runSimulatedFigure5', () => {
  const points: string[] = [];
  const rows = runSimulatedFigure5(
    { ...SIMULATED_FIGURE5_DEFAULTS, replications: 2, duration: 20, warmup: 5 },
    { onPoint: ({ form, k, gammaLow }) => points.push(`${form} ${k} ${gammaLow}`) },
    [250],
  );
  const figures = (form: string, k: string, cls: 'high' | 'low') => {
    const r = findFigure5Row(rows, form, k, 250, cls);
    if (r === undefined) throw new Error(`no row ${form} ${k} ${cls}`);
    return [
      percent(r.simRejection),
      percent(r.predRejection),
      fixed(r.simAttemptsPerRequest),
      fixed(r.predAttemptsPerRequest),
    ];
  };

  it('runs both forms, both retry configurations, both classes', () => {
    expect(points).toEqual([
      'hotel 5/1 250',
      'hotel 5/5 250',
      'hotel-calls 5/1 250',
      'hotel-calls 5/5 250',
    ]);
    expect(rows).toHaveLength(8);
  });

  it('prints the figures of the seeded run', () => {
    expect(figures('hotel', '5/1', 'high')).toEqual(['19.2 %', '20.3 %', '3.88', '3.85']);
    expect(figures('hotel', '5/1', 'low')).toEqual(['57.1 %', '58.7 %', '3.88', '3.85']);
    expect(figures('hotel', '5/5', 'high')).toEqual(['50.3 %', '52.3 %', '6.42', '6.47']);
    expect(figures('hotel-calls', '5/1', 'high')).toEqual(['18.2 %', '20.3 %', '3.91', '3.85']);
    expect(figures('hotel-calls', '5/5', 'low')).toEqual(['47.6 %', '52.3 %', '6.45', '6.47']);
  });

  it('writes one CSV line per row under the header', () => {
    const lines = figure5Csv(rows).trimEnd().split('\n');
    expect(lines[0]).toBe(
      ['form', 'k', 'gammaHigh', 'gammaLow', 'class', ...FIGURE5_CSV_FIELDS].join(','),
    );
    expect(lines).toHaveLength(9);
    expect(lines[1]?.startsWith('hotel,5/1,50,250,high,0.19233944986461599,')).toBe(true);
  });
});
