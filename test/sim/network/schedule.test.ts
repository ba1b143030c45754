import { describe, expect, it } from 'vitest';
import type { NetworkModel } from '../../../src/model/index.js';
import type { LoadSchedule } from '../../../src/model/network/LoadSchedule.js';
import { replicateNetwork } from '../../../src/sim/network/replicateNetwork.js';
import type { SimulatedWindow } from '../../../src/sim/network/SimulatedWindow.js';
import { scheduledRates } from '../../../src/sim/network/scheduledRates.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';
import { oneService } from './fixtures.js';

/** One class, one M/M/1/m service without retries: capacity μ, room for m, arrivals λ. */
function mm1m(capacity: number, queue: number, arrivalRate: number): NetworkModel {
  return {
    classes: [{ name: 'only', retryLimit: 0 }],
    services: [
      {
        name: 'server',
        capacity,
        queue,
        model: 'mm1m',
        arrivals: [arrivalRate],
        retryLimits: [0],
        routes: [],
      },
    ],
  };
}

/** Blocking of M/M/1/m: (1 − ρ)ρ^m / (1 − ρ^(m+1)), 1/(m + 1) at ρ = 1. */
function mm1mBlocking(rho: number, m: number): number {
  if (rho === 1) return 1 / (m + 1);
  return ((1 - rho) * rho ** m) / (1 - rho ** (m + 1));
}

/** The figures of class `only` in the windows that lie inside [from, to). */
function within(windows: readonly SimulatedWindow[] | undefined, from: number, to: number) {
  return (windows ?? []).filter((w) => w.start >= from && w.end <= to);
}

