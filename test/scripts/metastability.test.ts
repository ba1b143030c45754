// scripts/metastability.ts (docs/metastability.*) at a reduced length: the same experiments with
// the trigger at 20 s instead of 100 s, shorter runs and ramps, three replications, a coarser
// sweep, and hotelReservation at one timeout. Every assertion is one the page's text makes.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  builtinExample,
  loadNetworkFile,
  loadScheduleFile,
  parseNetwork,
  toNetworkModel,
} from '../../src/config/index.js';
import type { MetastabilityConfig } from '../../src/experiments/metastability/MetastabilityConfig.js';
import type { MetastabilityResult } from '../../src/experiments/metastability/MetastabilityResult.js';
import { runMetastability } from '../../src/experiments/metastability/metastabilityExperiment.js';
import { renderMetastability } from '../../src/experiments/metastability/metastabilityReport.js';
import { networkAtTime } from '../../src/experiments/metastability/scheduledNetwork.js';
import type { LoadSchedule } from '../../src/model/network/LoadSchedule.js';

const example = (file: string) => new URL(`../../examples/${file}`, import.meta.url).pathname;
const drop: LoadSchedule = { changes: [{ at: 20, until: 30, service: 'api', capacity: 0.3 }] };
const REPLICATIONS = 3;

let config: MetastabilityConfig;
let result: MetastabilityResult;

beforeAll(async () => {
  const hotelFile = builtinExample('hotel-calls');
  config = {
    seed: 12,
    replications: REPLICATIONS,
    single: await loadNetworkFile(example('metastable-classes.yaml')),
    drop,
    lightDrop: { changes: [{ at: 0, arrivals: 0.375 }, ...drop.changes] },
    dropRun: { duration: 100, windowSeconds: 5, tailSeconds: 20 },
    loop: {
      changes: [
        { at: 0, until: 200, arrivals: { from: 0.25, to: 2 } },
        { at: 200, until: 400, arrivals: { from: 2, to: 0.25 } },
      ],
    },
    loopRun: { duration: 400, windowSeconds: 10, turn: 200 },
    loopSweep: Array.from({ length: 36 }, (_, i) => 10 + 2 * i),
    hotel: parseNetwork(hotelFile.text, hotelFile.fileName),
    hotelSchedule: {
      changes: [
        { at: 0, service: 'frontend', class: 'low', arrivals: 0.1 },
        { at: 20, until: 30, service: 'frontend', capacity: 0.3 },
      ],
    },
    hotelRun: { duration: 100, windowSeconds: 10, tailSeconds: 20 },
    hotelAnalysisTimeoutsMs: [200],
    hotelSimulatedTimeoutsMs: [200],
    hotelSweep: [0, 25, 50, 75, 100],
    hotelTuneTimeoutMs: 200,
    tuneMaxRetries: 1,
  };
  result = runMetastability(config);
}, 120_000);

const lastRejections = (runs: MetastabilityResult['drops']['uniform']['simulated']['runs']) =>
  runs.map((windows) => windows[windows.length - 1]?.classes.high?.rejection ?? Number.NaN);

