import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

let dir: string;
let flank: string;

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
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('difftry analyze --law', () => {
  it('analyses a stand-alone service with the orbit law', async () => {
    const orbit = await runCli('analyze', flank, '--law', 'orbit', '--json');
    expect(orbit.code).toBe(0);
    const report = JSON.parse(orbit.stdout);
    expect(report.endToEnd.gold.rejection).toBeCloseTo(0.383, 3);
    const meanField = JSON.parse((await runCli('analyze', flank, '--json')).stdout);
    expect(meanField.endToEnd.gold.rejection).toBeCloseTo(0.0854, 3);
    const named = JSON.parse(
      (await runCli('analyze', flank, '--law', 'mean-field', '--json')).stdout,
    );
    expect(named.endToEnd.gold.rejection).toBe(meanField.endToEnd.gold.rejection);
  });

  it('refuses an unknown law or a file it does not cover in one line, exit 2', async () => {
    const unknown = await runCli('analyze', flank, '--law', 'second-order');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/Allowed choices are mean-field, orbit/);
    const routed = await runCli('analyze', '--example', 'hotel', '--law', 'orbit');
    expect(routed.code).toBe(2);
    expect(routed.stderr.trim()).toBe(
      'difftry: --law orbit: the orbit law covers services that stand alone so far; frontend routes requests on (use --law mean-field)',
    );
    const swept = await runCli('analyze', flank, '--law', 'orbit', '--sweep', 'api.gold=10:20:5');
    expect(swept.code).toBe(2);
    expect(swept.stderr.trim()).toBe('difftry: --law orbit: not with --sweep yet');
  });
});
