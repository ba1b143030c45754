import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WINDOW_CSV_COLUMNS } from '../../src/cli/simulateWindows.js';
import { runCli } from './runCli.js';

afterEach(() => vi.restoreAllMocks());

const examplePath = (file: string) => new URL(`../../examples/${file}`, import.meta.url).pathname;
const NETWORK = examplePath('metastable.yaml');
const DROP = examplePath('capacity-drop.yaml');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'difftry-schedule-cli-'));
}

/** A 40 s run of the example with the capacity drop moved to [10, 15), in 10 s windows. */
function shortDrop(): string {
  const path = join(tempDir(), 'drop.yaml');
  writeFileSync(path, 'changes:\n  - { at: 10, until: 15, service: api, capacity: 0.3 }\n');
  return path;
}
const SHORT = ['--duration', '40', '--warmup', '0', '--window', '10', '--replications', '1'];

describe('difftry simulate --schedule --window', () => {
  it('prints a table per window, with the multipliers the schedule sets', async () => {
    const { code, stdout, stderr } = await runCli(
      'simulate',
      NETWORK,
      '--schedule',
      shortDrop(),
      '--timeout',
      '100',
      ...SHORT,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^Schedule: .*drop\.yaml \(1 change\)$/m);
    expect(stdout).toContain(
      'Windows of 10 s of virtual time from the start of the run (warm-up 0 s included); one replication',
    );
    const header = stdout.split('\n').find((line) => line.trimStart().startsWith('t (s)'));
    expect(header?.split(/\s{2,}/).map((h) => h.trim())).toEqual([
      't (s)',
      'users offered/s',
      'users rejection',
      'users attempts/req',
      'api ×μ',
      'api ρ',
      'api s',
      'api timeouts/s',
      'api in system',
    ]);
    const rows = stdout.split('\n').filter((line) => /^\s*\d+–\d+\s/.test(line));
    expect(rows.map((row) => row.trim().split(/\s+/)[0])).toEqual([
      '0–10',
      '10–20',
      '20–30',
      '30–40',
    ]);
    // The drop covers half of the second window: mean multiplier (5 · 0.3 + 5 · 1) / 10.
    expect(rows[1]?.trim().split(/\s+/)[4]).toBe('0.65');
  });

  it('puts the schedule and the windows in the JSON, and writes the CSV', async () => {
    const csv = join(tempDir(), 'windows.csv');
    const { code, stdout, stderr } = await runCli(
      'simulate',
      NETWORK,
      '--schedule',
      DROP,
      ...SHORT,
      '--replications',
      '2',
      '--json',
      '--csv',
      csv,
    );
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`wrote 4 windows to ${csv}`);
    const doc = JSON.parse(stdout);
    expect(doc.schedule).toEqual({
      file: DROP,
      description: 'capacity of api × 0.3 for ten seconds, from t = 100 s to 110 s',
      changes: [{ at: 100, until: 110, service: 'api', capacity: 0.3 }],
    });
    expect(doc.windowSeconds).toBe(10);
    expect(doc.windows).toHaveLength(4);
    expect(doc.windows[0].classes.users.offeredCi95).toBeGreaterThan(0);
    expect(doc.windows[0].services.api).toHaveProperty('inSystem');
    const lines = readFileSync(csv, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(WINDOW_CSV_COLUMNS.join(','));
    // One row per window and class, then per window and service.
    expect(lines).toHaveLength(1 + 4 * 2);
    const row = Object.fromEntries(
      (lines[1] ?? '').split(',').map((cell, i) => [WINDOW_CSV_COLUMNS[i], cell]),
    );
    expect(row).toMatchObject({ start: '0', end: '10', scope: 'class', name: 'users' });
    expect(row.rho).toBe('');
    expect(Number(row.offered)).toBeCloseTo(doc.windows[0].classes.users.offered, 9);
    expect(lines[2]).toMatch(/^0,10,service,api,1,/);
  });

  it('leaves the JSON of a run without --schedule and --window as it was', async () => {
    const { stdout } = await runCli(
      'simulate',
      '--example',
      'two-tier',
      '--duration',
      '5',
      '--replications',
      '2',
      '--json',
    );
    const doc = JSON.parse(stdout);
    expect(doc).not.toHaveProperty('windows');
    expect(doc).not.toHaveProperty('schedule');
  });

  it.each([
    [
      'a schedule naming an unknown service',
      () => {
        const path = join(tempDir(), 'bad.yaml');
        writeFileSync(path, 'changes:\n  - { at: 1, service: apx, capacity: 2 }\n');
        return ['--schedule', path];
      },
      /^difftry: .*bad\.yaml:2:23: changes\[0\]\.service: expected a service of the network \(api\), got "apx"\n$/,
    ],
    [
      'a missing schedule file',
      () => ['--schedule', join(tempDir(), 'none.yaml')],
      /none\.yaml: cannot read the file: no such file\n$/,
    ],
    ['a window of 0 s', () => ['--window', '0'], /--window: expected a positive number, got "0"/],
    [
      '--csv into a directory that does not exist',
      () => ['--window', '10', '--csv', join(tempDir(), 'no', 'such', 'out.csv')],
      /--csv: cannot write .*out\.csv: no such directory/,
    ],
    [
      '--csv onto a directory',
      () => ['--window', '10', '--csv', tempDir()],
      /--csv: .* is a directory; expected a file to write/,
    ],
    ['--csv without --window', () => ['--csv', 'x.csv'], /--csv: only with --sweep or --window/],
    [
      '--window with --sweep',
      () => ['--window', '10', '--sweep', 'api.users=10:20:10'],
      /--window: not with --sweep/,
    ],
    [
      '--schedule with --sweep',
      () => ['--schedule', DROP, '--sweep', 'api.users=10:20:10'],
      /--schedule: not with --sweep/,
    ],
  ])('exits 2 with one line for %s, before any simulation', async (_case, args, message) => {
    const { code, stdout, stderr } = await runCli(
      'simulate',
      NETWORK,
      '--duration',
      '5',
      ...args(),
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
