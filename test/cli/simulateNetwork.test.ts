import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { simulateCommand } from '../../src/cli/simulateCommand.js';
import { SIMULATE_SWEEP_CSV_COLUMNS } from '../../src/cli/simulateSweep.js';
import { runCli } from './runCli.js';

afterEach(() => vi.restoreAllMocks());

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'difftry-simulate-'));
}

function tempFile(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

/** Short runs: every test here stays well under a second of simulation. */
const SHORT = ['--duration', '5', '--replications', '2'];

/**
 * Two services in series, overloaded, so that both classes are rejected and retried at `api`:
 * `high` retries after 1 ms, `low` after 3 s — the per-class backoffs the simulator must apply.
 */
const TWO_BACKOFFS = `
classes:
  - { name: high, retries: 2, backoff: { kind: constant, delayMs: 1 } }
  - { name: low, retries: 2, backoff: { kind: constant, delayMs: 3000 } }
services:
  - name: api
    capacity: 20
    queue: 2
    arrivals: { high: 15, low: 15 }
    routes: [{ to: db, p: 1 }]
  - { name: db, capacity: 200, queue: 20 }
`;

describe('difftry simulate, network simulator', () => {
  it('gives each class its own backoff from the file', async () => {
    const path = tempFile('backoffs.yaml', TWO_BACKOFFS);
    const { code, stdout, stderr } = await runCli('simulate', path, ...SHORT, '--json');
    expect(code, stderr).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.backoffs).toEqual({
      high: { kind: 'constant', delayMs: 1 },
      low: { kind: 'constant', delayMs: 3000 },
    });
    expect(doc).not.toHaveProperty('backoff');
    expect(doc).not.toHaveProperty('notes');
    // A retried low request waited 3 s; a retried high one 1 ms. With one backoff for every
    // class (the old behaviour) both tails would be alike.
    expect(doc.endToEnd.low.latencyP99).toBeGreaterThan(3);
    expect(doc.endToEnd.high.latencyP99).toBeLessThan(1);
    expect(doc.timeouts).toBeNull();
  });

  it('says the backoffs and internal calls in the text output, without the old note', async () => {
    const { code, stdout } = await runCli('simulate', '--example', 'two-tier', ...SHORT);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Backoff: high random, mean 100 ms; low exponential from 50 ms ×2 up to 800 ms, full jitter',
    );
    expect(stdout).not.toMatch(/not yet applied/);
    expect(stdout).not.toMatch(/Timeouts:/);
    expect(stdout).not.toMatch(/timeouts\/s/);
    expect(stdout).toMatch(
      /^Load: [\d.]+ attempts\/request, [\d.]+ attempts\/success; [\d.]+ internal calls\/request, [\d.]+ internal calls\/success$/m,
    );
  });

  it('reports internal calls per request and per success in the JSON load', async () => {
    const { stdout } = await runCli(
      'simulate',
      '--example',
      'hotel',
      '--duration',
      '20',
      '--replications',
      '2',
      '--json',
    );
    const { load } = JSON.parse(stdout);
    const analysis = JSON.parse((await runCli('analyze', '--example', 'hotel', '--json')).stdout);
    // As the analysis counts them: about 1.81 per request, 3.80 per completed one.
    expect(load.internalPerRequest).toBeCloseTo(analysis.load.internalPerRequest, 0);
    expect(load.internalPerSuccess).toBeCloseTo(analysis.load.internalPerSuccess, 0);
    expect(load.internalPerSuccess).toBeGreaterThan(load.internalPerRequest);
    expect(typeof load.internalPerRequestCi95).toBe('number');
  });

  it('applies --timeout at every hop: timeouts in the header, the table and the JSON', async () => {
    const text = await runCli('simulate', '--example', 'two-tier', ...SHORT, '--timeout', '20');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Timeouts: per-try timeout 20 ms at every hop');
    expect(text.stdout).toMatch(/attempts\/s +timeouts\/s +rejection/);
    const json = await runCli(
      'simulate',
      '--example',
      'two-tier',
      ...SHORT,
      '--timeout',
      '20',
      '--json',
    );
    const doc = JSON.parse(json.stdout);
    expect(doc.timeouts).toEqual({ strategy: { kind: 'fixed', timeoutMs: 20 } });
    const search = doc.services.search.classes.low;
    expect(search.timeouts).toBeGreaterThan(0);
    expect(typeof search.timeoutsCi95).toBe('number');
  });

  it('runs an adaptive --timeouts strategy, named in the header', async () => {
    for (const name of ['rto', 'controller', 'exponential-backoff', 'optimizer', 'combined']) {
      const { code, stdout } = await runCli(
        'simulate',
        '--example',
        'two-tier',
        '--duration',
        '2',
        '--replications',
        '1',
        '--timeouts',
        name,
      );
      expect(code, name).toBe(0);
      expect(stdout).toContain(
        `Timeouts: per-try timeouts by ${name} (defaults), one strategy per hop`,
      );
    }
    const { stdout } = await runCli(
      'simulate',
      '--example',
      'two-tier',
      ...SHORT,
      '--timeouts',
      '{"kind":"rto","minMs":20}',
      '--json',
    );
    expect(JSON.parse(stdout).timeouts).toEqual({ strategy: { kind: 'rto', minMs: 20 } });
  });

  it("honours the classes' timeoutMs, and moves a single service to the network simulator", async () => {
    const path = tempFile(
      'timeouts.yaml',
      'classes:\n  - { name: high, retries: 3, timeoutMs: 30 }\n  - { name: low, retries: 1 }\n' +
        'services:\n  - { name: api, capacity: 100, queue: 20, arrivals: { high: 40, low: 70 } }\n',
    );
    const { code, stdout } = await runCli('simulate', path, ...SHORT, '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.timeouts).toEqual({ classTimeoutMs: { high: 30 } });
    expect(doc.services.api.classes.high.timeouts).toBeGreaterThan(0);
    expect(doc.services.api.classes.low.timeouts).toBe(0);
  });

  it("honours a service's own timeouts (no class timeoutMs), and says so", async () => {
    const path = tempFile(
      'service-timeouts.yaml',
      'classes:\n  - { name: high, retries: 3 }\n  - { name: low, retries: 1 }\n' +
        'services:\n  - name: api\n    capacity: 100\n    queue: 20\n' +
        '    arrivals: { high: 40, low: 70 }\n    timeouts: { low: 30 }\n',
    );
    const { code, stdout } = await runCli('simulate', path, ...SHORT, '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.timeouts).toEqual({ classTimeoutMs: {}, serviceTimeoutMs: { api: { low: 30 } } });
    expect(doc.services.api.classes.low.timeouts).toBeGreaterThan(0);
    expect(doc.services.api.classes.high.timeouts).toBe(0);
    const text = await runCli('simulate', path, ...SHORT);
    expect(text.stdout).toContain('per-try timeouts on calls into api (low 30 ms)');
  });

  it('predicts the run with its fixed per-try timeout, as `analyze --timeout` does', async () => {
    const path = tempFile(
      'timed.yaml',
      'classes:\n  - { name: high, retries: 3 }\n  - { name: low, retries: 1 }\n' +
        'services:\n  - { name: api, capacity: 100, queue: 20, arrivals: { high: 20, low: 40 } }\n',
    );
    const simulated = await runCli(
      'simulate',
      path,
      ...SHORT,
      '--timeout',
      '30',
      '--compare-analysis',
      '--json',
    );
    expect(simulated.code, simulated.stderr).toBe(0);
    const analysis = JSON.parse(simulated.stdout).analysis;
    expect(analysis.notes).toEqual([]);
    const analysed = await runCli('analyze', path, '--timeout', '30', '--json');
    const untimed = await runCli('analyze', path, '--json');
    const timed = JSON.parse(analysed.stdout).endToEnd.low.rejection;
    expect(analysis.report.endToEnd.low.rejection).toBe(timed);
    // ρ = 0.6 and T = 3 mean service times: many attempts outlive their timeout.
    expect(timed).toBeGreaterThan(JSON.parse(untimed.stdout).endToEnd.low.rejection + 0.01);
    const adaptive = await runCli(
      'simulate',
      path,
      ...SHORT,
      '--timeouts',
      'rto',
      '--compare-analysis',
      '--json',
    );
    const predicted = JSON.parse(adaptive.stdout).analysis;
    expect(predicted.notes).toEqual([
      'the analysis models fixed per-try timeouts, not the adaptive rto strategy: it predicts the run without timeouts',
    ]);
    expect(predicted.report.endToEnd.low.rejection).toBe(
      JSON.parse(untimed.stdout).endToEnd.low.rejection,
    );
  });

  it('puts the analysis beside the simulation with --compare-analysis', async () => {
    const { code, stdout } = await runCli(
      'simulate',
      '--example',
      'hotel',
      ...SHORT,
      '--compare-analysis',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/rejection +predicted +completion/);
    const json = await runCli(
      'simulate',
      '--example',
      'single',
      ...SHORT,
      '--compare-analysis',
      '--json',
    );
    const doc = JSON.parse(json.stdout);
    expect(doc.analysis.report.converged).toBe(true);
    expect(doc.analysis.report.endToEnd.high.rejection).toBeCloseTo(0.2027, 3);
    const budget = await runCli(
      'simulate',
      '--example',
      'two-tier',
      ...SHORT,
      '--strategy',
      'budget-grpc',
      '--compare-analysis',
    );
    expect(budget.stdout).toMatch(/Note: the analysis models retry limits, not the budgets/);
  });
});

describe('difftry simulate --sweep', () => {
  it('writes one CSV row per point and class, with the analysis beside the simulation', async () => {
    const csv = join(tempDir(), 'sweep.csv');
    const { code, stdout, stderr } = await runCli(
      'simulate',
      '--example',
      'single',
      ...SHORT,
      '--sweep',
      'frontend.low=100:200:50',
      '--csv',
      csv,
    );
    expect(code).toBe(0);
    expect(stderr).toContain(`wrote 6 rows to ${csv}`);
    const [header, ...lines] = readFileSync(csv, 'utf8').trimEnd().split('\n');
    expect(header).toBe(SIMULATE_SWEEP_CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(6);
    const rows = lines.map((line) => {
      const cells = (line ?? '').split(',');
      expect(cells).toHaveLength(SIMULATE_SWEEP_CSV_COLUMNS.length);
      return Object.fromEntries(SIMULATE_SWEEP_CSV_COLUMNS.map((c, i) => [c, cells[i]]));
    });
    expect(rows.map((r) => [r.parameter, r.value, r.class])).toEqual([
      ['frontend.low', '100', 'high'],
      ['frontend.low', '100', 'low'],
      ['frontend.low', '150', 'high'],
      ['frontend.low', '150', 'low'],
      ['frontend.low', '200', 'high'],
      ['frontend.low', '200', 'low'],
    ]);
    for (const r of rows) {
      expect(r.analysisConverged).toBe('true');
      const simulated = Number(r.rejection);
      const predicted = Number(r.analysisRejection);
      expect(Math.abs(simulated - predicted), `${r.value} ${r.class}`).toBeLessThan(0.1);
      expect(Number(r.attemptsPerRequest)).toBeGreaterThanOrEqual(1);
      expect(Number(r.internalPerRequest)).toBe(0);
      expect(Number(r.latencyP99Ms)).toBeGreaterThanOrEqual(Number(r.latencyP50Ms));
      expect(r.timeoutsPerSecond).toBe('0');
    }
    // Rejection grows with the low class's load.
    expect(Number(rows[4]?.rejection)).toBeGreaterThan(Number(rows[0]?.rejection));
    expect(stdout).toMatch(
      /frontend\.low +class +rejection +analysis +attempts\/request +internal\/request +p50 ms +p99 ms/,
    );
    expect(stdout).toContain('Swept frontend.low over 3 points');
  });

  it('sweeps a capacity of a network as JSON, one point per value', async () => {
    const { code, stdout } = await runCli(
      'simulate',
      '--example',
      'two-tier',
      ...SHORT,
      '--sweep',
      'search.capacity=100:200:100',
      '--json',
    );
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.sweep).toEqual({ parameter: 'search.capacity', values: [100, 200] });
    expect(doc.points).toHaveLength(2);
    const [slow, fast] = doc.points;
    expect(slow.analysis.converged).toBe(true);
    expect(fast.simulation.services.search.rho).toBeLessThan(slow.simulation.services.search.rho);
    expect(slow.simulation.load.internalPerRequest).toBeGreaterThan(0);
  });

  it('has no analysis column for a budget strategy, and a timeouts column with timeouts', async () => {
    const csv = join(tempDir(), 'budget.csv');
    const { code, stdout } = await runCli(
      'simulate',
      '--example',
      'two-tier',
      ...SHORT,
      '--strategy',
      'budget-envoy',
      '--timeout',
      '25',
      '--sweep',
      'frontend.low=100:200:100',
      '--csv',
      csv,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/class +rejection +attempts\/request/);
    expect(stdout).toMatch(/p99 ms +timeouts\/s/);
    expect(stdout).toContain('Timeouts: per-try timeout 25 ms at every hop');
    const [, first] = readFileSync(csv, 'utf8').split('\n');
    const cells = (first ?? '').split(',');
    expect(cells[SIMULATE_SWEEP_CSV_COLUMNS.indexOf('analysisRejection')]).toBe('');
    expect(cells[SIMULATE_SWEEP_CSV_COLUMNS.indexOf('analysisConverged')]).toBe('');
  });
});

describe('difftry simulate progress', () => {
  it('moves within a replication, never backwards, and ends at 1', async () => {
    const fractions: number[] = [];
    let stopped = 0;
    await simulateCommand({
      example: 'hotel',
      duration: 100,
      replications: 2,
      seed: 1,
      progress: { update: (f) => fractions.push(f), stop: () => stopped++ },
    });
    expect(stopped).toBe(1);
    // Reports inside the first replication, before its end at 1/2.
    expect(fractions.some((f) => f > 0 && f < 0.5)).toBe(true);
    expect(fractions.some((f) => f > 0.5 && f < 1)).toBe(true);
    for (let i = 1; i < fractions.length; i++) {
      expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1] as number);
    }
    expect(fractions.at(-1)).toBe(1);
  });

  it('spans the whole sweep', async () => {
    const fractions: number[] = [];
    await simulateCommand({
      example: 'single',
      duration: 5,
      replications: 2,
      seed: 1,
      sweep: 'frontend.low=100:200:50',
      progress: { update: (f) => fractions.push(f), stop: () => {} },
    });
    expect(fractions).toContain(1 / 6);
    expect(fractions).toContain(1 / 3);
    expect(fractions.at(-1)).toBe(1);
    for (let i = 1; i < fractions.length; i++) {
      expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1] as number);
    }
  });

  it('goes to stderr, never stdout', async () => {
    // Make every clock reading a second later, so the bar appears at once.
    let clock = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => {
      clock += 1000;
      return clock;
    });
    const { code, stdout, stderr } = await runCli(
      'simulate',
      '--example',
      'two-tier',
      ...SHORT,
      '--json',
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/simulate \[/);
    expect(() => JSON.parse(stdout)).not.toThrow();
    expect(stdout).not.toMatch(/simulate \[/);
  });
});

