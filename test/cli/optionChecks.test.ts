import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

describe('--retries', () => {
  it('refuses a class given twice with one line, instead of letting the last win', async () => {
    const { code, stdout, stderr } = await runCli(
      'analyze',
      '--example',
      'hotel',
      '--retries',
      'high=5,low=1,high=2',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'difftry: --retries: class "high" is given twice (high=5 and high=2); give each class once\n',
    );
  });

  it('takes each class once', async () => {
    const { code, stdout } = await runCli(
      'analyze',
      '--example',
      'hotel',
      '--retries',
      'high=5,low=1',
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).classes).toEqual([
      { name: 'high', retries: 5 },
      { name: 'low', retries: 1 },
    ]);
  });
});

describe('simulate --duration', () => {
  it('refuses a run too long to finish, with the figure that makes it so', async () => {
    const { code, stdout, stderr } = await runCli(
      'simulate',
      '--example',
      'hotel',
      '--duration',
      '1e12',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    // hotelReservation: 300 requests/s; 10 replications of 1e12 s and the default warm-up.
    expect(stderr).toMatch(
      /^difftry: --duration 1000000000000 × --replications 10 at 300\.00 requests\/s would simulate 3\.\de\+15 requests, over the 1e\+9 one run may take: shorten --duration or lower --replications\n$/,
    );
  });

  it('refuses a --window run of more windows than a run may measure', async () => {
    // Found by the fuzzing suite: a near-idle network passes the request bound, yet 1e12 s in
    // windows of 1000 s is 1.1e9 windows (45 minutes, and memory with smaller windows).
    const { code, stdout, stderr } = await runCli(
      'simulate',
      '--example',
      'hotel',
      '--duration',
      '1e6',
      '--window',
      '1',
      '--replications',
      '1',
    );
    expect({ code, stdout }).toStrictEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(
      'difftry: --window 1 over --duration 1000000 (warm-up 100000.0 s) would measure 1.1e+6 windows, over the 1e+5 one run may take: widen --window or shorten --duration\n',
    );
  });

  it('counts every point of a sweep against the bound, at its own rate', async () => {
    // hotelReservation (high 50, low 250 requests/s) at low = 50, 200, 350: 100 + 250 + 400
    // requests/s over 1.1e6 s (warm-up included) and 10 replications, 8.25e9 requests.
    const { code, stderr } = await runCli(
      'simulate',
      '--example',
      'hotel',
      '--sweep',
      'frontend.low=50:350:150',
      '--duration',
      '1e6',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^difftry: --duration 1000000 × --replications 10 at 300\.00 requests\/s over 3 sweep points would simulate 8\.3e\+9 requests, over the 1e\+9 one run may take: shorten --duration or lower --replications or thin the sweep\n$/,
    );
  });
});
