import { expect, it } from 'vitest';
import { loadNetworkFile, loadScheduleFile, toNetworkModel } from '../src/config/index.js';
import { fixedTimeout } from '../src/policy/timeouts/TimeoutStrategy.js';
import { simulateNetwork } from '../src/sim/index.js';

const example = (file: string) => new URL(file, import.meta.url).pathname;

it('a ten-second capacity drop tips the half-loaded service into a storm that outlasts it', async () => {
  const network = toNetworkModel(await loadNetworkFile(example('metastable.yaml')));
  const schedule = await loadScheduleFile(example('capacity-drop.yaml'), network);
  const run = simulateNetwork(network, {
    duration: 300,
    warmup: 0,
    seed: 1,
    schedule,
    windowSeconds: 10,
    timeouts: () => fixedTimeout(100),
  });
  const rejection = (run.windows ?? []).map((w) => w.classes.users?.rejection ?? Number.NaN);
  expect(rejection).toHaveLength(30);
  // Healthy before the drop (ρ = 0.5: a 100 ms timeout almost never fires) …
  expect(Math.max(...rejection.slice(0, 10))).toBeLessThan(0.01);
  // … and failing long after capacity came back at 110 s: the retries of timed-out attempts
  // keep the queue full of work nobody waits for.
  expect(Math.min(...rejection.slice(12))).toBeGreaterThan(0.9);
});

it('the load ramp traces the schedule: offered load follows × 0.5 → × 2 → × 0.5', async () => {
  const network = toNetworkModel(await loadNetworkFile(example('metastable.yaml')));
  const schedule = await loadScheduleFile(example('load-ramp.yaml'), network);
  const run = simulateNetwork(network, {
    duration: 300,
    warmup: 0,
    seed: 1,
    schedule,
    windowSeconds: 30,
  });
  // The mean multiplier over [0, 30): 0.5 + 0.01 · 15 = 0.65; over [150, 180): 2 − 0.15 = 1.85.
  expect(run.windows?.[0]?.classes.users?.multiplier).toBeCloseTo(0.65, 12);
  expect(run.windows?.[5]?.classes.users?.multiplier).toBeCloseTo(1.85, 12);
  for (const w of run.windows ?? []) {
    const users = w.classes.users;
    const expected = 50 * (users?.multiplier ?? Number.NaN);
    // 30 s windows: the offered rate within 4 Poisson standard deviations of γ · m̄.
    expect(Math.abs((users?.offered ?? Number.NaN) - expected)).toBeLessThan(
      4 * Math.sqrt(expected / 30),
    );
  }
});
