import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFolder } from '../../src/cli/testbedFig5Command.js';
import { runCli } from './runCli.js';

describe('difftry testbed fig5 --out', () => {
  it('defaults to a new folder named for the run, never docs/', () => {
    expect(runFolder(new Date('2026-12-01T16:35:12.345Z'))).toBe('testbed-fig5-20261201-163512');
  });

  it('refuses an output path it cannot write before any run starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'difftry-fig5-'));
    const file = join(dir, 'taken');
    writeFileSync(file, 'x');
    const asFile = await runCli('testbed', 'fig5', '--quick', '--out', file);
    expect(asFile.code).toBe(2);
    expect(asFile.stdout).toBe('');
    expect(asFile.stderr).toBe(
      `difftry: --out: ${file} is a file; expected a directory to write into\n`,
    );
    const under = await runCli('testbed', 'fig5', '--quick', '--out', join(file, 'sub'));
    expect(under.code).toBe(2);
    expect(under.stderr).toBe(
      `difftry: --out: cannot create ${join(file, 'sub')}: ${file} is a file\n`,
    );
    // Refused up front: stderr is the one line (no progress bar: no run started), nothing written.
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});
