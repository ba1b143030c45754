// The output-path checks outside the CLI (src/report/outputPath.ts): an OutputPathError naming
// the option, the path and what is wrong; the CLI's own wrapper is tested in test/cli.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOutputPathError, OutputPathError } from '../../src/report/OutputPathError.js';
import {
  checkOutputDirectory,
  checkOutputPath,
  writeOutputFiles,
} from '../../src/report/outputPath.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'difftry-report-out-'));

describe('report/outputPath', () => {
  it('refuses a directory where a file is asked for, and a missing directory', async () => {
    const dir = tempDir();
    await expect(checkOutputPath(dir, '--out')).rejects.toThrow(
      new OutputPathError(`--out: ${dir} is a directory; expected a file to write`),
    );
    const missing = join(dir, 'no', 'a.csv');
    const error = await checkOutputPath(missing, '--csv').catch((e: unknown) => e);
    expect(isOutputPathError(error)).toBe(true);
    expect((error as OutputPathError).code).toBe('DIFFTRY_OUTPUT_PATH');
    expect((error as Error).message).toBe(
      `--csv: cannot write ${missing}: no such directory ${join(dir, 'no')}`,
    );
  });

  it('refuses a file where a directory is asked for, and writes files whole', async () => {
    const dir = tempDir();
    const file = join(dir, 'taken');
    writeFileSync(file, 'x');
    await expect(checkOutputDirectory(file, '--out')).rejects.toThrow(
      `--out: ${file} is a file; expected a directory to write into`,
    );
    await writeOutputFiles([{ path: join(dir, 'a.txt'), text: 'a\n' }], '--out');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a\n');
  });
});
