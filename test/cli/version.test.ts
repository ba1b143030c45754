import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

describe('difftry --version', () => {
  it("prints the package's version and exits 0", async () => {
    for (const flag of ['--version', '-V']) {
      const { code, stdout, stderr } = await runCli(flag);
      expect(code).toBe(0);
      expect(stdout.trim()).toBe(version);
      expect(stderr).toBe('');
    }
  });
});
