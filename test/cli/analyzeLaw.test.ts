import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durationText } from '../../src/cli/analyzeCommand.js';
import { runCli } from './runCli.js';

let dir: string;
let flank: string;
let bistable: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'difftry-law-'));
  flank = join(dir, 'flank.yaml');
  // Issue 25's case at ρ = 0.48: one service, μ = 120, m = 40, k = 1, a 27 ms per-try timeout.
  await writeFile(
    flank,
    [
      'classes:',
      '  - { name: gold, retries: 1, timeoutMs: 27 }',
      '  - { name: standard, retries: 1, timeoutMs: 27 }',
      'services:',
      '  - { name: api, capacity: 120, queue: 40, model: mm1m, arrivals: { gold: 19.2, standard: 38.4 } }',
    ].join('\n'),
  );
});
beforeAll(async () => {
  // One service with k = 5 and a 50 ms per-try timeout at half its capacity: two states.
  bistable = join(dir, 'bistable.yaml');
  await writeFile(
    bistable,
    [
      'classes:',
      '  - { name: gold, retries: 5, timeoutMs: 50 }',
      'services:',
      '  - { name: api, capacity: 100, queue: 10, model: mm1m, arrivals: { gold: 50 } }',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('difftry analyze --law', () => {
  it('analyses a stand-alone service with the orbit law', async () => {
    const orbit = await runCli('analyze', flank, '--law', 'orbit', '--json');
    expect(orbit.code).toBe(0);
    const report = JSON.parse(orbit.stdout);
    expect(report.endToEnd.gold.rejection).toBeCloseTo(0.383, 3);
    expect(report.law).toBe('orbit');
    const meanField = JSON.parse(
      (await runCli('analyze', flank, '--law', 'mean-field', '--json')).stdout,
    );
    expect(meanField.endToEnd.gold.rejection).toBeCloseTo(0.0854, 3);
    expect([meanField.law, meanField.lawReason]).toEqual(['mean-field', 'asked for']);
  });

  it('takes the orbit law by default where it is measured nearer, and says so', async () => {
    // Per-try timeouts at a stand-alone M/M/1/m service: auto takes the orbit law.
    const byDefault = JSON.parse((await runCli('analyze', flank, '--json')).stdout);
    const orbit = JSON.parse((await runCli('analyze', flank, '--law', 'orbit', '--json')).stdout);
    expect(byDefault.law).toBe('orbit');
    expect(byDefault.lawReason).toMatch(/per-try timeouts/);
    expect(byDefault.endToEnd.gold.rejection).toBe(orbit.endToEnd.gold.rejection);
    const text = await runCli('analyze', flank);
    expect(text.stdout).toContain(
      'law: orbit (per-try timeouts at M/M/1/m services standing alone or routing)',
    );
    // No timeout (hotelReservation's routing form): the mean field, with the reason.
    const hotel = await runCli('analyze', '--example', 'hotel');
    expect(hotel.stdout).toContain('law: mean-field (no per-try timeout)');
    // A call graph, even with timeouts: the mean field (the orbit law does not cover it yet).
    const calls = await runCli('analyze', '--example', 'hotel-calls', '--timeout', '250');
    expect(calls.code).toBe(0);
    expect(calls.stdout).toContain('law: mean-field (a call graph)');
  });

  it('sweeps with the orbit law, each point its own analysis', async () => {
    const swept = await runCli(
      'analyze',
      flank,
      '--law',
      'orbit',
      '--sweep',
      'api.gold=9.6:19.2:9.6',
      '--json',
    );
    expect(swept.code).toBe(0);
    const { points } = JSON.parse(swept.stdout);
    expect(points.map((p: { value: number }) => p.value)).toEqual([9.6, 19.2]);
    const single = JSON.parse((await runCli('analyze', flank, '--law', 'orbit', '--json')).stdout);
    // The last point is the file's own rates: the same report as analysing it alone.
    expect(points[1].report.endToEnd.gold.rejection).toBe(single.endToEnd.gold.rejection);
    expect(points[0].report.endToEnd.gold.rejection).toBeLessThan(single.endToEnd.gold.rejection);
  });

  it('analyses a routing network with the orbit law', async () => {
    const chain = join(dir, 'chain.yaml');
    await writeFile(
      chain,
      [
        'classes:',
        '  - { name: users, retries: 1, timeoutMs: 30 }',
        'services:',
        '  - { name: a, capacity: 200, queue: 20, model: mm1m, arrivals: { users: 100 }, routes: [{ to: b, p: 0.8 }] }',
        '  - { name: b, capacity: 100, queue: 10, model: mm1m }',
      ].join('\n'),
    );
    const orbit = await runCli('analyze', chain, '--law', 'orbit', '--json');
    expect(orbit.code).toBe(0);
    const report = JSON.parse(orbit.stdout);
    const a = report.services.a.classes.users;
    // b gets what a passes on: 80 % of what a completes.
    expect(report.services.b.classes.users.in).toBeCloseTo(0.8 * a.out, 9);
    expect(report.endToEnd.users.rejection).toBeGreaterThan(a.rejection);
  });

  it('says how long each state of a bistable service lasts, as the JSON gives it', async () => {
    const json = JSON.parse(
      (await runCli('analyze', bistable, '--law', 'orbit', '--json')).stdout,
    ) as { equilibria: { kind: string; services: { api: { escapeSeconds?: number } } }[] };
    expect(json.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
    const [healthy, storm] = json.equilibria.map((e) => e.services.api.escapeSeconds ?? Number.NaN);
    // The healthy state is left within seconds, the storm lasts longer.
    expect(healthy).toBeGreaterThan(1);
    expect(storm).toBeGreaterThan(healthy as number);
    const text = await runCli('analyze', bistable, '--law', 'orbit');
    expect(text.stdout).toContain(
      `how long each state lasts: api healthy ${durationText(healthy as number)}, storm ${durationText(storm as number)}`,
    );
    // The mean-field law has no escape times, and says nothing of them.
    expect((await runCli('analyze', bistable, '--law', 'mean-field')).stdout).not.toContain(
      'how long',
    );
  });

  it('reads where a ramp over a sweep tips and recovers from the escape times', async () => {
    const args = ['analyze', bistable, '--law', 'orbit', '--sweep', 'api.gold=20:80:20'];
    const json = JSON.parse((await runCli(...args, '--ramp', '600', '--json')).stdout) as {
      sweep: { ramp?: { seconds: number; tipping: { meanLoad: number; left: number } } };
    };
    expect(json.sweep.ramp?.seconds).toBe(600);
    // Healthy at 20/s, a storm alone at 80/s: every ramp leaves the healthy state in between.
    expect(json.sweep.ramp?.tipping.left).toBe(1);
    expect(json.sweep.ramp?.tipping.meanLoad).toBeGreaterThan(20);
    expect(json.sweep.ramp?.tipping.meanLoad).toBeLessThan(80);
    // Without a ramp: where the sweep found two states, and how to get tipping and recovery.
    const plain = await runCli('analyze', bistable, '--sweep', 'api.gold=30:70:20');
    expect(plain.stdout).toContain(
      '\n\nbistable at api.gold = 50 of the swept values (the orbit law solves each point on its own): add --ramp SECONDS',
    );
    const text = await runCli(...args, '--ramp', '600');
    expect(text.stdout).not.toContain('add --ramp');
    expect(text.stdout).toContain('on a 600 s ramp of api.gold over the sweep');
    // Only with the orbit law and a sweep: one line, exit 2.
    const meanField = await runCli(
      'analyze',
      bistable,
      '--law',
      'mean-field',
      '--sweep',
      'api.gold=20:80:20',
      '--ramp',
      '600',
    );
    expect(meanField.code).toBe(2);
    expect(meanField.stderr.trim().split('\n')).toHaveLength(1);
    expect(meanField.stderr).toContain('--ramp: only with --sweep and the orbit law');
    // By default the file takes the orbit law, so the ramp is read as with --law orbit.
    const byDefault = await runCli(
      'analyze',
      bistable,
      '--sweep',
      'api.gold=20:80:20',
      '--ramp',
      '600',
    );
    expect(byDefault.code).toBe(0);
    const withoutLaw = (out: string) => out.replace(/\n\nlaw: .*\n?$/, '');
    expect(withoutLaw(byDefault.stdout)).toBe(withoutLaw(text.stdout));
    expect(byDefault.stdout).toMatch(/\n\nlaw: orbit \(per-try timeouts/);
    expect(text.stdout).toMatch(/\n\nlaw: orbit \(asked for\)\n?$/);
    expect((await runCli(...args, '--ramp', '-5')).code).toBe(2);
  });

  it('reads the ramp as a dashboard of windows does with --window', async () => {
    const args = ['analyze', bistable, '--law', 'orbit', '--sweep', 'api.gold=20:80:20'];
    const windowed = JSON.parse(
      (await runCli(...args, '--ramp', '600', '--window', '5', '--json')).stdout,
    ) as {
      sweep: { ramp: { windowSeconds?: number; tipping: { meanLoad: number; left: number } } };
    };
    const escaping = JSON.parse((await runCli(...args, '--ramp', '600', '--json')).stdout) as {
      sweep: { ramp: { windowSeconds?: number; tipping: { meanLoad: number } } };
    };
    expect(windowed.sweep.ramp.windowSeconds).toBe(5);
    expect(escaping.sweep.ramp.windowSeconds).toBeUndefined();
    expect(windowed.sweep.ramp.tipping.left).toBe(1);
    expect(windowed.sweep.ramp.tipping.meanLoad).not.toBe(escaping.sweep.ramp.tipping.meanLoad);
    const text = await runCli(...args, '--ramp', '600', '--window', '5');
    expect(text.stdout).toContain(
      "over the sweep (orbit law's escape times and 5 s windows read at half the requests failing)",
    );
    // A window needs a ramp, and a length: one line, exit 2.
    const alone = await runCli(...args, '--window', '5');
    expect(alone.code).toBe(2);
    expect(alone.stderr.trim().split('\n')).toHaveLength(1);
    expect(alone.stderr).toContain('--window: only with --ramp');
    expect((await runCli(...args, '--ramp', '600', '--window', '0')).code).toBe(2);
  });

  it('writes durations a reader takes in at a glance', () => {
    expect(durationText(0.85)).toBe('850 ms');
    expect(durationText(42)).toBe('42.0 s');
    expect(durationText(1074)).toBe('17.9 min');
    expect(durationText(5.2 * 3600)).toBe('5.2 h');
    expect(durationText(3.1 * 86_400)).toBe('3.1 days');
    expect(durationText(4000 * 365.25 * 86_400)).toBe('4.0e+3 years');
    expect(durationText(Number.POSITIVE_INFINITY)).toBe('for good');
  });

  it('refuses an unknown law or a file it does not cover in one line, exit 2', async () => {
    const unknown = await runCli('analyze', flank, '--law', 'second-order');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/Allowed choices are auto, mean-field, orbit/);
    const fluid = await runCli(
      'analyze',
      '--example',
      'hotel',
      '--model',
      'fluid',
      '--law',
      'orbit',
    );
    expect(fluid.code).toBe(2);
    expect(fluid.stderr.trim()).toBe(
      "difftry: --law orbit: the orbit law is the M/M/1/m queue's; frontend uses the fluid law (set model: mm1m or mixed, or use --law mean-field)",
    );
    const called = await runCli('analyze', '--example', 'hotel-calls', '--law', 'orbit');
    expect(called.code).toBe(2);
    expect(called.stderr.trim()).toBe(
      'difftry: --law orbit: the orbit law covers stand-alone and routing services so far; frontend calls other services (use --law mean-field)',
    );
  });
});
