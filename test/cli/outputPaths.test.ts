import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOutputFiles } from '../../src/cli/outputPath.js';
import { UsageError } from '../../src/cli/UsageError.js';
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

describe('every output path of the CLI is checked before the work', () => {
  it('generate --output into a missing directory is one line, nothing written', async () => {
    const file = join(tempDir(), 'missing', 'net.yaml');
    const { code, stdout, stderr } = await runCli('generate', 'mubench', '--output', file);
    expect({ code, stdout }).toStrictEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(/^difftry: --output: cannot write .*: no such directory .*\n$/);
  });

  it('verify-uniqueness --out on a file is refused before any case runs', async () => {
    const file = join(tempDir(), 'taken');
    writeFileSync(file, 'x');
    const { code, stdout, stderr } = await runCli(
      'verify-uniqueness',
      '--graphs',
      '1',
      '--configs',
      '1',
      '--inits',
      '2',
      '--threads',
      '1',
      '--out',
      file,
    );
    expect({ code, stdout }).toStrictEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(`difftry: --out: ${file} is a file; expected a directory to write into\n`);
  });
});

describe('writeOutputFiles: whole files or none', () => {
  it('writes every file whole, and leaves no temporary file', async () => {
    const dir = tempDir();
    await writeOutputFiles(
      [
        { path: join(dir, 'a.csv'), text: 'a\n' },
        { path: join(dir, 'b.csv'), text: 'b\n' },
      ],
      '--out',
    );
    expect(readdirSync(dir).sort()).toStrictEqual(['a.csv', 'b.csv']);
    expect(readFileSync(join(dir, 'b.csv'), 'utf8')).toBe('b\n');
  });

  it('on a failure writes none of them, keeps what was there, and says which file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.csv'), 'before\n');
    const missing = join(dir, 'gone', 'b.csv');
    const writing = writeOutputFiles(
      [
        { path: join(dir, 'a.csv'), text: 'after\n' },
        { path: missing, text: 'b\n' },
      ],
      '--out',
    );
    await expect(writing).rejects.toThrow(UsageError);
    await expect(writing).rejects.toThrow(`--out: cannot write ${missing}: ENOENT`);
    expect(readdirSync(dir)).toStrictEqual(['a.csv']);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('before\n');
  });
});
