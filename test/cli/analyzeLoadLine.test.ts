import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

describe('difftry analyze: the load line', () => {
  it('gives attempts per completed request where requests complete', async () => {
    const { code, stdout } = await runCli('analyze', '--example', 'hotel');
    expect(code).toBe(0);
    const json = JSON.parse((await runCli('analyze', '--example', 'hotel', '--json')).stdout);
    const perSuccess = json.load.attemptsPerSuccess.toFixed(3);
    expect(stdout).toContain(`(${perSuccess} per completed request)`);
  });

  it('says that almost nothing completes in a storm instead of printing a huge ratio', async () => {
    // A 100 ms per-try timeout at every hop of hotelReservation: the storm completes ~1e-13.
    const { code, stdout } = await runCli('analyze', '--example', 'hotel', '--timeout', '100');
    expect(code).toBe(0);
    expect(stdout).toContain('attempts per request (almost no request completes)');
    expect(stdout).not.toMatch(/\d{7,}\.\d+ per completed request/);
  });
});
