import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../src/cli/analyzeCommand.js';
import type { ProgressReporter } from '../../src/cli/progress.js';
import { compactNetwork } from '../../src/config/generators/compactNetwork.js';
import { generateMuBench } from '../../src/config/index.js';
import { runCli } from './runCli.js';

/** A reporter that keeps what it was told. */
function recorder(): ProgressReporter & { updates: Record<string, string | number>[] } {
  const updates: Record<string, string | number>[] = [];
  return {
    updates,
    update: (_fraction, values) => {
      if (values !== undefined) updates.push({ ...values });
    },
    stop: () => {},
  };
}

describe('difftry analyze: progress of a long analysis', () => {
  it('goes to the reporter, never to stdout: --json is byte-identical with and without it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-progress-'));
    const file = join(dir, 'mubench60.json');
    const spec = generateMuBench({ services: 60, classes: 2, seed: 0, form: 'calls' });
    await writeFile(file, JSON.stringify(compactNetwork(spec)));
    const told = recorder();
    const withProgress = await analyzeCommand({ file, json: true, progress: told });
    const silent = await analyzeCommand({
      file,
      json: true,
      progress: { update: () => {}, stop: () => {} },
    });
    // The CLI itself, whose default reporter waits 2 s before it shows anything.
    const cli = await runCli('analyze', file, '--json');
    expect(cli.code).toBe(0);
    expect(withProgress.stdout).toBe(silent.stdout);
    expect(`${cli.stdout}`).toBe(`${withProgress.stdout}\n`);
    const phases = told.updates.map((u) => String(u.phase));
    expect(phases[0]).toBe('checking the structure');
    expect(phases).toContain('raising the load from zero (healthy state)');
    expect(phases).toContain('searching from saturation (storm state)');
    expect(phases.at(-1)).toBe('writing the report');
    expect(told.updates.some((u) => (u.sweeps as number) >= 250)).toBe(true);
    expect(told.updates.every((u) => u.count === `, ${u.sweeps} sweeps`)).toBe(true);
  });

  it('counts the orbit law’s passes over the services, not sweeps', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-progress-'));
    const file = join(dir, 'bistable.yaml');
    await writeFile(
      file,
      [
        'classes:',
        '  - { name: gold, retries: 5, timeoutMs: 50 }',
        'services:',
        '  - { name: api, capacity: 100, queue: 10, model: mm1m, arrivals: { gold: 50 } }',
      ].join('\n'),
    );
    const told = recorder();
    await analyzeCommand({ file, json: true, progress: told });
    const orbit = told.updates.filter((u) => String(u.phase).startsWith('solving the orbit law'));
    expect(orbit.map((u) => u.phase)).toContain(
      'solving the orbit law: healthy state, service api',
    );
    expect(orbit.every((u) => u.count === ', pass 1 over the services')).toBe(true);
    expect(told.updates.at(-1)).toMatchObject({ phase: 'writing the report', count: '' });
  });
});