describe('(a), (b): one service, per-try timeout 100 ms, a ten-second capacity drop', () => {
  it('the analysis: uniform retries bistable at 40 requests/s, DiffTry and the light load not', () => {
    const { uniform, difftry } = result.drops;
    const light = result.drops['uniform-light'];
    expect(uniform.analysis.offeredRate).toBe(40);
    expect(uniform.analysis.bistable).toBe(true);
    const storm = uniform.analysis.equilibria.find((e) => e.kind === 'storm');
    // The storm of uniform retries: every attempt fails, 1 + 5 attempts per request, ρ = 6 · 0.4.
    expect(storm?.rejection.high).toBeGreaterThan(0.99);
    expect(storm?.attemptsPerRequest).toBeCloseTo(6, 1);
    expect(storm?.entryRho).toBeCloseTo(2.4, 1);
    expect(difftry.analysis.bistable).toBe(false);
    expect(difftry.analysis.equilibria.map((e) => e.kind)).toEqual(['healthy']);
    expect(light.analysis.offeredRate).toBe(15);
    expect(light.analysis.bistable).toBe(false);
  });

  it('uniform retries end every run in the storm; below the recovery point and with DiffTry every run recovers', () => {
    const { uniform, difftry } = result.drops;
    const light = result.drops['uniform-light'];
    const inputs = { uniform: lastRejections(uniform.simulated.runs) };
    expect(
      Math.min(...lastRejections(uniform.simulated.runs)),
      JSON.stringify(inputs),
    ).toBeGreaterThan(0.9);
    expect(uniform.summary.high.stormAtEnd).toBe(REPLICATIONS);
    expect(uniform.summary.low.tailRejection.mean).toBeGreaterThan(0.9);
    for (const run of [light, difftry]) {
      // The drop did throw it into the storm while it lasted …
      expect(run.summary.high.tipped).toBe(REPLICATIONS);
      // … and it came back: every replication's last window is healthy.
      expect(Math.max(...lastRejections(run.simulated.runs))).toBeLessThan(0.1);
      expect(run.summary.low.recovered).toBe(REPLICATIONS);
      expect(run.summary.high.recoverySeconds.mean).toBeLessThan(40);
    }
  });
});

describe('(c): the hysteresis loop', () => {
  const loop = (limits: 'uniform' | 'difftry') => {
    const found = result.loops.find((l) => l.limits === limits);
    if (found === undefined) throw new Error(`no loop for ${limits}`);
    return found;
  };

  it('the analysis: the storm ends where Σ γ (1 + k) falls to about 1.1 μ, the healthy state near 70', () => {
    // The storm's work at the recovery point: 1 + 5 attempts for every request under uniform
    // retries; (5/40) · 6 + (35/40) · 2 = 2.5 attempts per request under DiffTry.
    const u = loop('uniform').branches;
    const d = loop('difftry').branches;
    expect((u.recovery ?? Number.NaN) * 6).toBeGreaterThan(100);
    expect((u.recovery ?? Number.NaN) * 6).toBeLessThan(120);
    expect((d.recovery ?? Number.NaN) * 2.5).toBeGreaterThan(100);
    expect((d.recovery ?? Number.NaN) * 2.5).toBeLessThan(120);
    // The figures for this service with 5 retries: bistable between ≈ 19 and ≈ 69.
    expect(u.tipping).toBeCloseTo(69.4, 0);
    expect(u.recovery).toBeCloseTo(19.0, 0);
    expect(Math.abs((d.tipping ?? Number.NaN) - (u.tipping ?? Number.NaN))).toBeLessThan(2);
  });

  it('every ramp tips on the way up and recovers far lower on the way down, DiffTry higher', () => {
    for (const limits of ['uniform', 'difftry'] as const) {
      const l = loop(limits);
      const inputs = JSON.stringify({
        limits,
        crossings: l.crossings,
        branches: l.branches.recovery,
      });
      for (const c of l.crossings) {
        expect(Number.isFinite(c.tippedAt), inputs).toBe(true);
        expect(Number.isFinite(c.recoveredAt), inputs).toBe(true);
        expect(c.tippedAt - c.recoveredAt, inputs).toBeGreaterThan(10);
      }
      // Recovery where the analysis's storm branch ends, within a few requests/s (a 10 s window
      // of this ramp spans 3.5 requests/s).
      expect(
        Math.abs(l.recoveredAt.mean - (l.branches.recovery ?? Number.NaN)),
        inputs,
      ).toBeLessThan(8);
    }
    expect(loop('difftry').recoveredAt.mean - loop('uniform').recoveredAt.mean).toBeGreaterThan(15);
    expect(loop('uniform').tippedAt.mean - loop('uniform').recoveredAt.mean).toBeGreaterThan(25);
  });
});

