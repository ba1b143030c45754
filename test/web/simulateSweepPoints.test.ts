import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/simulateCommand.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import {
  type SimulatedSweepPoint,
  simulateSweepPoints,
} from '../../web/src/network/simulateSweepPoints.js';

const hotel = parseNetwork(
  readFileSync(new URL('../../examples/hotel.yaml', import.meta.url), 'utf8'),
  'examples/hotel.yaml',
);
const run = { replications: 2, duration: 4, warmup: 1, seed: 7 };
const silent = { update: () => {}, stop: () => {} };

/** `difftry simulate --example hotel --sweep … --json` in process: per value, class rejections. */
async function cliSweep(strategy: 'difftry' | 'uniform') {
  const { stdout } = await simulateCommand({
    example: 'hotel',
    sweep: 'frontend.low=100:250:150',
    strategy,
    ...run,
    json: true,
    progress: silent,
  });
  const document = JSON.parse(stdout) as {
    points: {
      value: number;
      simulation: { endToEnd: Record<string, { rejection: number; rejectionCi95: number }> };
    }[];
  };
  return document.points.map((p) => ({
    value: p.value,
    classes: Object.fromEntries(
      Object.entries(p.simulation.endToEnd).map(([name, e]) => [
        name,
        { rejection: e.rejection, rejectionCi95: e.rejectionCi95 },
      ]),
    ),
  }));
}

describe('the simulated sweep (the worker’s work)', () => {
  it('is what `difftry simulate --sweep` prints, per configuration, with progress to 1', async () => {
    const points: SimulatedSweepPoint[] = [];
    const fractions: number[] = [];
    simulateSweepPoints(
      {
        network: hotel,
        parameter: { serviceIndex: 0, field: 1 },
        values: [100, 250],
        configurations: ['difftry', 'uniform'],
        run,
      },
      (fraction) => fractions.push(fraction),
      (point) => points.push(point),
    );
    expect(points.map((p) => `${p.configuration} ${p.value}`)).toEqual([
      'difftry 100',
      'difftry 250',
      'uniform 100',
      'uniform 250',
    ]);
    const strip = ({ value, classes }: SimulatedSweepPoint) => ({ value, classes });
    expect(points.slice(0, 2).map(strip)).toEqual(await cliSweep('difftry'));
    expect(points.slice(2).map(strip)).toEqual(await cliSweep('uniform'));
    expect(points[1]?.classes.high?.rejectionCi95).toBeGreaterThan(0);
    expect(fractions.at(-1)).toBe(1);
    expect(fractions.every((f, i) => i === 0 || f >= (fractions[i - 1] as number))).toBe(true);
  });
});
