import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

const SHORT = ['--duration', '3', '--replications', '2'];

describe('simulate --strategy: the limits shown are the limits in force', () => {
  it('uniform gives every class the highest class’s limit, and says so', async () => {
    const uniform = await runCli(
      'simulate',
      '--example',
      'hotel',
      ...SHORT,
      '--strategy',
      'uniform',
      '--json',
    );
    expect(uniform.code).toBe(0);
    expect(JSON.parse(uniform.stdout).classes).toEqual([
      { name: 'high', retries: 5 },
      { name: 'low', retries: 5 },
    ]);
    const text = await runCli('simulate', '--example', 'hotel', ...SHORT, '--strategy', 'uniform');
    expect(text.stdout).toMatch(/^low +5 /m);
  });

  it('difftry keeps each class its own', async () => {
    const difftry = await runCli('simulate', '--example', 'hotel', ...SHORT, '--json');
    expect(JSON.parse(difftry.stdout).classes).toEqual([
      { name: 'high', retries: 5 },
      { name: 'low', retries: 1 },
    ]);
  });
});
