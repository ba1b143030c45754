import { describe, expect, it } from 'vitest';
import { fixed, UNDEFINED_NOTE, withCi } from '../../src/cli/table.js';
import { runCli } from './runCli.js';

describe('figures that are not defined', () => {
  it('print as — in the tables, never NaN', () => {
    expect(fixed(Number.NaN)).toBe('—');
    expect(withCi(Number.NaN, Number.NaN)).toBe('—');
    expect(withCi(0.25, Number.NaN)).toBe('0.2500 ± —');
    expect(withCi(0.25, 0.01)).toBe('0.2500 ± 0.0100');
    expect(fixed(Number.POSITIVE_INFINITY)).toBe('Infinity');
  });

  it('print a rounding error below zero as 0, not -0', () => {
    expect(fixed(-1e-17, 3)).toBe('0.000');
    expect(fixed(-0, 2)).toBe('0.00');
    expect(fixed(-0.0004, 4)).toBe('-0.0004');
    expect(fixed(-0.5, 1)).toBe('-0.5');
  });

  it('a one-replication run with no successful request says why under the table', async () => {
    // hotelReservation with a 250 ms timeout at every hop is in a storm: nothing succeeds, so
    // there is no latency, and one replication has no half-width.
    const { code, stdout } = await runCli(
      'simulate',
      '--example',
      'hotel',
      '--timeout',
      '250',
      '--duration',
      '3',
      '--replications',
      '1',
    );
    expect(code).toBe(0);
    expect(stdout).not.toContain('NaN');
    expect(stdout).toContain('1.0000 ± —');
    expect(stdout.trimEnd().endsWith(UNDEFINED_NOTE)).toBe(true);
  });

  it('a run with every figure defined has no footnote', async () => {
    const { code, stdout } = await runCli(
      'simulate',
      '--example',
      'single',
      '--duration',
      '5',
      '--replications',
      '2',
    );
    expect(code).toBe(0);
    expect(stdout).not.toContain(UNDEFINED_NOTE);
  });
});
