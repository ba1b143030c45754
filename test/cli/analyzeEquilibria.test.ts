import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

const METASTABLE = 'examples/metastable.yaml';

describe('difftry analyze: every equilibrium, and where a sweep tips and recovers', () => {
  it('a per-try timeout makes the half-loaded service bistable, in one line', async () => {
    const { code, stdout } = await runCli('analyze', METASTABLE, '--timeout', '100');
    expect(code).toBe(0);
    expect(stdout).toContain('bistable: healthy (users 0.0 %) or storm (users 100 %)');
  });

  it('without a timeout the service has one state; --json always lists the equilibria', async () => {
    const { code, stdout } = await runCli('analyze', METASTABLE, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.equilibria).toHaveLength(1);
    expect(report.equilibria[0]).toMatchObject({ kind: 'healthy' });
    expect(Object.keys(report.equilibria[0])).toEqual([
      'kind',
      'stable',
      'endToEnd',
      'attemptsPerRequest',
      'services',
    ]);
    expect(Object.keys(report.equilibria[0].services.api)).toEqual(['s', 'rho']);
  });

  it('with the timeout --json has a healthy and a storm entry', async () => {
    const { stdout } = await runCli('analyze', METASTABLE, '--timeout', '100', '--json');
    const report = JSON.parse(stdout);
    expect(report.equilibria.map((e: { kind: string }) => e.kind)).toEqual(['healthy', 'storm']);
    expect(report.equilibria[1].endToEnd.users.rejection).toBeGreaterThan(0.999);
    expect(report.equilibria[1].attemptsPerRequest).toBeCloseTo(6, 2);
  });

  it('--sweep follows both branches: the table shows the storm beside the healthy state, the last line where each ends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-sweep-'));
    const csv = join(dir, 'sweep.csv');
    const { code, stdout } = await runCli(
      'analyze',
      METASTABLE,
      '--timeout',
      '100',
      // The mean field's branches, followed along the sweep (the default orbit law solves each
      // point on its own).
      '--law',
      'mean-field',
      '--sweep',
      'api.users=10:100:10',
      '--csv',
      csv,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /bistable: tips above api\.users = 69\.\d+; recovers below api\.users = 1[89]\.\d+/,
    );
    expect(stdout).toContain('storm rejection');
    const lines = (await readFile(csv, 'utf8')).trim().split('\n');
    expect(lines[0]).toBe(
      'parameter,value,class,state,rejection,completion,stormRejection,attemptsPerRequest,internalPerRequest,converged',
    );
    // Past the tipping point the only state is the storm.
    expect(lines.find((l) => l.startsWith('api.users,80,'))).toMatch(
      /^api\.users,80,users,storm,1,/,
    );
  });

  it('DiffTry limits shrink the bistable range: with one retry the storm needs more than μ/2', async () => {
    const { stdout } = await runCli(
      'analyze',
      METASTABLE,
      '--timeout',
      '100',
      '--sweep',
      'api.users=10:100:10',
      '--retries',
      'users=1',
      '--law',
      'mean-field',
      '--json',
    );
    const result = JSON.parse(stdout);
    expect(result.sweep.tipping).toBeGreaterThan(69);
    // The storm of one retry per request offers 2λ/μ: it cannot hold below λ ≈ μ/2.
    expect(result.sweep.recovery).toBeGreaterThan(50);
    expect(result.sweep.recovery).toBeLessThan(60);
  });
});

describe('difftry tune --constraint monostable', () => {
  it('chooses retry limits that leave no storm state at the load', async () => {
    const { code, stdout } = await runCli(
      'tune',
      METASTABLE,
      '--timeout',
      '100',
      '--constraint',
      'monostable',
      '--json',
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    // Five retries (the file's) keep a storm at half load; one retry does not (its storm needs
    // more than μ/2), and among the monostable limits 1 completes the most.
    expect(result.chosen.limits).toEqual({ users: 1 });
    const { stdout: text } = await runCli(
      'tune',
      METASTABLE,
      '--timeout',
      '100',
      '--constraint',
      'monostable',
    );
    expect(text).toContain('constraints  monostable');
    expect(text).toMatch(/current\s+5 .* monostable/);
  });
});
