import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

// Found by the CLI fuzzing (test/fuzz): number options went through Number() alone, which takes
// hexadecimal, binary and octal literals and blanks around, so `--timeout 0x10` ran with 16 ms
// (and a 40-second tune). A number option takes a decimal literal only.

describe('number options are decimal', () => {
  it.each([
    ['analyze', '--example', 'single', '--timeout', '0x10'],
    ['analyze', '--example', 'single', '--timeout', '0b11'],
    ['simulate', '--example', 'single', '--duration', '0o7'],
    ['simulate', '--example', 'single', '--duration', ' 1'],
    ['generate', 'dgg', '--services', '0x5'],
    ['generate', 'dgg', '--seed', '1_000'],
  ])('%s … %s %s %s %s is refused with one line', async (...argv) => {
    const { code, stdout, stderr } = await runCli(...argv);
    const option = argv[argv.length - 2] as string;
    expect({ code, stdout, lines: stderr.trim().split('\n').length }).toStrictEqual({
      code: 2,
      stdout: '',
      lines: 1,
    });
    expect(stderr).toContain(`${option}: expected`);
  });

  it.each([['0.5'], ['.5'], ['5.'], ['5e-1'], ['+0.5'], ['5E-1']])(
    'analyze --timeout %s is a number',
    async (text) => {
      const { code } = await runCli('analyze', '--example', 'single', '--timeout', text);
      expect({ text, code }).toStrictEqual({ text, code: 0 });
    },
  );
});
