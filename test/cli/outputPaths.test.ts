import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'difftry-out-'));
}

describe('output paths are checked before the work, one line on failure', () => {
  it('analyze --csv without --sweep is refused, not ignored', async () => {
    const csv = join(tempDir(), 'rows.csv');
    const { code, stdout, stderr } = await runCli('analyze', '--example', 'hotel', '--csv', csv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('difftry: --csv: only with --sweep\n');
    expect(existsSync(csv)).toBe(false);
  });

  it('analyze --sweep --csv DIRECTORY is one line, not a stack trace', async () => {
    const dir = tempDir();
    const { code, stdout, stderr } = await runCli(
      'analyze',
      '--example',
      'hotel',
      '--sweep',
      'frontend.low=50:100:50',
      '--csv',
      dir,
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`difftry: --csv: ${dir} is a directory; expected a file to write\n`);
  });

  it('mesh sidecars --out on an existing file is one line, not a stack trace', async () => {
    const file = join(tempDir(), 'taken');
    writeFileSync(file, 'x');
    const { code, stdout, stderr } = await runCli(
      'mesh',
      'sidecars',
      '--example',
      'hotel-calls',
      '--out',
      file,
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`difftry: --out: ${file} is a file; expected a directory to write into\n`);
  });
});