describe('simulateNetwork with a load schedule', () => {
  it('draws ramped arrivals as a Poisson process of intensity γ·m(t): window counts match ∫γm', () => {
    // γ = 100/s; m ramps 0.5 → 2 over [0, 200), is 0 on [200, 250), then 1. The server is fast
    // and roomy, so only the arrivals matter. Count in [a, b) on the ramp: γ·(b − a)·(m(a) + m(b))/2.
    const gamma = 100;
    const schedule: LoadSchedule = {
      changes: [
        { at: 0, until: 200, arrivals: { from: 0.5, to: 2 } },
        { at: 200, until: 250, arrivals: 0 },
      ],
    };
    const run = simulateNetwork(mm1m(1e6, 1e6, gamma), {
      duration: 300,
      warmup: 0,
      seed: 7,
      schedule,
      windowSeconds: 25,
    });
    const ramp = (t: number) => 0.5 + (1.5 * t) / 200;
    for (const w of run.windows ?? []) {
      const length = w.end - w.start;
      const expected =
        w.end <= 200
          ? (gamma * length * (ramp(w.start) + ramp(w.end))) / 2
          : w.start >= 250
            ? gamma * length
            : 0;
      const count = (w.classes.only?.offered ?? Number.NaN) * length;
      // Poisson: sd = √mean; 4 sd.
      const context = { window: [w.start, w.end], count, expected };
      expect(Math.abs(count - expected), JSON.stringify(context)).toBeLessThanOrEqual(
        4 * Math.sqrt(expected) + 1e-9,
      );
      expect(w.classes.only?.multiplier).toBeCloseTo(expected / (gamma * length), 12);
    }
    // The whole run: 100·(200·1.25 + 0 + 50) = 30 000 expected arrivals.
    const total = run.endToEnd.only?.originals ?? Number.NaN;
    expect(Math.abs(total - 30_000)).toBeLessThan(4 * Math.sqrt(30_000));
  });

  it('gives window counts the Poisson dispersion (variance ≈ mean) across replications', () => {
    // 40 replications, one 10 s window of a ramp 0.5 → 1 of γ = 50: mean 50·10·0.75 = 375.
    const counts: number[] = [];
    for (let stream = 0; stream < 40; stream++) {
      const run = simulateNetwork(mm1m(1e6, 1e6, 50), {
        duration: 10,
        warmup: 0,
        seed: 3,
        stream,
        schedule: { changes: [{ at: 0, until: 10, arrivals: { from: 0.5, to: 1 } }] },
        windowSeconds: 10,
      });
      counts.push((run.windows?.[0]?.classes.only?.offered ?? Number.NaN) * 10);
    }
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    const variance = counts.reduce((a, c) => a + (c - mean) ** 2, 0) / (counts.length - 1);
    // The mean within 4 standard errors of 375; the index of dispersion within 4 of its standard
    // deviations √(2/(n − 1)) of 1.
    expect(Math.abs(mean - 375), `mean ${mean}`).toBeLessThan(4 * Math.sqrt(375 / 40));
    expect(Math.abs(variance / mean - 1), `dispersion ${variance / mean}`).toBeLessThan(
      4 * Math.sqrt(2 / 39),
    );
  });

  it('a capacity step gives the M/M/1/m blocking of the new ρ in windows well inside it', () => {
    // λ = 50, μ = 100, m = 10, no retries; capacity × 0.4 on [100, 2100) ⇒ ρ = 1.25 there, 0.5
    // outside. Windows of 100 s; those in [200, 2100) are inside the step (100 s to settle).
    const m = 10;
    const run = simulateNetwork(mm1m(100, m, 50), {
      duration: 2600,
      warmup: 0,
      seed: 11,
      schedule: { changes: [{ at: 100, until: 2100, service: 'server', capacity: 0.4 }] },
      windowSeconds: 100,
    });
    const pooled = (windows: readonly SimulatedWindow[]) => {
      let rejected = 0;
      let ended = 0;
      for (const w of windows) {
        const only = w.classes.only;
        rejected += (only?.rejected ?? Number.NaN) * (w.end - w.start);
        ended +=
          ((only?.rejected ?? Number.NaN) + (only?.completed ?? Number.NaN)) * (w.end - w.start);
      }
      return rejected / ended;
    };
    const inside = within(run.windows, 200, 2100);
    expect(inside).toHaveLength(19);
    const exact = mm1mBlocking(1.25, m); // 0.2188
    // 95 000 requests; batch means over the 19 windows put the standard error near 0.003, and
    // the tolerance is 4 of them.
    expect(Math.abs(pooled(inside) - exact), `exact ${exact}`).toBeLessThan(0.012);
    for (const w of inside) {
      expect(w.services.server?.multiplier).toBe(0.4);
      expect(w.services.server?.rho).toBeCloseTo((w.services.server?.attempts ?? 0) / 40, 12);
    }
    // After the step: ρ = 0.5, blocking 2.4e-4.
    const after = within(run.windows, 2200, 2600);
    expect(pooled(after)).toBeLessThan(0.003);
    const before = run.windows?.[0];
    expect(before?.services.server?.multiplier).toBe(1);
  });

  it('is reproducible with a seed, and windows change no other figure', () => {
    const network = oneService([5, 1]);
    const schedule: LoadSchedule = {
      changes: [{ at: 5, until: 8, service: 'frontend', capacity: { from: 0.5, to: 1.5 } }],
    };
    const options = { duration: 20, seed: 4, schedule, windowSeconds: 5 };
    const first = simulateNetwork(network, options);
    expect(simulateNetwork(network, options)).toEqual(first);
    expect(simulateNetwork(network, { ...options, seed: 5 })).not.toEqual(first);
    // 22 s (2 s warm-up + 20 s): windows [0, 5) … [20, 22).
    expect(first.windows?.map((w) => [w.start, w.end])).toEqual([
      [0, 5],
      [5, 10],
      [10, 15],
      [15, 20],
      [20, 22],
    ]);
    const { windows, events, ...rest } = first;
    const { events: eventsWithout, ...without } = simulateNetwork(network, {
      ...options,
      windowSeconds: undefined,
    });
    expect(rest).toEqual(without);
    expect(events).toBeGreaterThan(eventsWithout);
    expect(windows).toHaveLength(5);
  });

  it('changes nothing with an empty schedule, and has no windows unless asked', () => {
    const network = oneService([5, 1]);
    const plain = simulateNetwork(network, { duration: 10, seed: 2 });
    expect(plain).not.toHaveProperty('windows');
    expect(simulateNetwork(network, { duration: 10, seed: 2, schedule: { changes: [] } })).toEqual(
      plain,
    );
  });

  it('counts every external arrival of the run in exactly one window', () => {
    const run = simulateNetwork(oneService([5, 1]), {
      duration: 30,
      warmup: 0,
      seed: 9,
      windowSeconds: 7,
      schedule: { changes: [{ at: 0, until: 30, class: 'low', arrivals: { from: 1, to: 0.2 } }] },
    });
    for (const name of ['high', 'low']) {
      let arrivals = 0;
      for (const w of run.windows ?? [])
        arrivals += (w.classes[name]?.offered ?? 0) * (w.end - w.start);
      expect(Math.round(arrivals)).toBe(run.endToEnd[name]?.originals);
    }
    expect(run.windows?.at(-1)).toMatchObject({ start: 28, end: 30 });
  });

  it('averages windows over replications with a 95 % half-width', () => {
    const result = replicateNetwork(
      oneService([5, 1]),
      {
        duration: 20,
        seed: 1,
        windowSeconds: 10,
        schedule: { changes: [{ at: 10, until: 15, service: 'frontend', capacity: 0.5 }] },
      },
      3,
    );
    const windows = result.windows ?? [];
    expect(windows.map((w) => w.start)).toEqual([0, 10, 20]);
    const low = windows[1]?.classes.low;
    expect(low?.rejectionCi95).toBeGreaterThan(0);
    expect(windows[1]?.services.frontend?.multiplier).toBeCloseTo(0.75, 12);
    expect(windows[1]?.services.frontend?.multiplierCi95).toBe(0);
    expect(replicateNetwork(oneService([5, 1]), { duration: 5, seed: 1 }, 2)).not.toHaveProperty(
      'windows',
    );
  });

  it('refuses a schedule that does not fit the network, and a bad window length', () => {
    const network = oneService([5, 1]);
    expect(() =>
      simulateNetwork(network, {
        duration: 5,
        seed: 1,
        schedule: { changes: [{ at: 1, service: 'backend', capacity: 2 }] },
      }),
    ).toThrow(
      'schedule.changes[0].service: expected a service of the network (frontend), got "backend"',
    );
    expect(() =>
      scheduledRates(
        {
          changes: [
            { at: 0, until: 10, class: 'low', arrivals: 2 },
            { at: 5, service: 'frontend', arrivals: 0.5 },
          ],
        },
        network,
      ),
    ).toThrow(/changes\[1\]\.at: overlaps changes\[0\] on the arrivals of low at frontend/);
    expect(() => simulateNetwork(network, { duration: 5, seed: 1, windowSeconds: 0 })).toThrow(
      /windowSeconds should be a positive/,
    );
  });
});
