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