describe('difftry simulate: bad input exits 2 with one line', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'negative --timeout',
      ['--timeout', '-5'],
      /^difftry: --timeout: expected a positive number of milliseconds, got "-5"$/,
    ],
    ['zero --timeout', ['--timeout', '0'], /--timeout: expected a positive number/],
    ['non-numeric --timeout', ['--timeout', 'soon'], /--timeout: .*"soon"/],
    ['unknown --timeouts', ['--timeouts', 'nope'], /--timeouts: expected one of .*rto.*"nope"/],
    ['--timeouts fixed', ['--timeouts', 'fixed'], /use --timeout MS/],
    ['bad --timeouts JSON', ['--timeouts', '{nope'], /--timeouts: invalid JSON/],
    [
      'unknown --timeouts option',
      ['--timeouts', '{"kind":"rto","minMS":1}'],
      /--timeouts: .*no option "minMS"/,
    ],
    ['both timeouts', ['--timeout', '5', '--timeouts', 'rto'], /--timeout MS or --timeouts/],
    ['--csv without --sweep', ['--csv', 'x.csv'], /--csv: only with --sweep/],
    ['bad --sweep', ['--sweep', 'frontend.low=5'], /--sweep: expected SERVICE\.FIELD/],
    ['unknown sweep class', ['--sweep', 'frontend.gold=1:2:1'], /--sweep: expected a class/],
  ];
  it.each(cases)('%s', async (_name, argv, pattern) => {
    const { code, stdout, stderr } = await runCli('simulate', '--example', 'single', ...argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^difftry: /);
    expect(stderr.trim()).toMatch(pattern);
  });
});
