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
});