describe('(d): hotelReservation, per-try timeout 200 ms', () => {
  it('is bistable under both limits by the analysis, and the drop leaves both in the storm', () => {
    for (const h of result.hotelAnalyses) {
      expect(h.atLoad.bistable, `${h.limits}`).toBe(true);
      expect(h.branches.tipping).toBeGreaterThan(60);
    }
    expect(result.hotelRates).toEqual({ high: 50, low: 25 });
    for (const { trigger, control } of result.hotelRuns) {
      expect(control.summary.high.tipped, `${trigger.limits} control`).toBe(0);
      expect(trigger.summary.high.stormAtEnd, `${trigger.limits} trigger`).toBe(REPLICATIONS);
      expect(trigger.summary.high.tailRejection.mean).toBeGreaterThan(0.9);
    }
    // DiffTry's storm is shallower in attempts, not gone.
    const [u, d] = ['uniform', 'difftry'].map(
      (k) =>
        result.hotelAnalyses
          .find((h) => h.limits === k)
          ?.atLoad.equilibria.find((e) => e.kind === 'storm')?.attemptsPerRequest ?? Number.NaN,
    );
    expect(d).toBeLessThan((u ?? Number.NaN) - 1);
  });

  it('the tuner finds no storm in either network with at most one retry per class', () => {
    const [single, hotel] = result.monostable;
    expect(single?.storms).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(hotel?.storms).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });
});

describe('the example files the page names', () => {
  it('parse, and put the loads where the page says', async () => {
    const single = toNetworkModel(await loadNetworkFile(example('metastable-classes.yaml')));
    const total = (t: number, schedule: LoadSchedule) =>
      networkAtTime(single, schedule, t).services.reduce(
        (sum, s) => sum + s.arrivals.reduce((a, b) => a + b, 0),
        0,
      );
    const light = await loadScheduleFile(example('capacity-drop-light.yaml'), single);
    expect(total(0, light)).toBeCloseTo(15, 12);
    expect(networkAtTime(single, light, 105).services[0]?.capacity).toBeCloseTo(30, 12);
    const loop = await loadScheduleFile(example('load-loop.yaml'), single);
    expect([total(0, loop), total(300, loop), total(599.999999, loop)].map(Math.round)).toEqual([
      10, 80, 10,
    ]);
    const hotelFile = builtinExample('hotel-calls');
    const hotel = toNetworkModel(parseNetwork(hotelFile.text, hotelFile.fileName));
    const hotelDrop = await loadScheduleFile(example('hotel-frontend-drop.yaml'), hotel);
    expect(networkAtTime(hotel, hotelDrop, 0).services[0]?.arrivals).toEqual([50, 25]);
    expect(networkAtTime(hotel, hotelDrop, 105).services[0]?.capacity).toBeCloseTo(42.9, 12);
  });
});

describe('the page', () => {
  it('writes the Markdown, two CSV files and three charts from the result', () => {
    const files = renderMetastability(result, config, {
      seconds: 1,
      command: 'npm run metastability',
    });
    expect(Object.keys(files).sort()).toEqual([
      'metastability-branches.csv',
      'metastability-hotel.svg',
      'metastability-loop.svg',
      'metastability.csv',
      'metastability.md',
      'metastability.svg',
    ]);
    for (const [name, text] of Object.entries(files)) {
      if (name.endsWith('.svg')) {
        expect(text.startsWith('<svg'), name).toBe(true);
        expect(text).not.toContain('NaN');
      }
    }
    const md = files['metastability.md'] ?? '';
    expect(md).toContain('Bronson et al.');
    expect(md).toContain('Huang et al.');
    expect(md).toContain('in the storm at the end of all 3 replications');
    expect(md).not.toContain('NaN');
    const csv = (files['metastability.csv'] ?? '').split('\n');
    expect(csv[0]).toBe(
      'panel,run,k,timeoutMs,trigger,start,end,offeredRate,class,rejection,rejectionCi95,attemptsPerRequest,attemptsPerRequestCi95,timeouts,timeoutsCi95',
    );
    // One row per window and class of every run: 3 drops × 20 windows, 2 loops × 40, 2 × 2 hotel runs × 10.
    expect(csv.filter((line) => line !== '').length - 1).toBe(2 * (3 * 20 + 2 * 40 + 4 * 10));
  });
});
