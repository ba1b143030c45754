// The strategies comparison (src/experiments/strategies/) on a small seeded run: the figures it
// prints today for γ = (50, 250), the long delay, 2 replications × 20 s (warm-up 5 s), seed 6,
// pinned as the report formats them.
import { describe, expect, it } from 'vitest';
import { VARIANTS } from '../../../src/experiments/strategies/delayVariants.js';
import { overallRejection, strategyRow } from '../../../src/experiments/strategies/StrategyRow.js';
import {
  STRATEGY_CSV_FIELDS,
  strategiesCsv,
} from '../../../src/experiments/strategies/strategiesCsv.js';
import { SUBJECTS } from '../../../src/experiments/strategies/strategySubjects.js';
import {
  runStrategySweep,
  STRATEGY_SWEEP_DEFAULTS,
  type StrategySweepSetup,
} from '../../../src/experiments/strategies/strategySweep.js';
import { fixed, percent } from '../../../src/report/numberFormat.js';

const setup: StrategySweepSetup = {
  ...STRATEGY_SWEEP_DEFAULTS,
  replications: 2,
  duration: 20,
  warmup: 5,
  gammaLows: [250],
  variants: VARIANTS.slice(0, 1),
  subjects: ['difftry', 'uniform', 'no-retries'],
};

describe('runStrategySweep', () => {
  const points: string[] = [];
  const rows = runStrategySweep(setup, {
    onPoint: (p) => points.push(`${p.gammaLow} ${p.variant} ${p.strategy}`),
  });
  const at = (strategy: 'difftry' | 'uniform' | 'no-retries') =>
    strategyRow(rows, 'long', strategy, 250);

  it('runs one row per γ_low × delay × strategy, in that order', () => {
    expect(points).toEqual(['250 long difftry', '250 long uniform', '250 long no-retries']);
    expect(rows.map((r) => r.strategy)).toEqual(['difftry', 'uniform', 'no-retries']);
  });

  it('prints the figures of the seeded run', () => {
    const figures = (r: ReturnType<typeof at>) => [
      percent(r.highRejection),
      percent(r.lowRejection),
      fixed(r.attemptsPerRequest),
      fixed(r.highFrontendRetries),
      percent(r.predHighRejection),
      fixed(r.predAttemptsPerRequest),
    ];
    expect(figures(at('difftry'))).toEqual(['19.9 %', '57.7 %', '3.88', '2.38', '20.3 %', '3.85']);
    expect(figures(at('uniform'))).toEqual(['48.6 %', '49.1 %', '6.42', '3.52', '52.3 %', '6.47']);
    // The analysis models DiffTry and uniform limits only.
    expect(figures(at('no-retries'))).toEqual(['51.1 %', '52.2 %', '2.81', '0.00', 'n/a', 'n/a']);
  });

  it('weights the classes by their arrival rates in the overall rejection', () => {
    const r = at('difftry');
    expect(overallRejection(r, 50)).toBeCloseTo(
      (50 * r.highRejection + 250 * r.lowRejection) / 300,
      12,
    );
  });

  it('writes one CSV line per row under the header', () => {
    const lines = strategiesCsv(rows, setup.gammaHigh).trimEnd().split('\n');
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines[0]).toBe(
      ['backoff', 'strategy', 'gammaHigh', 'gammaLow', ...STRATEGY_CSV_FIELDS].join(','),
    );
    expect(lines[1]?.startsWith('long,difftry,50,250,0.19912920768224684,')).toBe(true);
  });

  it('knows every simulator strategy and both references', () => {
    expect(SUBJECTS).toContain('class-budget');
    expect(SUBJECTS.slice(-2)).toEqual(['difftry-5-0', 'no-retries']);
    expect(() => strategyRow(rows, 'short', 'difftry', 250)).toThrow(/no row short difftry 250/);
  });
});
