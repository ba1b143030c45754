import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Runs the real CLI (through tsx) with `stdout` as given; resolves with its exit code and stderr. */
function runReal(
  args: readonly string[],
  stdout: 'pipe-closed-early' | number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      stdio: ['ignore', stdout === 'pipe-closed-early' ? 'pipe' : stdout, 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    // The reader goes away after the first bytes, as `| head -c 10` does.
    child.stdout?.once('data', () => child.stdout?.destroy());
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a failed write to standard output', () => {
  it('a pipe closed by its reader: one line, exit 2, no stack trace', async () => {
    const { code, stderr } = await runReal(
      ['generate', 'mubench', '--services', '5000'],
      'pipe-closed-early',
    );
    expect(stderr).toBe('difftry: cannot write to standard output: closed by its reader\n');
    expect(code).toBe(2);
  }, 60_000);

  it('a full device: one line, exit 2', async () => {
    const { code, stderr } = await runReal(
      ['analyze', '--example', 'hotel'],
      openSync('/dev/full', 'w'),
    );
    expect(stderr).toBe('difftry: cannot write to standard output: ENOSPC\n');
    expect(code).toBe(2);
  }, 60_000);
});
