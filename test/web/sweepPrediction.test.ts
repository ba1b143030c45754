import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../src/cli/analyzeCommand.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { FIGURE5_GAMMA_LOWS } from '../../src/experiments/figure5/figure5Sweep.js';
import type { NetworkReport } from '../../src/model/network/NetworkReport.js';
import { hysteresisJumps } from '../../web/src/network/hysteresisLoop.js';
import { arrivalRange } from '../../web/src/network/parameterRanges.js';
import { predictSweep, type SweepConfiguration } from '../../web/src/network/sweepPrediction.js';
import { sweepValues } from '../../web/src/network/sweepValues.js';

const network = (file: string) =>
  parseNetwork(readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8'), file);

/** `difftry analyze FILE --sweep SPEC --json [--retries …]`, in process. */
async function cliSweep(
  source: { example: string } | { file: string },
  sweep: string,
  retries?: Record<string, number>,
) {
  const { stdout } = await analyzeCommand({
    ...source,
    sweep,
    // The view keeps to the mean field (it re-solves on every slider event).
    law: 'mean-field',
    json: true,
    ...(retries && { retries }),
  });
  return JSON.parse(stdout) as {
    sweep: { tipping?: number; recovery?: number };
    points: { value: number; report: NetworkReport }[];
  };
}

/** A configuration's rejections on one branch, as the CLI's reports give them. */
function branch(configuration: SweepConfiguration, className: string, kind: 'healthy' | 'storm') {
  return (configuration.classes[className] ?? []).map((p) => p[kind]);
}
function cliBranch(
  points: readonly { report: NetworkReport }[],
  className: string,
  kind: 'healthy' | 'storm',
) {
  return points.map(
    ({ report }) => report.equilibria.find((e) => e.kind === kind)?.endToEnd[className]?.rejection,
  );
}

describe('the sweep chart’s rates', () => {
  it('on hotelReservation, run 25 … 500 requests/s and hold every Figure 5 point', () => {
    const values = sweepValues(arrivalRange(network('hotel.yaml'), 'low'));
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => 25 * (i + 1)));
    for (const gammaLow of FIGURE5_GAMMA_LOWS) expect(values).toContain(gammaLow);
  });
});

describe('the sweep chart’s prediction', () => {
  it('is what `difftry analyze --sweep` prints, DiffTry and uniform (hotel-calls)', async () => {
    const hotel = network('hotel-calls.yaml');
    const values = sweepValues(arrivalRange(hotel, 'low'));
    const prediction = predictSweep(hotel, { serviceIndex: 0, field: 1 }, values);
    const [difftry, uniform] = prediction.configurations as [
      SweepConfiguration,
      SweepConfiguration,
    ];
    expect([difftry.label, uniform.label]).toEqual(['DiffTry k = (5, 1)', 'uniform k = (5, 5)']);
    const spec = 'frontend.low=25:500:25';
    const cli = await cliSweep({ example: 'hotel-calls' }, spec);
    const cliUniform = await cliSweep({ example: 'hotel-calls' }, spec, { high: 5, low: 5 });
    for (const name of ['high', 'low']) {
      for (const kind of ['healthy', 'storm'] as const) {
        expect(branch(difftry, name, kind)).toEqual(cliBranch(cli.points, name, kind));
        expect(branch(uniform, name, kind)).toEqual(cliBranch(cliUniform.points, name, kind));
      }
    }
    expect(branch(difftry, 'high', 'healthy').every((r) => r !== undefined)).toBe(true);
  });

  it('follows both branches of a bistable network and where they end, as the CLI does', async () => {
    const metastable = network('metastable-classes.yaml');
    const values = sweepValues(arrivalRange(metastable, 'low'));
    expect(values[0]).toBe(3.5);
    const prediction = predictSweep(metastable, { serviceIndex: 0, field: 1 }, values);
    // k = (5, 5) is uniform already: one configuration.
    expect(prediction.configurations.map((c) => c.label)).toEqual([
      "uniform k = (5, 5), the file's limits",
    ]);
    const [only] = prediction.configurations as [SweepConfiguration];
    const file = fileURLToPath(new URL('../../examples/metastable-classes.yaml', import.meta.url));
    const cli = await cliSweep({ file }, 'api.low=3.5:70:3.5');
    expect(only.branches?.tipping).toBe(cli.sweep.tipping);
    expect(only.branches?.recovery).toBe(cli.sweep.recovery);
    expect(Number(only.branches?.tipping?.toPrecision(4))).toBe(64.36);
    expect(branch(only, 'low', 'storm')).toEqual(cliBranch(cli.points, 'low', 'storm'));
    expect(branch(only, 'low', 'healthy')).toEqual(cliBranch(cli.points, 'low', 'healthy'));
    // Inside the loop both states exist; below recovery only health, above tipping only storm.
    const at = (value: number) => only.classes.low?.find((p) => p.value === value);
    expect(at(35)).toMatchObject({ healthy: expect.any(Number), storm: expect.any(Number) });
    expect(at(7)?.storm).toBeUndefined();
    expect(at(70)?.healthy).toBeUndefined();
  });
});

describe('the hysteresis loop', () => {
  const points = [
    { value: 10, healthy: 0 },
    { value: 20, healthy: 0.02, storm: 0.9 },
    { value: 30, healthy: 0.04, storm: 0.96 },
    { value: 40, storm: 1 },
  ];

  it('jumps up where the healthy branch ends and down where the storm ends', () => {
    expect(hysteresisJumps(points, { tipping: 35, recovery: 15 })).toEqual([
      { kind: 'tips', value: 35, from: 0.04, to: 0.98 },
      { kind: 'recovers', value: 15, from: 0.9, to: 0.01 },
    ]);
  });

  it('has no jump where a branch is missing or does not end', () => {
    expect(hysteresisJumps(points, {})).toEqual([]);
    expect(hysteresisJumps([{ value: 10, healthy: 0 }], { tipping: 12 })).toEqual([]);
  });
});
