import { describe, expect, it } from 'vitest';
import { PAPER_TIME_FRACTIONS } from '../../src/experiments/timeouts/paperFigures.js';
import { runCli } from './runCli.js';

describe('difftry timeouts eval', () => {
  it('prints the Time Fraction table beside the paper’s figures, and the target verdict', async () => {
    const { code, stdout, stderr } = await runCli(
      'timeouts',
      'eval',
      '--scenario',
      'spikes',
      '--strategies',
      'exponential-backoff,combined',
      '--requests',
      '200',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Time Fraction, virtual time \(seed 1, 200 requests per scenario/);
    expect(stdout).toMatch(/scenario\s+exponential-backoff\s+combined\s+paper combined/);
    expect(stdout).toMatch(/Spikes\s+\d\.\d{3}\s+\d\.\d{3}\s+0\.981\s+1\.2\n/);
    expect(stdout).toMatch(
      /Target \(combined ≤ 1\.05 and below exponential-backoff in every scenario\): (met|NOT met)/,
    );
    expect(stdout).toContain('recompute ms');
  });

  it('--json: one document, reproducible for a seed, every scenario and strategy', async () => {
    const args = ['timeouts', 'eval', '--requests', '100', '--json', '--seed', '5'];
    const first = await runCli(...args);
    expect(first.code).toBe(0);
    const doc = JSON.parse(first.stdout);
    expect(doc).toMatchObject({ mode: 'virtual', seed: 5, requests: 100, initRequests: 10 });
    expect(doc.results).toHaveLength(8 * 5);
    expect(doc.paper).toEqual(PAPER_TIME_FRACTIONS);
    for (const row of doc.results) {
      expect(row.requests, `${row.scenario} ${row.strategy}`).toBe(90);
      expect(row.timeFraction).toBeGreaterThan(0);
      expect(row.totalTimeS / row.curveIntegralS).toBeCloseTo(row.timeFraction, 12);
    }
    const recomputing = doc.results.filter((r: { strategy: string }) =>
      ['optimizer', 'combined'].includes(r.strategy),
    );
    expect(
      recomputing.every((r: { recomputeTimeMs: unknown }) => typeof r.recomputeTimeMs === 'number'),
    ).toBe(true);
    expect(
      doc.results.find((r: { strategy: string }) => r.strategy === 'rto').recomputeTimeMs,
    ).toBeNull();
    expect(typeof doc.target.met).toBe('boolean');
    const again = JSON.parse((await runCli(...args)).stdout);
    const timeFractions = (d: typeof doc) =>
      d.results.map((r: { timeFraction: number }) => r.timeFraction);
    expect(timeFractions(again)).toEqual(timeFractions(doc));
  });

  it('--live: App1 → App2 on loopback, a tiny bounded run', async () => {
    const { code, stdout } = await runCli(
      'timeouts',
      'eval',
      '--live',
      '--scenario',
      'fast-decrease',
      '--strategies',
      'rto,combined',
      '--requests',
      '30',
      '--time-scale',
      '0.02',
      '--json',
    );
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({ mode: 'live', timeScale: 0.02, requests: 30 });
    expect(doc.results.map((r: { strategy: string }) => r.strategy)).toEqual(['rto', 'combined']);
    for (const row of doc.results) {
      expect(row.requests).toBe(27);
      expect(typeof row.overheadMs).toBe('number');
      expect(row.overheadFraction).toBeCloseTo(
        (row.overheadMs * row.attempts) / 0.02 / 1000 / row.curveIntegralS,
        9,
      );
    }
  }, 10_000);

  it('bad input exits 2 with one line on stderr and nothing on stdout', async () => {
    for (const args of [
      ['--scenario', 'steady'],
      ['--strategies', 'optimizer,telepathy'],
      ['--strategies', 'rto,rto'],
      ['--time-scale', '0.1'],
      ['--live', '--time-scale', '0'],
      ['--requests', '5'],
    ]) {
      const { code, stdout, stderr } = await runCli('timeouts', 'eval', ...args);
      expect({ args, code, stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(/^difftry: /);
    }
  });
});
