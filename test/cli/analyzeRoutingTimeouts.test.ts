import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

describe('difftry analyze: a routing network with per-try timeouts', () => {
  it('hotelReservation (routing form) with a 250 ms timeout at every hop: solved as routing, no uniqueness claimed, where it tipped', async () => {
    const { code, stdout } = await runCli(
      'analyze',
      '--example',
      'hotel',
      '--timeout',
      '250',
      // The mean field's search: where the rising load tipped.
      '--law',
      'mean-field',
      '--json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.mode).toBe('routing');
    expect(report.structure.uniqueness).toBe('none');
    // ρ₀ ≈ 2.1 at the frontend: the rising load tips into the storm on the way.
    expect(report.equilibria.map((e: { kind: string }) => e.kind)).toEqual(['storm']);
    expect(report.tippedAt).toBeGreaterThan(0);
    expect(report.tippedAt).toBeLessThan(1);
  });

  it('--sweep follows both branches and says where the healthy one tips', async () => {
    const { code, stdout } = await runCli(
      'analyze',
      '--example',
      'hotel',
      '--timeout',
      '250',
      '--law',
      'mean-field',
      '--sweep',
      'frontend.low=25:250:75',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('storm rejection');
    expect(stdout).toMatch(/bistable: tips above frontend\.low = 7\d\.\d+/);
  });
});
